"""The friends' table in headless Chromium against a real server (issue 26): the pace
presets of the new-game form, every person's clock on the game page and in the lobby,
"I'm away" (her orders and a stand-in play at once, the table is told, she comes back
with "I'm back"), and the table's votes.

Screenshots go to test-artifacts/ (pace-form.png, clocks.png, away-others.png,
away-mine.png, lobby-clock.png, paused.png).
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js
from .test_page_controls import by_seat, open_page, shot, two_people

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")


def test_the_new_game_form_says_what_each_pace_means(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    alice = new_player(live_server)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 1200, "height": 1100}
    )
    context.add_cookies(
        [{"name": "ig_session", "value": alice.session_cookie, "url": live_server.url}]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto("/games/new")
        radios = page.locator("input[name=pace]")
        assert [radios.nth(i).get_attribute("value") for i in range(radios.count())] == [
            "auto",
            "live",
            "daily",
            "none",
        ]
        assert radios.nth(0).is_checked()
        text = page.locator("#new-game").inner_text()
        assert "10 minutes each, plus 30 seconds for every decision" in text
        assert "24 hours for each decision" in text and "No clock" in text
        page.locator("#new-game fieldset", has_text="Pace").scroll_into_view_if_needed()
        page.screenshot(path=str(artifact("pace-form.png")), full_page=True)
        # A table with another person: "automatic" is the live bank.
        page.select_option("select[name=seat_1]", "human")
        page.get_by_role("button", name="Create the game").click()
        page.wait_for_url(re.compile(r"/games/(\d+)/lobby$"))
        found = re.search(r"/games/(\d+)/lobby$", page.url)
        assert found
        game = alice.http.get(f"/api/games/{found.group(1)}").json()
        assert game["pace"] == "live", game
        assert not errors, errors
    finally:
        context.close()


def test_clocks_away_and_back_on_the_page(browser: Any, live_server: Any, new_player: Any) -> None:
    game_id, people = two_people(live_server, new_player, pace="live")
    seats = by_seat(game_id, people)
    view = seats[0].view(game_id)
    deciding = sorted({p["seat"] for p in view["prompts"]})
    leaver_seat = deciding[0]
    stayer_seat = 1 - leaver_seat
    leaver, stayer = seats[leaver_seat], seats[stayer_seat]

    c1, mine, e1 = open_page(browser, live_server, leaver, game_id)
    c2, theirs, e2 = open_page(browser, live_server, stayer, game_id)
    try:
        bar = theirs.locator("#table-bar")
        bar.wait_for()
        chips = bar.locator(".clock-chip")
        assert chips.count() == 2
        running = bar.locator(f'.clock-chip[data-seat="{leaver_seat}"] time.clock-time')
        assert re.fullmatch(r"(9|10):\d\d", running.inner_text()), running.inner_text()
        # Issue 40: no "Hand to a stand-in" beside a friend who is here and just thinking.
        assert bar.locator('[data-control="skip"]').count() == 0
        assert "present" in bar.locator(f'.clock-chip[data-seat="{leaver_seat}"]').inner_text()
        mybar = mine.locator("#table-bar")
        assert "for me (2 left)" in mybar.locator('[data-control="extend"]').inner_text()
        shot(theirs, "clocks.png")

        # More time: the leaver's own clock jumps by five minutes, the table is told.
        version = leaver.view(game_id)["version"]
        mybar.locator('[data-control="extend"]').click()
        wait_js(mine, f"Number(document.body.dataset.version) > {version}")
        wait_js(
            theirs,
            f"/^1[45]:/.test(document.querySelector('.clock-chip[data-seat=\"{leaver_seat}\"] time')?.textContent || '')",
        )
        mine.locator("#log-list li", has_text="takes 5 minutes more").first.wait_for()

        # Away: her orders and a stand-in play at once; the other can move.
        began = time.perf_counter()
        mybar.get_by_role("button", name="I'm away").click()
        banner = mine.locator("#standin")
        banner.wait_for()
        assert "you said you were away" in banner.inner_text()
        absent = theirs.locator("#absent")
        absent.wait_for()
        deadline = time.monotonic() + 60
        while leaver_seat in {p["seat"] for p in stayer.view(game_id)["prompts"]}:
            assert time.monotonic() < deadline, "the stand-in did not play within 60 s"
            time.sleep(0.05)
        freed = time.perf_counter() - began
        print(f"away click -> the stand-in played her decision: {freed:.2f} s")
        assert freed < 60
        assert "is away since" in absent.inner_text() and "Nobody waits" in absent.inner_text()
        theirs.locator("#log-list li", has_text="is away: their standing orders").first.wait_for()
        assert theirs.locator(".clock-chip.away").count() == 1
        shot(theirs, "away-others.png")
        shot(mine, "away-mine.png")

        # The lobby says whose move it is and the time left.
        lobby = stayer.http.get("/").text
        assert re.search(r"your move, \d+:\d\d left|you: \d+:\d\d left", lobby), lobby[-2000:]
        c2page = theirs
        c2page.goto("/")
        c2page.locator(".game-row").first.wait_for()
        shot(c2page, "lobby-clock.png")
        c2page.goto(f"/games/{game_id}")
        wait_js(c2page, "(document.body.dataset.version || '') !== ''")

        # Back: one click, and the banners go.
        version = leaver.view(game_id)["version"]
        banner.get_by_role("button", name="I'm back").click()
        wait_js(mine, f"Number(document.body.dataset.version) > {version}")
        banner.wait_for(state="hidden")
        theirs.locator("#absent").wait_for(state="hidden")
        mine.locator("#log-list li", has_text="takes the seat back").first.wait_for()

        # The table votes to pause (two people: both are needed).
        theirs.locator('#table-bar [data-control="pause"]').click()
        theirs.locator("#table-bar", has_text="1 of 2 voted to pause").wait_for()
        mine.locator("#table-bar", has_text="1 of 2 voted to pause").wait_for()
        mine.locator('#table-bar [data-control="pause"]').click()
        theirs.locator("#table-bar", has_text="Clocks paused").wait_for()
        assert theirs.locator("#table-bar time.clock-time").count() == 0  # nothing runs
        shot(theirs, "paused.png")
        assert not e1 and not e2, (e1, e2)
    finally:
        c1.close()
        c2.close()


def test_a_vote_that_carries_at_once_asks_first(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """Two people: one click on "Hand to a stand-in" would give the other's seat to a bot
    at once. It is offered only once she is gone (issue 40: she closed her page), and
    even then the page asks first; "Cancel" leaves her seat alone, "OK" hands it over."""
    game_id, people = two_people(live_server, new_player, pace="live")
    seats = by_seat(game_id, people)
    deciding = sorted({p["seat"] for p in seats[0].view(game_id)["prompts"]})[0]
    other = seats[1 - deciding]
    c2, mine, _e2 = open_page(browser, live_server, seats[deciding], game_id)
    context, page, errors = open_page(browser, live_server, other, game_id)
    asked: list[str] = []
    try:
        chip = page.locator(f'#table-bar .clock-chip[data-seat="{deciding}"]')
        chip.locator(".clock-presence.here").wait_for()
        assert not page.locator('#table-bar [data-control="skip"]').count()
        c2.close()  # she leaves: shown gone a few seconds later, and only then the button
        chip.locator(".clock-presence.gone").wait_for(timeout=45_000)
        assert "gone since" in chip.inner_text()
        answer = {"ok": False}

        def on_dialog(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept() if answer["ok"] else dialog.dismiss()

        page.on("dialog", on_dialog)
        button = page.locator(f'#table-bar [data-control="skip"][data-seat="{deciding}"]')
        button.click()
        assert asked and "to a stand-in now?" in asked[0]
        time.sleep(0.5)
        view = other.view(game_id)
        assert not view["seats"][deciding]["standin"] and not view["clock"]["votes"]
        answer["ok"] = True
        button.click()
        deadline = time.monotonic() + 15
        while not other.view(game_id)["seats"][deciding]["standin"]:
            assert time.monotonic() < deadline, "the vote did not carry"
            time.sleep(0.1)
        assert len(asked) == 2
        assert not errors, errors
    finally:
        context.close()
