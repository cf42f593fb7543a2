"""The new-game form and the waiting room as friends meet them (issue 40): a scenario for
exactly two says "2 players" (not "2–2"); the live pace says what happens when time runs
out, and on a phone each pace's radio button sits by the first line of its words; in the
waiting room the power menu shows the power chosen (not "a random one"), "Cancel the game"
is apart from, and below, the main buttons, and the invite link has a copy button.

Screenshots (test-artifacts/): the form on a phone and the waiting room."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact
from .test_offer_window import keep_shot

pytestmark = BROWSER_MARKS

pytest.importorskip("playwright.sync_api")


def _signup(browser: Any, base: str, viewport: dict[str, int], **extra: Any) -> tuple[Any, Any]:
    context = browser.new_context(viewport=viewport, base_url=base, **extra)
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto("/signup")
    page.fill("input[name=username]", f"fm{uuid.uuid4().hex[:6]}")
    page.fill("input[name=password]", "correct horse 1")
    page.click("form[action='/signup'] button[type=submit]")
    page.wait_for_load_state()
    return context, page


def test_the_new_game_form_on_a_phone(browser: Any, live_server: Any) -> None:
    context, page = _signup(browser, live_server.url, {"width": 375, "height": 740})
    try:
        page.goto("/games/new")
        options = page.locator("#scenario option").all_inner_texts()
        teaching = next(o for o in options if "(teaching)" in o)
        assert re.search(r"— 2 players$", teaching.strip()), teaching
        assert not any(re.search(r"\b(\d+)–\1\b", o) for o in options), options
        live = page.locator("label.radio", has=page.locator("input[value=live]")).inner_text()
        assert "when it runs out" in live and "bot play your seat" in live, live
        # Each radio button sits beside the first line of its words, not halfway down.
        for label in page.locator("label.radio").all():
            box = label.locator("input").bounding_box()
            words = label.locator("span").bounding_box()
            assert box and words
            assert abs(box["y"] - words["y"]) < 8, (label.inner_text(), box, words)
        path = artifact("new-game-form-phone.png")
        page.screenshot(path=str(path), full_page=True)
        keep_shot(path)
    finally:
        context.close()


def test_the_waiting_room_power_menu_buttons_and_invite_link(
    browser: Any, live_server: Any
) -> None:
    context, page = _signup(
        browser,
        live_server.url,
        {"width": 1280, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    )
    try:
        page.goto("/games/new")
        page.select_option("#scenario", value="four_empires")
        han = page.evaluate(
            """[...document.querySelectorAll('#power option')].findIndex(
                 (o) => o.value === 'han' && o.dataset.scenario === 'four_empires')"""
        )
        page.select_option("#power", index=han)
        page.select_option("select[name=seat_1]", value="human")
        page.click("#new-game button[type=submit]")
        page.wait_for_url(re.compile(r"/games/\d+/lobby"))
        menu = page.locator("#join-form select[name=power]")
        assert menu.input_value() == "han"
        assert "Han" in menu.locator("option:checked").inner_text()
        # One main button per row of choices; Cancel the game apart and below them.
        start = page.locator("#start-form button").bounding_box()
        change = page.locator("#join-form button[type=submit]")
        assert "primary" not in (change.get_attribute("class") or "")
        cancel = page.locator("#leave-form button")
        assert cancel.inner_text() == "Cancel the game"
        box = cancel.bounding_box()
        assert start and box and box["y"] > start["y"] + start["height"], (start, box)
        # The invite link has a copy button that copies it.
        link = page.locator("#invite-link").input_value()
        page.click("#copy-invite")
        page.locator("#copy-done").filter(has_text=re.compile(".")).wait_for()
        if page.locator("#copy-done").inner_text() == "Copied.":
            assert page.evaluate("navigator.clipboard.readText()") == link
        path = artifact("waiting-room.png")
        page.screenshot(path=str(path), full_page=True)
        keep_shot(path)
    finally:
        context.close()


def test_sign_up_takes_the_browsers_time_zone(browser: Any, live_server: Any) -> None:
    """Mail times are the recipient's (issue 40): the sign-up form sends the browser's zone,
    and /account shows it, to be changed there."""
    context, page = _signup(
        browser, live_server.url, {"width": 1280, "height": 900}, timezone_id="Asia/Tokyo"
    )
    try:
        page.goto("/account")
        assert page.locator("#time-zone").input_value() == "Asia/Tokyo"
        page.select_option("#time-zone", value="Europe/Paris")
        page.click("#account-form button[type=submit]")
        page.wait_for_load_state()
        assert page.locator("#time-zone").input_value() == "Europe/Paris"
        me = page.request.get("/api/me").json()
        assert me["user"]["time_zone"] == "Europe/Paris", me
    finally:
        context.close()
