"""The absent never stall the table (issue 26): when a person's time runs out or she says
she is away, her standing orders and then a Standard stand-in play her seat at once, the
table is told, and she takes the seat back by acting or by "I'm back". Real services on
SQLite and PostgreSQL; the bot worker's own step (``drain``) plays the stand-in."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.realtime.bots import drain
from app.services import absence, clocks, deadlines, gamelog, moves, play
from app.services.errors import Conflict
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Event, Game
from tests.games import two_person_game, two_person_game_at


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


def pending(state: dict[str, Any]) -> set[int]:
    return {p["seat"] for p in engine.pending(state)}


def chronicle(factory: sessionmaker[Session], gid: int) -> list[dict[str, Any]]:
    with factory() as db:
        rows = db.scalars(select(Event).where(Event.game_id == gid).order_by(Event.seq))
        return [e.payload for e in rows]


def sources(factory: sessionmaker[Session], gid: int, seat: int) -> list[str]:
    with factory() as db:
        query = select(Action.source).where(Action.game_id == gid, Action.seat == seat)
        return list(db.scalars(query.order_by(Action.seq)))


def simultaneous_vote_state() -> dict[str, Any]:
    """A real teaching position, reached by random play, where both seats vote at once."""
    for seed in range(40):
        state = engine.new_game("teaching", ["kushan", "han"], seed)
        rng = random.Random(seed)
        for _ in range(600):
            if engine.outcome(state) is not None:
                break
            prompts = engine.pending(state)
            if len(prompts) == 2 and all(p["kind"] == "vote" for p in prompts):
                return state
            seat = prompts[0]["seat"]
            state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    pytest.skip("random play reached no simultaneous vote")


def test_out_of_time_her_seat_is_played_at_once_and_the_table_told(
    factory: sessionmaker[Session],
) -> None:
    gid, users = two_person_game(factory)
    game, state = load(factory, gid)
    late = min(pending(state))
    deadline = datetime.fromisoformat(game.deadlines[str(late)] or "")
    assert deadlines.run_once(factory, deadline - timedelta(seconds=1)) == []
    published: list[tuple[int, int]] = []
    began = time.perf_counter()
    changed = deadlines.run_once(
        factory, deadline + timedelta(seconds=1), lambda g, v: published.append((g, v))
    )
    drain(factory, gid)  # the bot worker's step: the stand-in answers
    game, state = load(factory, gid)
    took = time.perf_counter() - began
    assert changed and changed == published and changed[0][0] == gid
    seat = next(s for s in game.seats if s.index == late)
    assert seat.standin == moves.STANDIN_LEVEL and seat.missed == 1
    assert (game.clocks or {})["away"][str(late)]["why"] == "time"
    # Nobody waits for her: no prompt of hers is left, she owes no deadline.
    assert late not in pending(state) or game.status != "active"
    assert str(late) not in (game.deadlines or {})
    assert "standin" in sources(factory, gid, late)
    line = next(p for p in chronicle(factory, gid) if p.get("kind") == "standin")
    assert line["text"].startswith("Time ran out for ") and "standing orders" in line["text"]
    # The other person can move now: measured from the runner to her own free hands.
    other = 1 - late
    assert other in pending(state) or game.status != "active"
    assert took < 10, took
    # Her own view: no options while the stand-in plays, the clock says why.
    with factory() as db:
        mine = play.seat_view(db, gid, users[late])
    assert mine["legal_actions"] == [] and mine["seats"][late]["standin"]
    assert mine["clock"]["away"][str(late)]["why"] == "time"


def test_away_button_plays_her_seat_at_once_and_back_returns_it(
    factory: sessionmaker[Session],
) -> None:
    gid, users = two_person_game(factory)
    game, state = load(factory, gid)
    leaver = min(pending(state))
    with factory() as db:
        away = absence.go_away(db, gid, users[leaver])
        db.commit()
        assert away.version == game.version + 1
    drain(factory, gid)
    game, state = load(factory, gid)
    assert leaver not in pending(state) or game.status != "active"
    assert "standin" in sources(factory, gid, leaver) or "order" in sources(factory, gid, leaver)
    said = [p["text"] for p in chronicle(factory, gid) if p.get("kind") == "standin"]
    assert (
        said and said[-1].startswith(f"{users_name(game, leaver)} (") and " is away: " in said[-1]
    ), (said, leaver, users_name(game, leaver))
    with factory() as db, pytest.raises(Conflict):
        absence.go_away(db, gid, users[leaver])
    # Back: the seat is hers again, with at least the comeback time in her bank.
    with factory() as db:
        absence.come_back(db, gid, users[leaver])
        db.commit()
    game, state = load(factory, gid)
    seat = next(s for s in game.seats if s.index == leaver)
    assert seat.standin is None and str(leaver) not in game.clocks["away"]
    tc = clocks.control(game.pace)
    assert tc is not None
    assert clocks.bank_of(game, leaver, datetime.now().astimezone()) >= tc.comeback - 1  # type: ignore[operator]
    last = chronicle(factory, gid)[-1]
    assert last["kind"] == "standin_end" and "takes the seat back" in last["text"]
    with factory() as db, pytest.raises(Conflict):
        absence.come_back(db, gid, users[leaver])


def users_name(game: Game, seat: int) -> str:
    found = next(s for s in game.seats if s.index == seat)
    assert found.user is not None
    return found.user.username


def test_a_move_of_hers_takes_the_seat_back(factory: sessionmaker[Session]) -> None:
    """She marked herself away, but a move of hers arrives before the stand-in played
    (a page that still showed her options, another tab): the move is hers, the seat too."""
    gid, users = two_person_game(factory)
    game, state = load(factory, gid)
    seat = min(pending(state))
    with factory() as db:
        absence.go_away(db, gid, users[seat])
        db.commit()
    game, state = load(factory, gid)
    if seat not in pending(state):
        pytest.skip("her standing orders answered the prompt already")
    action = engine.legal_actions(state, seat)[0]
    with factory() as db:
        result = moves.submit_action(db, gid, users[seat], action, game.version, None)
        db.commit()
    game, state = load(factory, gid)
    assert result.version > game.version - 1
    assert next(s for s in game.seats if s.index == seat).standin is None
    assert sources(factory, gid, seat)[-1] in ("player", "forced", "order")
    assert "player" in sources(factory, gid, seat)
    kinds = [p.get("kind") for p in chronicle(factory, gid)]
    assert kinds.count("standin") == 1 and kinds.count("standin_end") == 1


def test_a_simultaneous_vote_waits_for_nobody_away(factory: sessionmaker[Session]) -> None:
    """Both seats vote at once. Alice's standing order answers hers the moment she gives
    it; Bob says he is away, and his stand-in votes for him: the vote is over with no
    person's click."""
    gid, _version, alice, bob = two_person_game_at(factory, simultaneous_vote_state())
    with factory() as db:
        absence.set_orders(db, gid, alice.id, {"vote": "abstain"})
        db.commit()
    game, state = load(factory, gid)
    assert 0 not in {p["seat"] for p in engine.pending(state) if p["kind"] == "vote"}
    assert sources(factory, gid, 0)[:1] == ["order"]
    with factory() as db:
        absence.go_away(db, gid, bob.id)
        db.commit()
    drain(factory, gid)
    game, state = load(factory, gid)
    assert not [p for p in engine.pending(state) if p["kind"] == "vote" and p["seat"] == 1]
    assert "standin" in sources(factory, gid, 1)
