"""The world acts in a whole game on the real stack (rules 17.5, 24), in headless Chromium:
a newcomer plays the teaching game to its end against a bot, through the page only.
From the first turn the hordes' targets are on the map (24.12); at the end of each game
turn they ride, and their raids reach the chronicle (24.13); a raid on the newcomer's
own area is answered in the defense dialog. Any usurper the game raises (17.5) is drawn
on the map. Screenshots: test-artifacts/world-real-*.png."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, wait_js
from .test_play_in_browser import Person, Table

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")


class WorldTable(Table):
    """The newcomer's table, noting the world as it goes."""

    def __init__(self, people: list[Person], game_id: int) -> None:
        super().__init__(people, game_id)
        self.raid_dialogs = 0
        self.usurper_seen = False

    def perform(self, person: Person, data: dict[str, Any], action: dict[str, Any]) -> None:
        view = data["view"] or {}
        it = view.get("interrupt") or {}
        if it.get("kind") == "raid":
            dialog = person.page.locator("#decision-dialog")
            dialog.wait_for(state="visible")
            assert it["horde_name"] in dialog.inner_text()
            if not self.raid_dialogs:
                person.shot("world-real-raid-dialog.png")
            self.raid_dialogs += 1
        if (view.get("world") or {}).get("usurpers") and not self.usurper_seen:
            wait_js(person.page, "document.querySelector('#map .m-usurper') !== null")
            person.shot("world-real-usurper.png")
            self.usurper_seen = True
        super().perform(person, data, action)


def test_the_hordes_threaten_and_raid_in_a_whole_game(browser: Any, live_server: Any) -> None:
    newcomer = Person(
        browser, live_server.url, f"wld{uuid.uuid4().hex[:6]}", {"width": 1366, "height": 900}
    )
    try:
        newcomer.signup()
        page = newcomer.page
        page.select_option("#scenario", value="teaching")
        page.click("#new-game button[type=submit]")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        found = re.search(r"/games/(\d+)$", page.url)
        assert found, page.url
        game_id = int(found.group(1))
        page.locator("#map svg .area").first.wait_for()
        wait_js(page, "document.body.dataset.version !== ''")
        # 24.12: the hordes' targets of the first game turn are on the map at once
        hordes = [h for h in newcomer.api_view(game_id)["view"]["world"]["hordes"] if h["target"]]
        assert hordes
        wait_js(page, "document.querySelectorAll('#map .m-horde').length > 0")
        target = hordes[0]["target"]
        page.hover(f"#area-{target}")
        wait_js(
            page,
            "[...document.querySelectorAll('dd')].some(d => d.textContent.includes('strength'))",
        )
        newcomer.shot("world-real-threat.png")

        table = WorldTable([newcomer], game_id)
        start = time.monotonic()
        while time.monotonic() - start < 400 and table.step():
            pass
        data = newcomer.api_view(game_id)
        assert data["status"] == "finished" or (data["view"] or {}).get("over"), data["status"]
        # 24.13: the hordes rode at the end of each game turn, into the chronicle
        log = page.locator("#log-list").inner_text()
        assert re.search(r"The \w[\w ]* (raid|keep the peace|ride against)", log), log[-2000:]
        assert not newcomer.errors, newcomer.errors
    finally:
        newcomer.context.close()
