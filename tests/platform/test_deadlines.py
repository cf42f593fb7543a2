"""Deadlines: an overdue decision gets the engine's default; after repeated misses a
bot stands in until the player reclaims the seat. Server-side bots answer at once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.realtime.bots import drain
from app.services import accounts, deadlines, gamelog, lobby, play
from app.services.errors import Invalid
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game
from app.store.types import utcnow


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def started_game(
    factory: sessionmaker[Session], seats: list[lobby.SeatSpec], pace: str = "24h"
) -> int:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        game = lobby.create_game(db, alice, "teaching", seats, pace=pace)
        if any(s.user_id is None and not s.bot_level for s in game.seats):
            lobby.join(db, game, bob)
        lobby.start(db, game, alice)
        db.commit()
        return game.id


def test_overdue_decisions_get_the_default_then_a_stand_in(factory: sessionmaker[Session]) -> None:
    gid = started_game(factory, [lobby.SeatSpec("human"), lobby.SeatSpec("human")])
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None and game.deadlines and game.next_deadline is not None
        deadline = game.next_deadline
        assert timedelta(hours=23) < deadline - utcnow() <= timedelta(hours=24)
        assert deadlines.due_games(db, utcnow()) == []
    now: datetime = deadline + timedelta(seconds=1)
    published: list[tuple[int, int]] = []
    for _ in range(40):
        changed = deadlines.run_once(factory, now, lambda g, v: published.append((g, v)))
        if not changed:
            break
        now += timedelta(days=2)
        with factory() as db:
            game = db.get(Game, gid)
            assert game is not None
            if any(s.standin for s in game.seats) or game.status != "active":
                break
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        sources = list(db.scalars(select(Action.source).where(Action.game_id == gid)))
        assert "deadline" in sources
        assert published and published[-1][0] == gid
        stood_in = [s for s in game.seats if s.standin]
        assert game.status == "active"
        assert stood_in, "three missed deadlines in a row and no stand-in"
        assert stood_in[0].missed >= play.MISSES_BEFORE_STANDIN
        # While a bot stands in, the seat owes nothing and has no deadline.
        assert str(stood_in[0].index) not in game.deadlines
        user_id = stood_in[0].user_id
        assert user_id is not None
        with pytest.raises(Invalid) as caught:
            play.submit_action(db, gid, user_id, {"type": "end_turn"}, game.version, None)
        assert caught.value.code == "standin"
        db.rollback()
        play.reclaim(db, gid, user_id)
        db.commit()
        db.expire_all()
        seat = next(s for s in db.get(Game, gid).seats if s.user_id == user_id)  # type: ignore[union-attr]
        assert seat.standin is None and seat.missed == 0


def test_a_deadline_not_yet_passed_changes_nothing(factory: sessionmaker[Session]) -> None:
    gid = started_game(factory, [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="live")
    with factory() as db:
        before = db.get(Game, gid)
        assert before is not None
        version, deadline = before.version, before.next_deadline
    assert deadline is not None
    assert deadlines.run_once(factory, deadline - timedelta(seconds=1)) == []
    with factory() as db:
        assert db.get(Game, gid).version == version  # type: ignore[union-attr]


def test_bots_answer_after_the_commit(factory: sessionmaker[Session]) -> None:
    """The person's submit does not wait for the bot; the worker's step answers it."""
    gid = started_game(factory, [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "random")])
    for _ in range(10):
        drain(factory, gid)
        with factory() as db:
            view: dict[str, Any] = play.seat_view(db, gid, 1)
            if view["status"] != "active":
                break
            # Only the person is ever left owing a decision: the bot has answered.
            assert {p["seat"] for p in view["prompts"]} <= {0}
            if not view["legal_actions"]:
                break
            result = play.submit_action(db, gid, 1, view["legal_actions"][0], view["version"], None)
            db.commit()
            assert result.version == view["version"] + 1
    with factory() as db:
        sources = set(db.scalars(select(Action.source).where(Action.game_id == gid)))
        assert sources >= {"player", "bot"}
        game = db.get(Game, gid)
        assert game is not None
        state = gamelog.load_state(game, db)
        assert all(p["seat"] == 0 for p in engine.pending(state)) or game.status != "active"
