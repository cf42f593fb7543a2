"""The bot levels as a player meets them: named and described in the new-game form and the lobby."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact

pytestmark = BROWSER_MARKS

pytest.importorskip("playwright.sync_api")


def test_new_game_form_and_lobby_name_the_levels(browser: Any, live_server: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15000)
    try:
        page.goto("/signup")
        page.fill("input[name=username]", f"lv{uuid.uuid4().hex[:6]}")
        page.fill("input[name=password]", "correct horse 1")
        page.click("form[action='/signup'] button[type=submit]")
        page.wait_for_load_state()
        page.goto("/games/new")
        options = page.locator("select[name=seat_1] option").all_inner_texts()
        assert [o for o in options if o.startswith("bot:")] == [
            "bot: Novice",
            "bot: Standard",
            "bot: Strong",
        ]
        assert page.locator("select[name=seat_1]").input_value() == "bot:standard"
        levels = page.locator("ul.bot-levels li").all_inner_texts()
        assert len(levels) == 3 and levels[0].startswith("Novice:")
        assert "never starts a war" in levels[0] and "Monte Carlo" in levels[2]
        page.screenshot(path=str(artifact("new-game-bot-levels.png")), full_page=True)
        page.select_option("#scenario", value="four_empires")
        page.select_option("select[name=seat_1]", value="bot:strong")
        page.select_option("select[name=seat_2]", value="human")
        page.click("#new-game button[type=submit]")
        page.wait_for_url(re.compile(r"/games/\d+/lobby"))
        table = page.locator("table").first.inner_text()
        assert "bot (Strong)" in table
        page.screenshot(path=str(artifact("lobby-bot-levels.png")), full_page=True)
    finally:
        context.close()
