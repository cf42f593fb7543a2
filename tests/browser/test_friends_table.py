"""A friends' table on a real server (issue 26): three people in three browsers and three
Standard bots at The Four Empires, live pace. Carol closes her tab while the table waits
for her; when her clock runs out, her standing orders and a stand-in play her seat and
Alice and Bob go on. Measured: from the moment her bank ran out to the moment the
server no longer waited for her (the deadline runner looks every 5 s), which must be
under 60 s; and the banner and chronicle lines the others see.

Her bank is spent for the test by moving her running deadline a few seconds ahead in the
database (the clock's own columns), so the test need not wait the ten real minutes;
everything after that is the server's own loop. Screenshots in test-artifacts/:
friends-before.png, friends-after.png, friends-back.png.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js
from .test_page_controls import open_page

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")

#: the answers that keep a test game simple, in order of preference
EASY = ("pass", "end_turn", "decline", "abstain", "dismiss", "reject_peace")


def easy(legal: list[dict[str, Any]]) -> dict[str, Any]:
    for kind in EASY:
        for action in legal:
            if action.get("type") == kind or action.get("move") == kind:
                return action
    return next(a for a in legal if a.get("type") != "offer")


def spend_bank(database_url: str, game_id: int, seat: int, seconds: float) -> datetime:
    """Her clock runs out `seconds` from now: the game row's deadline for her seat (and
    the next deadline the runner looks for) moved there. Returns that moment."""
    from app.store.db import make_engine, make_sessionmaker
    from app.store.models import Game

    sql = make_engine(database_url)
    try:
        with make_sessionmaker(sql)() as db:
            game = db.get(Game, game_id)
            assert game is not None
            when = datetime.now(UTC) + timedelta(seconds=seconds)
            deadlines = dict(game.deadlines)
            assert deadlines.get(str(seat)), deadlines
            deadlines[str(seat)] = when.isoformat()
            game.deadlines = deadlines
            game.next_deadline = min(datetime.fromisoformat(v) for v in deadlines.values() if v)
            db.commit()
            return when
    finally:
        sql.dispose()


def test_the_table_goes_on_within_a_minute_when_a_friend_leaves(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    alice, bob, carol = (new_player(live_server) for _ in range(3))
    bot = {"kind": "bot", "bot_level": "heuristic"}
    game = alice.create_game(
        scenario="four_empires", pace="auto", seats=[{"kind": "human"}] * 3 + [bot] * 3
    )
    gid = int(game["id"])
    assert bob.join(gid).status_code == 200 and carol.join(gid).status_code == 200
    assert alice.start(gid).status_code == 200
    assert alice.view(gid)["pace"] == "live"  # "automatic" with people: the live bank
    people = {int(p.view(gid)["seat"]): p for p in (alice, bob, carol)}
    carol_seat = int(carol.view(gid)["seat"])

    pages = [open_page(browser, live_server, p, gid) for p in (alice, bob, carol)]
    try:
        # Alice and Bob answer whatever is theirs until the table waits for Carol.
        for _ in range(200):
            view = alice.view(gid)
            waiting = {p["seat"] for p in view["prompts"]}
            if carol_seat in waiting:
                break
            moved = False
            for seat, player in people.items():
                if seat == carol_seat or seat not in waiting:
                    continue
                mine = player.view(gid)
                if mine["legal_actions"]:
                    r = player.act(gid, easy(mine["legal_actions"]), mine["version"])
                    moved = moved or r.status_code == 200
            if not moved:
                time.sleep(0.2)  # the bots answer after the commit
        else:
            pytest.fail("the table never waited for Carol")
        page = pages[0][1]
        page.locator(f'.clock-chip.running[data-seat="{carol_seat}"]').wait_for()
        page.screenshot(path=str(artifact("friends-before.png")))

        # Carol closes her tab; her bank runs out three seconds later.
        pages[2][0].close()
        ran_out = spend_bank(live_server.database_url, gid, carol_seat, 3)
        while True:
            view = alice.view(gid)
            if carol_seat not in {p["seat"] for p in view["prompts"]}:
                break
            assert datetime.now(UTC) - ran_out < timedelta(seconds=60), "the table still waits"
            time.sleep(0.1)
        freed = (datetime.now(UTC) - ran_out).total_seconds()
        print(f"Carol's bank ran out -> the table no longer waits for her: {freed:.1f} s")
        assert freed < 60
        assert view["seats"][carol_seat]["standin"] == "heuristic"
        assert view["clock"]["away"][str(carol_seat)]["why"] == "time"

        # Alice and Bob see it said, and can go on: whoever is asked next has options.
        for _context, page, _errors in pages[:2]:
            absent = page.locator("#absent")
            absent.wait_for()
            assert "their time ran out" in absent.inner_text()
            page.locator("#log-list li", has_text="Time ran out for ").first.wait_for()
        deadline = time.monotonic() + 60
        while not any(people[s].view(gid)["legal_actions"] for s in people if s != carol_seat):
            assert time.monotonic() < deadline, "nobody present was asked to move"
            time.sleep(0.2)
        pages[0][1].screenshot(path=str(artifact("friends-after.png")))

        # Carol comes back: her own page says what happened, one click gives her the seat.
        context, page, errors = open_page(browser, live_server, carol, gid)
        pages[2] = (context, page, errors)
        banner = page.locator("#standin")
        banner.wait_for()
        assert "your time ran out" in banner.inner_text()
        page.screenshot(path=str(artifact("friends-back.png")))
        version = carol.view(gid)["version"]
        banner.get_by_role("button", name="I'm back").click()
        wait_js(page, f"Number(document.body.dataset.version) > {version}")
        banner.wait_for(state="hidden")
        assert not carol.view(gid)["seats"][carol_seat]["standin"]
        for _context, _page, errs in pages:
            assert not errs, errs
    finally:
        for context, _page, _errors in pages:
            context.close()
