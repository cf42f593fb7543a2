"""Undo: a decision can be taken back while it revealed nothing (no draw, no counter,
no random number, no private line) and nobody else has been asked since."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.services import gamelog, moves, play
from app.services.errors import Invalid
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Event, Game
from tests.games import two_person_game


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def test_a_draw_reveals_hidden_things() -> None:
    for seed in range(40):
        state = engine.new_game("teaching", ["kushan", "han"], seed)
        rng = random.Random(seed)
        for _ in range(200):
            prompt = engine.pending(state)[0]
            legal = engine.legal_actions(state, prompt["seat"])
            if {"type": "draw"} in legal:
                after, _ = engine.apply(state, prompt["seat"], {"type": "draw"})
                assert moves.hidden_parts(after) != moves.hidden_parts(state)
                return
            state, _ = engine.apply(state, prompt["seat"], rng.choice(legal))
    pytest.fail("no draw reached")


def test_undo_during_play(factory: sessionmaker[Session]) -> None:
    """Two people play at random; each decision is tried for undo: it succeeds exactly
    when nothing hidden changed and nobody else was prompted, and restores the state."""
    gid, users = two_person_game(factory)
    rng = random.Random(7)
    undone = refused = 0
    for step in range(80):
        with factory() as db:
            game = db.get(Game, gid)
            assert game is not None
            if game.status != "active":
                break
            before = gamelog.load_state(game, db)
            seat = engine.pending(before)[0]["seat"]
            user = users[seat]
            assert user is not None
            legal = engine.legal_actions(before, seat)
            undoable = [a for a in legal if a["type"] in ("tax", "remove_tie", "dismiss")]
            action = rng.choice(undoable) if undoable and step % 2 else rng.choice(legal)
            version = game.version
            result = moves.submit_action(db, gid, user, action, version, f"k{step}")
            db.commit()
            if result.status != "active":
                break
            db.expire_all()
            after = gamelog.load_state(db.get(Game, gid), db)  # type: ignore[arg-type]
            expected = (
                moves.hidden_parts(after) == moves.hidden_parts(before)
                and not any(e.get("to") is not None for e in result.events)
                and {p["seat"] for p in engine.pending(after)} == {seat}
                # nothing was played after it in the same commit (a move that was no
                # choice, app/services/play.py forced_action): that is no decision to undo
                and result.version == version + 1
            )
            # The seat's view says ahead whether the undo will be taken (the page shows
            # the button only then); nobody else is offered it.
            for other_seat, other_user in users.items():
                payload = play.seat_view(db, gid, other_user)
                assert payload["can_undo"] is (expected and other_seat == seat), step
            try:
                play.undo(db, gid, user, result.version)
            except Invalid as exc:
                db.rollback()
                assert not expected, exc.message
                refused += 1
                continue
            db.commit()
            assert expected
            assert db.get(Game, gid).state == engine.dumps(before)  # type: ignore[union-attr]
            undone += 1
            # Then play on with another choice so the game advances.
            game = db.get(Game, gid)
            assert game is not None
            others = [a for a in legal if a != action] or legal
            moves.submit_action(db, gid, user, rng.choice(others), game.version, f"r{step}")
            db.commit()
    assert undone >= 3 and refused >= 3, (undone, refused)
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        actions = db.scalars(select(Action).where(Action.game_id == gid).order_by(Action.seq)).all()
        assert [a.seq for a in actions] == list(range(1, len(actions) + 1))
        seats = [s.power or "" for s in game.seats]
        replayed = engine.replay(
            game.scenario, seats, game.seed or 0, [(a.seat, a.action) for a in actions]
        )
        assert engine.dumps(replayed) == engine.dumps(gamelog.load_state(game, db))
        texts = [e.payload["text"] for e in db.scalars(select(Event).where(Event.game_id == gid))]
        assert sum(t.endswith("takes back their last decision.") for t in texts) == undone
