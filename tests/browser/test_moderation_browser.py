"""Moderation in the browser (issue 41, part 5), on a real server and Debian's Chromium:
Bob, at a table with Carol, reports one of her chat lines from the game page (a reason
and his words), blocks her from another line of hers (every line of hers vanishes, and a
new one never reaches his page), mutes and unmutes the table talk; his account page
lists her. An admin opens /admin, sees the report with the lines around it, and
suspends Carol from there: she can no longer sign in, and Bob's page announces the
stand-in that now plays her seat.

Screenshots (test-artifacts/): moderation-report.png (the report form beside a line),
moderation-blocked.png (Bob's table talk after the block), moderation-admin.png (the
queue), moderation-suspended.png (the admin page after the suspension),
moderation-account.png (whom Bob blocks), moderation-profile.png (Carol's profile: unblock,
report the player).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import ROOT, LiveServer, Player

from .chromium import BROWSER_MARKS, artifact, wait_js

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")


def log_in(browser: Any, server: LiveServer, player: Player) -> Any:
    """A browser context signed in as `player` through the log-in form; its page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server.url)
    page = context.new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto("/login")
    page.fill("input[name=username]", player.username)
    page.fill("input[name=password]", player.password)
    page.click("form[action='/login'] button[type=submit]")
    page.wait_for_load_state()
    return page


def chat_lines(page: Any) -> list[str]:
    texts: list[str] = page.locator("#chat .chat-list li[data-id]").all_inner_texts()
    return texts


def test_block_report_and_an_admin_suspends_from_the_admin_page(
    browser: Any, start_server: Callable[..., LiveServer], sqlite_url: str, new_player: Any
) -> None:
    expect = playwright_api.expect
    server = start_server(sqlite_url)
    root, bob, carol = (new_player(server) for _ in range(3))
    granted = subprocess.run(
        [sys.executable, "-m", "app.cli", "admin", "grant", root.username],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": sqlite_url},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert granted.returncode == 0, granted.stderr
    game = bob.create_game(scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}])
    gid = game["id"]
    assert carol.join(gid).status_code == 200
    assert bob.start(gid).status_code == 200
    for text in ("good luck, bob", "you are an idiot", "seriously, an idiot"):
        assert carol.http.post(f"/api/games/{gid}/chat", json={"text": text}).status_code == 201

    page = log_in(browser, server, bob)
    page.goto(f"/games/{gid}")
    line = page.locator("#chat .chat-list li", has_text="you are an idiot")
    expect(line).to_be_visible()

    # Report the line: a reason and his words, then the thanks in its place.
    line.locator("button.chat-report").click()
    form = line.locator("form.chat-report-form")
    form.locator("select[name=reason]").select_option("abuse")
    form.locator("input[name=text]").fill("insults, twice")
    page.locator("#chat").scroll_into_view_if_needed()
    page.screenshot(path=str(artifact("moderation-report.png")))
    form.locator("button[type=submit]").click()
    expect(line.locator(".chat-reported")).to_contain_text("moderators will look")

    # Block her from another of her lines: all of hers vanish, and a new one never comes.
    page.locator("#chat .chat-list li", has_text="good luck, bob").locator(
        "button.chat-block"
    ).click()
    expect(page.locator("#chat li[data-blocked]")).to_contain_text(f"You block {carol.username}")
    assert not [t for t in chat_lines(page) if "idiot" in t or "good luck" in t]
    assert (
        carol.http.post(f"/api/games/{gid}/chat", json={"text": "still there?"}).status_code == 201
    )
    page.evaluate("() => window.imperialGlory.chat.refresh()")
    time.sleep(1.0)  # a push would have come by now
    assert "still there?" not in " ".join(chat_lines(page))
    assert bob.http.get(f"/api/games/{gid}/chat").json()["messages"] == []
    page.screenshot(path=str(artifact("moderation-blocked.png")))

    # Mute the table talk, then unmute it: the page says so.
    page.click("#chat button.chat-mute")
    expect(page.locator("#chat .chat-muted")).to_be_visible()
    expect(page.locator("#chat .chat-list")).to_be_hidden()
    page.click("#chat button.chat-mute")
    expect(page.locator("#chat .chat-muted")).to_be_hidden()

    # The admin's queue: the report with the lines around it; suspend from there.
    admin = log_in(browser, server, root)
    admin.goto("/admin")
    report = admin.locator("article.report", has_text="insults, twice")
    expect(report.locator(".report-context li.reported")).to_contain_text("you are an idiot")
    expect(report.locator(".report-context")).to_contain_text("good luck, bob")
    expect(report.locator(f"a[href='/games/{gid}']")).to_be_visible()
    admin.screenshot(path=str(artifact("moderation-admin.png")), full_page=True)
    report.locator("input[name=reason]").fill("insults at the table")
    report.locator("form.suspend-form button[type=submit]").click()
    admin.wait_for_load_state()
    expect(admin.locator(".flash")).to_contain_text(f"{carol.username} is suspended")
    row = admin.locator(f"#suspended-accounts tr[data-username='{carol.username}']")
    expect(row).to_contain_text("insults at the table")
    expect(admin.locator("#no-reports")).to_be_visible()  # her open reports are closed
    admin.screenshot(path=str(artifact("moderation-suspended.png")), full_page=True)

    refused = carol.login()
    assert refused.status_code == 403 and "insults at the table" in refused.json()["detail"]
    expect(page.locator("#log-list")).to_contain_text("was suspended by the moderators")
    wait_js(page, "document.querySelector('#table-bar') !== null")

    page.goto("/account")
    expect(page.locator("#blocked-players")).to_contain_text(carol.username)
    page.locator("#blocked-players").scroll_into_view_if_needed()
    page.screenshot(path=str(artifact("moderation-account.png")))
    page.goto(f"/players/{carol.username}")
    expect(page.locator("#unblock-form")).to_be_visible()
    page.locator("details.report-player summary").click()
    page.screenshot(path=str(artifact("moderation-profile.png")), full_page=True)
    assert not page.errors and not admin.errors, page.errors + admin.errors
