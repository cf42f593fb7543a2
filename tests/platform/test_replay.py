"""Replay of a finished game (app/services/replays.py, GET /api/games/{id}/replay): every
step rebuilds the position after that many actions, with nothing hidden once the game
is over, and nothing at all before."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import bots, engine
from app.realtime.bots import drain
from app.services import accounts, gamelog, lobby, moves, play, replays, starting
from app.services.errors import Conflict, Forbidden, Invalid
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def finished_game(
    factory: sessionmaker[Session], public: bool = True, name: str = "alice"
) -> tuple[int, int]:
    """Alice (playing at random through the service) against a heuristic bot, to the end
    of the teaching game. Returns (game id, Alice's user id)."""
    with factory() as db:
        alice = accounts.signup(db, name, "correct horse 1")
        game = lobby.create_game(
            db,
            alice,
            "teaching",
            [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "heuristic")],
            public=public,
        )
        starting.start(db, game, alice)
        db.commit()
        gid, uid = game.id, alice.id
    drain(factory, gid)  # the bot worker's moves, here without a server
    rng = random.Random(3)
    with factory() as db:
        for step in range(3000):
            game = db.get(Game, gid)
            assert game is not None
            db.refresh(game)
            if game.status != "active":
                break
            data = play.seat_view(db, gid, uid)
            assert data["legal_actions"], "the bot left Alice nothing to do"
            action = bots.choose_action("random", data["view"], data["legal_actions"], rng)
            moves.submit_action(db, gid, uid, action, game.version, f"k{step}")
            db.commit()
            drain(factory, gid)
        assert db.get(Game, gid).status == "finished"  # type: ignore[union-attr]
    return gid, uid


def test_each_step_is_the_position_after_that_many_actions(
    factory: sessionmaker[Session],
) -> None:
    gid, uid = finished_game(factory)
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        log = [
            (a.seat, a.action)
            for a in db.scalars(select(Action).where(Action.game_id == gid).order_by(Action.seq))
        ]
        seats = [s.power or "" for s in sorted(game.seats, key=lambda s: s.index)]
        steps = game.last_action
        assert steps == len(log) > 50
        # A visitor (no account) may replay a public game; every step is checked against
        # an independent replay of the log from the seed.
        state = engine.new_game(game.scenario, seats, game.seed or 0)
        checked = 0
        for k in range(steps + 1):
            if k:
                state, _ = engine.apply(state, *log[k - 1])
            if k % 7 and k not in (0, 1, steps):
                continue
            got = replays.replay_step(db, gid, None, k)
            assert got["replay"]["step"] == k and got["replay"]["steps"] == steps
            assert got["view"] == engine.view(state, None), k
            assert got["legal_actions"] == [] and got["can_undo"] is False
            if k:
                assert got["replay"]["action"]["action"] == log[k - 1][1]
                assert got["replay"]["action"]["seat"] == log[k - 1][0]
                assert all(e["action_seq"] == k for e in got["replay"]["new_events"])
            else:
                assert got["replay"]["action"] is None
            assert all(e["action_seq"] <= k for e in got["events"])
            # Nothing hidden any more: each seat's own view (its hand) may be chosen.
            for seat in (0, 1):
                mine = replays.replay_step(db, gid, None, k, seat)
                assert mine["view"] == engine.view(state, seat)
            checked += 1
        assert checked > 10
        assert engine.dumps(state) == engine.dumps(gamelog.load_state(game, db))
        # The private lines of the log are shown, marked as once private.
        every = replays.replay_step(db, gid, None, steps)["events"]
        assert all(e["to"] is None for e in every)


def test_no_replay_before_the_end_and_none_outside_the_game(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "heuristic")]
        )
        starting.start(db, game, alice)
        db.commit()
        with pytest.raises(Conflict) as caught:
            replays.replay_step(db, game.id, alice.id, 0)
        assert "once the game is over" in caught.value.message
    gid, _ = finished_game(factory, public=False, name="brutus")
    with factory() as db:
        outsider = accounts.signup(db, "mallory", "correct horse 1")
        db.commit()
        with pytest.raises(Forbidden):
            replays.replay_step(db, gid, outsider.id, 0)
        steps = db.get(Game, gid).last_action  # type: ignore[union-attr]
        with pytest.raises(Invalid) as bad:
            replays.replay_step(db, gid, _host(db, gid), steps + 1)
        assert bad.value.extra["field"] == "step"
        with pytest.raises(Invalid):
            replays.replay_step(db, gid, _host(db, gid), 0, seat=7)


def _host(db: Session, gid: int) -> int:
    game = db.get(Game, gid)
    assert game is not None
    return int(game.host_id)
