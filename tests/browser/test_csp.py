"""Every page works in headless Chromium under the Content-Security-Policy (no inline
script): the console shows no CSP violation and no error while a person signs up,
creates a game (new_game.js), waits in its lobby (game_lobby.js), plays on the game
page, changes the password and asks for a reset link on the account forms, and deletes
the account. Screenshots: test-artifacts/csp-*.png."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact

pytestmark = BROWSER_MARKS

pytest.importorskip("playwright.sync_api")

WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " @ " + e.sourceFile);
});
"""


class Watched:
    def __init__(self, browser: Any, base: str) -> None:
        self.context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 900})
        self.context.add_init_script(WATCH_CSP)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15000)
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))
        self.page.on("console", self.on_console)

    def on_console(self, m: Any) -> None:
        url = str(m.location.get("url", ""))
        if url.endswith("/favicon.ico"):
            return  # the site has no icon; the browser asks anyway
        if m.type == "error" or "Content Security Policy" in m.text:
            self.problems.append(f"console {m.type}: {m.text} @ {url}")

    def visit(self, path: str) -> None:
        response = self.page.goto(path)
        assert response is not None and response.ok, (path, response and response.status)
        csp = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in csp, path
        self.check(path)

    def check(self, where: str) -> None:
        self.page.wait_for_load_state()
        violations = self.page.evaluate("window.__csp || []")
        assert not violations, (where, violations)
        assert not self.problems, (where, self.problems)


def test_pages_work_under_the_csp(browser: Any, live_server: Any) -> None:
    me = Watched(browser, live_server.url)
    page = me.page
    name = f"csp{uuid.uuid4().hex[:8]}"
    me.visit("/signup")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", "correct horse 1")
    page.click("form[action='/signup'] button[type=submit]")
    me.check("after sign-up")

    # The new-game form's script hides the powers of other scenarios.
    me.visit("/games/new")
    page.select_option("#scenario", "teaching")
    hidden = page.evaluate(
        "[...document.querySelectorAll('#power option[data-scenario]')]"
        ".filter(o => o.dataset.scenario !== 'teaching').every(o => o.hidden)"
    )
    assert hidden, "new_game.js did not run"
    # A person in seat 2: the game waits in its lobby (game_lobby.js polls it).
    page.select_option("select[name=seat_1]", "human")
    page.click("#new-game button[type=submit]")
    page.wait_for_url("**/lobby")
    me.check("game lobby")
    page.click("#invite-link")
    selected = page.evaluate("window.getSelection().toString() || document.activeElement.value")
    assert "/join/" in selected, "game_lobby.js did not select the invite link"
    page.screenshot(path=str(artifact("csp-lobby.png")))

    # A game against a bot starts at once: the game page draws its view.
    me.visit("/games/new")
    page.select_option("#scenario", "teaching")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("body[data-version]:not([data-version=''])")
    # The websocket connects under connect-src 'self'.
    page.wait_for_selector("#conn[data-state=connected]")
    me.check("game page")
    page.screenshot(path=str(artifact("csp-game.png")))
    me.visit("/rules")

    # The account forms.
    me.visit("/account")
    page.fill("#password-form input[name=current_password]", "correct horse 1")
    page.fill("#password-form input[name=new_password]", "newer horse 2")
    page.click("#password-form button[type=submit]")
    page.wait_for_url("**/account")
    assert "Password changed" in page.content()
    page.screenshot(path=str(artifact("csp-account.png")), full_page=True)
    me.check("password changed")
    page.fill("#delete-account-form input[name=password]", "newer horse 2")
    page.click("#delete-account-form button[type=submit]")
    page.wait_for_url(live_server.url + "/")
    assert "account is deleted" in page.content()

    me.visit("/login")
    page.click("#forgot-password")
    page.wait_for_url("**/forgot-password")
    page.fill("input[name=who]", name)
    page.click("#forgot-form button[type=submit]")
    page.wait_for_selector("#reset-sent")
    me.check("forgot password")
    me.context.close()
