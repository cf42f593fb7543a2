"""The table's votes (app/services/tablevotes.py): pause and run the clocks again, and
hand an absent person's seat to a stand-in before her time runs out, each by a majority
of the people present. Three people at The Four Empires, real services on SQLite and
PostgreSQL; then the same over HTTP on a real server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.realtime.bots import drain
from app.services import (
    absence,
    clocks,
    deadlines,
    gamelog,
    moves,
    tablevotes,
)
from app.services.errors import Conflict, Invalid
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Event, Game
from tests.games import three_friends


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def load(factory: sessionmaker[Session], gid: int) -> tuple[Game, dict[str, Any]]:
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        state = gamelog.load_state(game, db)
        _ = [s.user for s in game.seats]
        db.expunge_all()
        return game, state


def said(factory: sessionmaker[Session], gid: int) -> list[str]:
    with factory() as db:
        rows = db.scalars(select(Event).where(Event.game_id == gid).order_by(Event.seq))
        return [e.payload["text"] for e in rows]


def cast(factory: sessionmaker[Session], gid: int, user: int, kind: str, **kw: Any) -> Game:
    with factory() as db:
        game = tablevotes.vote(db, gid, user, kind, **kw)
        db.commit()
        return game


def test_a_majority_pauses_the_clocks_and_a_majority_runs_them_again(
    factory: sessionmaker[Session],
) -> None:
    gid, users = three_friends(factory)
    before, state = load(factory, gid)
    running = {k: v for k, v in before.deadlines.items() if v}
    assert running, "nobody's clock runs at the start"
    cast(factory, gid, users[0], "pause")
    game, _ = load(factory, gid)
    assert not clocks.paused(game) and game.deadlines == before.deadlines  # 1 of 2
    assert said(factory, gid)[-1].endswith("votes to pause the clocks (1 of the 2 needed).")
    t_pause = datetime.fromisoformat(min(running.values())) - timedelta(seconds=200)
    with factory() as db:
        tablevotes.vote(db, gid, users[1], "pause", now=t_pause)
        db.commit()
    game, _ = load(factory, gid)
    assert clocks.paused(game) and game.next_deadline is None
    assert set(game.deadlines) == set(before.deadlines) and set(game.deadlines.values()) == {None}
    banks = {k: game.clocks["bank"][k] for k in running}
    assert all(b == pytest.approx(200, abs=1) for b in banks.values()), banks
    assert "The table pauses the clocks" in said(factory, gid)[-1]
    # Hours pass: nobody runs out of time, no bank moves.
    later = t_pause + timedelta(hours=3)
    assert deadlines.run_once(factory, later) == []
    game, _ = load(factory, gid)
    assert {k: clocks.bank_of(game, int(k), later) for k in running} == banks
    with factory() as db, pytest.raises(Conflict):
        tablevotes.vote(db, gid, users[2], "pause")
    # Running them again takes a majority too; each clock restarts from its bank.
    cast(factory, gid, users[2], "resume")
    game, _ = load(factory, gid)
    assert clocks.paused(game)
    with factory() as db:
        tablevotes.vote(db, gid, users[0], "resume", now=later)
        db.commit()
    game, _ = load(factory, gid)
    assert not clocks.paused(game) and said(factory, gid)[-1] == "The clocks run again."
    for key, bank in banks.items():
        assert game.deadlines[key] == (later + timedelta(seconds=bank)).isoformat()


def test_the_people_present_hand_a_slow_seat_to_a_stand_in(
    factory: sessionmaker[Session],
) -> None:
    gid, users = three_friends(factory)
    game, state = load(factory, gid)
    waited_on = min(p["seat"] for p in engine.pending(state) if p["seat"] in users)
    others = [s for s in users if s != waited_on]
    with factory() as db, pytest.raises(Invalid):
        tablevotes.vote(db, gid, users[waited_on], "skip", seat_index=waited_on)
    # Issue 40: never beside a friend who is just thinking; once she has been deciding
    # for longer than the table's patience, the table may hand her seat over.
    with factory() as db, pytest.raises(Conflict) as refused:
        tablevotes.vote(db, gid, users[others[0]], "skip", seat_index=waited_on)
    assert refused.value.code == "not_absent"
    slow = datetime.now().astimezone() + timedelta(seconds=clocks.hand_over_after() + 1)
    cast(factory, gid, users[others[0]], "skip", seat_index=waited_on, now=slow)
    game, _ = load(factory, gid)
    assert not next(s for s in game.seats if s.index == waited_on).standin  # 1 of 2
    assert game.clocks["votes"] == {f"skip:{waited_on}": [others[0]]}
    # A withdrawn vote is gone; cast again, and the second present person carries it.
    cast(factory, gid, users[others[0]], "skip", seat_index=waited_on, yes=False, now=slow)
    assert load(factory, gid)[0].clocks["votes"] == {}
    cast(factory, gid, users[others[0]], "skip", seat_index=waited_on, now=slow)
    cast(factory, gid, users[others[1]], "skip", seat_index=waited_on, now=slow)
    drain(factory, gid)
    game, state = load(factory, gid)
    seat = next(s for s in game.seats if s.index == waited_on)
    assert seat.standin == moves.STANDIN_LEVEL and seat.missed == 0
    assert game.clocks["away"][str(waited_on)]["why"] == "vote"
    assert game.clocks["votes"] == {}
    assert waited_on not in {p["seat"] for p in engine.pending(state)}
    assert any(t.startswith("The table voted to hand the seat of ") for t in said(factory, gid))
    # She is back: the seat is hers again.
    with factory() as db:
        absence.come_back(db, gid, users[waited_on])
        db.commit()
    assert next(s for s in load(factory, gid)[0].seats if s.index == waited_on).standin is None


def test_an_absent_person_has_no_vote_and_a_majority_counts_the_present(
    factory: sessionmaker[Session],
) -> None:
    gid, users = three_friends(factory)
    with factory() as db:
        absence.go_away(db, gid, users[2])
        db.commit()
    drain(factory, gid)
    with factory() as db, pytest.raises(Conflict):
        tablevotes.vote(db, gid, users[2], "pause")
    # Two present: both are needed to pause.
    cast(factory, gid, users[0], "pause")
    assert not clocks.paused(load(factory, gid)[0])
    cast(factory, gid, users[1], "pause")
    assert clocks.paused(load(factory, gid)[0])


def test_votes_over_http(live_server: Any, new_player: Any) -> None:
    alice, bob = new_player(live_server), new_player(live_server)
    game = alice.create_game(
        scenario="teaching", pace="live", seats=[{"kind": "human"}, {"kind": "human"}]
    )
    gid = int(game["id"])
    assert bob.join(gid).status_code == 200
    assert alice.start(gid).status_code == 200
    r = alice.http.post(f"/api/games/{gid}/votes", json={"kind": "pause"})
    assert r.status_code == 200, r.text
    assert r.json()["clock"]["votes"] == {"pause": [0]}
    assert alice.view(gid)["clock"]["votes"] == {"pause": [0]}
    r = bob.http.post(f"/api/games/{gid}/votes", json={"kind": "pause"})
    assert r.status_code == 200 and r.json()["clock"]["paused"]
    bad = alice.http.post(f"/api/games/{gid}/votes", json={"kind": "coup"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "kind"]
    stranger = new_player(live_server)
    assert stranger.http.post(f"/api/games/{gid}/votes", json={"kind": "resume"}).status_code == 403
    # The clock's own buttons: more time, away, back.
    r = alice.http.post(f"/api/games/{gid}/extend")
    assert r.status_code == 200, r.text
    r = bob.http.post(f"/api/games/{gid}/away")
    assert r.status_code == 200 and bob.view(gid)["seats"][1]["standin"]
    assert bob.http.post(f"/api/games/{gid}/reclaim").status_code == 200
    assert not bob.view(gid)["seats"][1]["standin"]
