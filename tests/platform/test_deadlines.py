"""Deadlines: nothing happens before a bank runs out (what happens after is in
test_absence.py); server-side bots answer after the commit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.realtime.bots import drain
from app.services import accounts, deadlines, gamelog, lobby, moves, play, starting
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game


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
        starting.start(db, game, alice)
        db.commit()
        return game.id


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
            result = moves.submit_action(
                db, gid, 1, view["legal_actions"][0], view["version"], None
            )
            db.commit()
            assert result.version == view["version"] + 1
    with factory() as db:
        sources = set(db.scalars(select(Action.source).where(Action.game_id == gid)))
        assert sources >= {"player", "bot"}
        game = db.get(Game, gid)
        assert game is not None
        state = gamelog.load_state(game, db)
        assert all(p["seat"] == 0 for p in engine.pending(state)) or game.status != "active"


def test_without_a_stand_in_the_default_is_played_and_told(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No stand-in level installed: the overdue prompt's default is played for the seat
    (logged as ``deadline``), the table is told right after its events, the version and
    the clocks move, and the seat's clock is not charged as missed by a stand-in."""
    gid = started_game(factory, [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="live")
    labels = {k: v for k, v in lobby.bot_labels().items() if k != moves.STANDIN_LEVEL}
    monkeypatch.setattr(lobby, "bot_labels", lambda: labels)
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None and game.next_deadline is not None
        version, due = game.version, game.next_deadline
        state = gamelog.load_state(game, db)
        owing = sorted({p["seat"] for p in engine.pending(state)})
        assert owing
        defaults = {p["seat"]: engine.default_action(state, p) for p in engine.pending(state)}
    changed = deadlines.run_once(factory, due + timedelta(seconds=1))
    assert [g for g, _ in changed] == [gid]
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        assert changed[0][1] == game.version > version
        played = db.scalars(
            select(Action).where(Action.game_id == gid, Action.source == "deadline")
        ).all()
        assert [(a.seat, a.action) for a in played] == [(s, defaults[s]) for s in owing]
        assert all(s.standin is None for s in game.seats)
        events = play.events_since(db, gid, None, 0)
        told = [e for e in events if e.get("kind") == "deadline"]
        assert len(told) == len(owing)
        for action, line in zip(played, told, strict=True):
            assert line["text"].startswith("Time ran out for ")
            assert line["data"] == {"seat": action.seat, "action": action.action}
            # the line follows the default's own events
            assert line["seq"] == action.last_event + 1
        # the state as written replays from the log (the same position, bit for bit)
        assert gamelog.load_state(game, db) == play.state_before(db, gid, game.last_action)
