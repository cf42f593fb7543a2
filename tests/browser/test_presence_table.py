"""Nobody waits for a closed tab (issue 40, "Done when"): three people in three browser
contexts and three Standard bots play The Four Empires on a real server at the DEFAULT
live pace (a 10-minute bank: her time cannot run out while the test watches). One of
them closes her tab while she owes a decision, and nobody votes. The server knows she
is gone (app/services/presence.py): the others' clock bars say "gone since hh:mm", and a
minute later her standing orders and a stand-in play her seat, announced in their pages,
so the two present can move again within 75 s of her leaving. She reopens the game and
her seat is hers at once: she plays it, and the game goes on to its end with no page
error.

It prints the figures the issue asks for: the longest stretch in which no present person
could move, and the time from her tab closing to the stand-in's first move. Screenshots
(SCREENSHOT_DIR, default /tmp): presence-gone-desktop.png, presence-gone-phone.png (the
clock bar with a gone seat), presence-standin.png, presence-back.png, presence-end.png.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import LiveServer

from .chromium import BROWSER_MARKS, wait_js
from .test_friends_table import SHOTS, Friends, seat_the_table, three_friends

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")

#: the issue's bound: the two present move again within 75 s of her leaving
BOUND_S = 75.0


def test_a_closed_tab_never_stalls_a_live_table(
    browser: Any, start_server: Callable[..., LiveServer], sqlite_url: str
) -> None:
    expect = playwright_api.expect
    server = start_server(sqlite_url)  # the default live pace: 10 minutes + 30 s
    suffix, people = three_friends(browser, server.url)
    alice, bob, carol = people
    try:
        game_id = seat_the_table(people)
        alice.page.click("form[action$='/start'] button[type=submit]")
        alice.page.wait_for_url(re.compile(rf"/games/{game_id}$"))

        friends = Friends(people, game_id)
        for person in people:
            friends.open(person)
        carol_seat = (friends.state(carol) or {})["seat"]
        # Everyone is here: no "gone", and no "Hand to a stand-in" beside a friend.
        chip = alice.page.locator(f'#table-bar .clock-chip[data-seat="{carol_seat}"]')
        expect(chip.locator(".clock-presence.here")).to_be_visible()

        # Play until Carol owes a decision; then she closes her tab instead.
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "Carol was never asked anything"
            s = friends.state(carol)
            if s and s["legal"]:
                break
            if friends.step(skip=lambda p, _s: p is carol) == "waiting":
                time.sleep(0.05)
        assert not alice.page.locator('#table-bar [data-control="skip"]').count()
        left_at = time.monotonic()
        carol.page.close()
        friends.present = [alice, bob]
        friends.watching_idle = True
        friends.idle_since = time.monotonic()

        # The others see her gone, then her stand-in announced; nobody votes.
        gone_seen = None
        standin_at = None
        first_move_at = None
        standin_line = re.compile(rf"carol{suffix} \(.*\) left the table")
        while standin_at is None or first_move_at is None:
            assert time.monotonic() - left_at < 120, "no stand-in played in 2 minutes"
            if friends.step() == "waiting":
                time.sleep(0.05)
            if gone_seen is None and chip.locator(".clock-presence.gone").count():
                gone_seen = time.monotonic()
                alice.page.locator("#table-bar").screenshot(
                    path=str(SHOTS / "presence-gone-desktop.png")
                )
                bob.page.set_viewport_size({"width": 375, "height": 800})
                bob.page.locator("#table-bar").scroll_into_view_if_needed()
                bob.page.screenshot(path=str(SHOTS / "presence-gone-phone.png"))
                bob.page.set_viewport_size({"width": 1400, "height": 900})
            log = alice.page.locator("#log-list li", has_text=standin_line)
            if standin_at is None and log.count() and bob.page.locator("#absent").is_visible():
                standin_at = time.monotonic()
            if standin_at is not None and first_move_at is None:
                # The stand-in's first move: her seat no longer owes what she left owing.
                view = alice.page.request.get(f"/api/games/{game_id}/view").json()
                if not any(p["seat"] == carol_seat for p in view["prompts"]):
                    first_move_at = time.monotonic()
        assert gone_seen is not None and gone_seen - left_at < 30, "gone was never shown"
        absent = bob.page.locator("#absent")
        assert "Nobody waits" in absent.inner_text() and "left the table" in absent.inner_text()
        bob.page.screenshot(path=str(SHOTS / "presence-standin.png"))

        # She reopens the game: the seat is hers at once, and she plays it.
        friends.watching_idle = False
        carol.page = carol.context.new_page()
        carol.page.on("pageerror", lambda e: carol.errors.append(str(e)))
        carol.page.set_default_timeout(15000)
        friends.open(carol)
        wait_js(
            carol.page,
            "(() => { const s = window.imperialGlory.state;"
            " const me = s.seats.find((x) => x.index === s.seat);"
            " return !me.standin; })()",
        )
        alice.page.locator(
            "#log-list li", has_text=re.compile(rf"carol{suffix} \(.*\) takes the seat back")
        ).first.wait_for()
        expect(chip.locator(".clock-presence.here")).to_be_visible()
        carol.page.screenshot(path=str(SHOTS / "presence-back.png"))
        friends.present = people
        friends.watching_idle = True
        friends.idle_since = time.monotonic()
        # She plays her own seat: the next decision asked of her is hers to click.
        deadline = time.monotonic() + 120
        carol_played = False
        while not carol_played:
            assert time.monotonic() < deadline, "Carol was never asked again"
            mine = friends.state(carol) or {}
            if mine.get("status") != "active":
                break  # the game ended first: nothing was hers to play
            if mine.get("legal"):
                before = friends.decisions
                friends.present = [carol]
                friends.step()
                friends.present = people
                carol_played = friends.decisions > before
                continue
            if friends.step(skip=lambda p, _s: p is carol) == "waiting":
                time.sleep(0.05)
        deadline = time.monotonic() + 300
        while friends.step() != "over":
            assert time.monotonic() < deadline, "the game did not end in 5 minutes"
            time.sleep(0.05)
        for person in people:
            person.page.locator(".outcome.result").wait_for(timeout=30_000)
        carol.page.screenshot(path=str(SHOTS / "presence-end.png"))

        print(
            f"\npresence: the stand-in was announced {standin_at - left_at:.1f} s after her tab"
            f" closed, its first move {first_move_at - left_at:.1f} s after; gone shown after"
            f" {gone_seen - left_at:.1f} s; longest stretch in which no present person could"
            f" move: {friends.longest_idle:.1f} s"
        )
        assert first_move_at - left_at < BOUND_S, first_move_at - left_at
        assert friends.longest_idle < BOUND_S, friends.longest_idle
        assert carol_played, "she never played her seat after coming back"
        errors = [e for p in people for e in p.errors]
        assert not errors, errors
    finally:
        for person in people:
            person.context.close()
