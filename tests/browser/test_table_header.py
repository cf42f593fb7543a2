"""Being away said once, and paused clocks said in the header (issue 40): after "I'm away"
her page states it in one place, the stand-in banner (no notice repeating it, her clock
chip says "away" in a word), and the others' pages in theirs, the banner naming who is away
(their chip says "away" in a word too); once the table votes the clocks paused, the game's
header says "clocks paused" on every page.

Screenshots (test-artifacts/): away-once.png (hers), paused-header.png."""

from __future__ import annotations

from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js
from .test_offer_window import keep_shot
from .test_page_controls import by_seat, open_page, shot, two_people

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")

#: every visible line of the page's banners, notices and clock bar that says she is away
AWAY_LINES = """() => [...document.querySelectorAll(
    '#notice, #standin .standin-text, #absent, #table-bar .clock-chip, #status')]
  .filter((n) => !n.hidden && n.offsetParent !== null)
  .map((n) => n.textContent)
  .filter((t) => /away|stand-in plays|bot is playing/i.test(t))"""


def test_away_is_said_once_and_the_header_says_the_clocks_are_paused(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    game_id, people = two_people(live_server, new_player, pace="live")
    seats = by_seat(game_id, people)
    leaver, stayer = seats[0], seats[1]
    c1, mine, e1 = open_page(browser, live_server, leaver, game_id)
    c2, theirs, e2 = open_page(browser, live_server, stayer, game_id)
    try:
        mine.locator("#table-bar").wait_for()
        version = leaver.view(game_id)["version"]
        mine.locator("#table-bar").get_by_role("button", name="I'm away").click()
        mine.locator("#standin").wait_for()
        wait_js(mine, f"Number(document.body.dataset.version) > {version}")
        theirs.locator("#absent").wait_for()
        lines = mine.evaluate(AWAY_LINES)
        assert len(lines) == 2, lines  # the banner, and her chip's one word
        chip = mine.locator('#table-bar .clock-chip[data-seat="0"]').inner_text()
        assert chip.strip().endswith("away") and "stand-in" not in chip, chip
        assert mine.locator("#notice").is_hidden(), mine.locator("#notice").inner_text()
        others = theirs.evaluate(AWAY_LINES)
        assert len(others) == 2, others  # "Nobody waits: … is away", and her chip
        shot(mine, "away-once.png")

        # Back, then the table (both of them) votes the clocks paused: the header says it.
        mine.locator("#standin").get_by_role("button", name="I'm back").click()
        mine.locator("#standin").wait_for(state="hidden")
        assert mine.locator("#status .clocks-paused").count() == 0
        theirs.locator('#table-bar [data-control="pause"]').click()
        mine.locator("#table-bar", has_text="1 of 2 voted to pause").wait_for()
        mine.locator('#table-bar [data-control="pause"]').click()
        for page in (mine, theirs):
            page.locator("#status .clocks-paused").wait_for()
            assert page.locator("#status").inner_text().count("clocks paused") == 1
        shot(theirs, "paused-header.png")
        keep_shot(artifact("paused-header.png"))
        assert not e1 and not e2, (e1, e2)
    finally:
        c1.close()
        c2.close()
