"""While you were away (issue 26, item 3): on a real server, a seat's last look is kept
(seats.seen_event); coming back, the game page carries what happened since, grouped by
game turn, in plain words, public events only, with the areas that changed."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from app.services import catchup
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Event
from tests.conftest import LiveServer, Player

META = re.compile(r'<script type="application/json" id="game-meta">(.*?)</script>', re.S)


def page_meta(player: Player, gid: int) -> dict[str, Any]:
    page = player.http.get(f"/games/{gid}")
    assert page.status_code == 200, page.text
    found = META.search(page.text)
    assert found is not None
    meta: dict[str, Any] = json.loads(found.group(1))
    return meta


def play_until(gid: int, players: list[Player], done: Callable[[dict[str, Any]], bool]) -> int:
    """Both people choose at random until `done(view)`; returns the moves made."""
    rng = random.Random(5)
    for moves in range(3000):
        for player in players:
            view = player.view(gid)
            if view["status"] != "active" or done(view):
                return moves
            if view["legal_actions"]:
                r = player.act(gid, rng.choice(view["legal_actions"]), view["version"])
                assert r.status_code in (200, 409), r.text
                break
    raise AssertionError("the game did not get there")


def two_people_game(
    server: LiveServer, new_player: Callable[..., Player]
) -> tuple[int, Player, Player]:
    alice, bob = new_player(server), new_player(server)
    game = alice.create_game(
        scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}], pace="none"
    )
    gid = int(game["id"])
    assert bob.join(gid).status_code == 200
    assert alice.start(gid).status_code == 200
    return gid, alice, bob


def test_coming_back_she_is_told_what_happened_by_game_turn(
    start_server: Callable[..., LiveServer],
    db_url: str,
    new_player: Callable[..., Player],
) -> None:
    server = start_server(db_url)  # SQLite and PostgreSQL
    gid, alice, bob = two_people_game(server, new_player)
    first = page_meta(alice, gid)
    assert first.get("catchup") is None, "a first look has nothing to catch up on"
    mark = alice.view(gid)["last_seq"]

    # she leaves; the table plays on into game turn 2 (her seat too: from her phone)
    play_until(gid, [alice, bob], lambda v: v["view"]["turn"] >= 2 and v["view"]["round"] >= 1)
    last = alice.view(gid)["last_seq"]

    back = page_meta(alice, gid)["catchup"]
    assert back is not None and back["since"] == mark and back["upto"] == last
    lines = [ln for t in back["turns"] for ln in t["lines"]]
    assert lines and all(mark < ln["seq"] <= last for ln in lines)
    assert [t["turn"] for t in back["turns"]] == sorted({t["turn"] for t in back["turns"]})
    assert {1, 2} <= {t["turn"] for t in back["turns"]}, back["turns"]
    turn2 = next(t for t in back["turns"] if t["turn"] == 2)
    assert turn2["year"], "a game turn is headed with its year"
    assert all(" — rating " not in ln["text"] for ln in lines), "dice stay in the chronicle"
    assert "game turns 1 to 2" in back["summary"]

    # private lines (a hand drawn, an offer's terms) never reach the catch-up
    eng = make_engine(db_url)
    try:
        with make_sessionmaker(eng)() as db:
            rows = db.scalars(select(Event).where(Event.game_id == gid, Event.seq > mark)).all()
            private = [e.seq for e in rows if e.visible_to is not None]
    finally:
        eng.dispose()
    assert private, "the stretch had private events to leave out"
    assert not set(private) & {ln["seq"] for ln in lines}
    assert not any(ln["text"].startswith(("You draw", "Offer from")) for ln in lines)

    # the changed areas, in words, for the map
    for change in back["areas"]:
        assert change["area"] and change["what"] and isinstance(change["mine"], bool)

    # looked at: the next load has nothing new; the mark never moves back
    assert page_meta(alice, gid).get("catchup") is None
    r = alice.http.post(f"/api/games/{gid}/seen", json={"seq": 1})
    assert r.status_code == 200 and r.json()["seen"] == last
    r = alice.http.get(f"/api/games/{gid}/catchup")
    assert r.status_code == 200 and r.json()["catchup"] is None
    # bob, who never opened the page, has no mark and so no catch-up yet
    assert bob.http.get(f"/api/games/{gid}/catchup").json()["catchup"] is None


def test_plain_words_and_routine_lines() -> None:
    endeavour = {
        "kind": "endeavour",
        "text": "Han: conquest against Ba-Shu — rating 10, counter +1 (+1 drawn), final 11: "
        "conquest (one C result).",
        "data": {"kind": "conquest", "target": "ba_shu", "result": "C"},
    }
    assert catchup.plain(endeavour) == "Han's conquest against Ba-Shu: conquest (one C result)."
    sentence = {
        **endeavour,
        "text": "Han's conquest against Ba-Shu: rating 10, the counter drawn is +1, so the "
        "final rating is 11. Result: conquest (one C result).",
    }
    assert catchup.plain(sentence) == "Han's conquest against Ba-Shu: conquest (one C result)."
    check = {
        "kind": "rebellion",
        "text": "Rebellion check in Gandhara: the dice show 5 and 5, plus 2 for the area's "
        "rebellion value, 12 in all: unrest.",
        "data": {"area": "gandhara", "dice": [5, 5], "result": "unrest"},
    }
    assert catchup.plain(check) == "Rebellion check in Gandhara: unrest."
    new_raid = {
        "kind": "nomads",
        "text": "The Xianbei raid Guanzhong (Han) at rating 1; the die shows 1, so the final "
        "rating is 2: the horde rides home empty-handed.",
        "data": {"target": "guanzhong", "die": 1, "result": "none"},
    }
    assert catchup.plain(new_raid) == (
        "The Xianbei raid Guanzhong (Han): the horde rides home empty-handed."
    )
    raid = {
        "kind": "nomads",
        "text": "The Xianbei raid Guanzhong (Han): rating 1, die 1, 2: the horde rides home.",
        "data": {"target": "guanzhong", "die": 1, "result": "none"},
    }
    assert catchup.plain(raid) == "The Xianbei raid Guanzhong (Han): the horde rides home."
    assert catchup.routine(raid, set()) and not catchup.routine(raid, {"guanzhong"})
    assert catchup.routine({"kind": "draw", "text": "Han draws an advisor."}, set())
    turns = catchup.group_by_turn(
        [
            {"seq": 5, "kind": "conquest", "text": "Han conquers Ba-Shu from the independents."},
            {"seq": 6, "kind": "turn", "text": "Game turn 3 begins (100)."},
            {"seq": 7, "kind": "diplomacy", "text": "Kushan declares war on Han.", "data": {}},
            {"seq": 8, "kind": "draw", "text": "Han draws an advisor."},
        ],
        turn_now=3,
        seat=1,
        power="Han",
        my_areas=set(),
    )
    assert [(t["turn"], t["year"]) for t in turns] == [(2, None), (3, "100")]
    assert [ln["seq"] for ln in turns[1]["lines"]] == [7] and turns[1]["routine"] == 1
    war = turns[1]["lines"][0]
    assert war["mine"] and war["wars_and_pacts"]
    assert turns[0]["lines"][0]["areas"] == ["ba_shu"]
