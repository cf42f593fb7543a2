"""A decision with a single legal action is played for the person at once, in the same
transaction (logged with source ``forced``): a dead draw with no petition open is
dismissed (rules 5.4, 5.5) without waiting for a click, or for a day in a slow game."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.balance.pace import seconds_for
from app.services import gamelog, moves, play
from app.services.errors import Invalid
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action
from tests.games import two_person_game_at

DRAW = {"type": "draw"}
DISMISS = {"type": "dismiss"}
END_TURN = {"type": "end_turn"}


def position(wanted: Callable[[dict[str, Any], list[dict[str, Any]]], bool]) -> dict[str, Any]:
    """A real teaching-game position, reached by random play, where the Kushans (seat 0)
    are prompted and ``wanted(state, legal)`` holds."""
    for seed in range(60):
        state = engine.new_game("teaching", ["kushan", "han"], seed)
        rng = random.Random(seed)
        for _ in range(600):
            if engine.outcome(state) is not None:
                break
            prompt = engine.pending(state)[0]
            legal = engine.legal_actions(state, prompt["seat"])
            if prompt["seat"] == 0 and wanted(state, legal):
                return state
            state, _ = engine.apply(state, prompt["seat"], rng.choice(legal))
    pytest.skip("random play never reached the position")


def leaves_only(state: dict[str, Any], action: dict[str, Any], then: dict[str, Any]) -> bool:
    """Whether seat 0's `action` leaves seat 0 prompted with `then` as its one legal move."""
    after, _ = engine.apply(state, 0, action)
    return engine.pending(after)[0]["seat"] == 0 and engine.legal_actions(after, 0) == [then]


def dead_draw_state() -> dict[str, Any]:
    """Seat 0 may draw, and the draw leaves it nothing but a dismissal."""
    return position(
        lambda state, legal: (
            engine.pending(state)[0]["kind"] == "turn"
            and DRAW in legal
            and leaves_only(state, DRAW, DISMISS)
        )
    )


def test_forced_action_is_only_a_single_concrete_action() -> None:
    assert moves.forced_action([DISMISS]) == DISMISS
    assert moves.forced_action([DISMISS, {"type": "petition"}]) is None
    assert moves.forced_action([]) is None
    # An offer's listing is a template the person fills in (20.14): never played for them.
    assert moves.forced_action([{"type": "offer", "power": "han"}]) is None


def test_a_forced_decision_costs_no_live_time() -> None:
    assert seconds_for(DISMISS, DRAW, 1) == 0.0
    assert seconds_for(DISMISS, DRAW, 2) > 0


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def test_a_dead_draw_is_dismissed_for_the_person(factory: sessionmaker[Session]) -> None:
    state = dead_draw_state()
    gid, version, alice, _bob = two_person_game_at(factory, state)  # the position found above
    with factory() as db:
        result = moves.submit_action(db, gid, alice.id, DRAW, version, None)
        db.commit()
        # Two actions in one commit: the draw and the dismissal nobody had to click.
        assert result.version == version + 2
        logged = db.scalars(select(Action).where(Action.game_id == gid)).all()
        assert [(a.source, a.action) for a in logged][-2:] == [
            ("player", DRAW),
            ("forced", DISMISS),
        ]
        expected, _ = engine.apply(state, 0, DRAW)
        expected, _ = engine.apply(expected, 0, DISMISS)
        row, stored = gamelog.read_current(db, gid)
        assert stored is not None and engine.state_hash(stored) == engine.state_hash(expected)
        # The person sees what happened, marked as no choice of theirs, and is asked
        # what comes next, not to dismiss.
        view = play.seat_view(db, gid, alice.id)
        assert all(p["kind"] != "advisor" for p in view["prompts"])
        log = play.events_since(db, gid, 0, 0)
        assert log[-2]["kind"] == "dismiss" and not log[-2].get("forced")
        assert log[-1]["text"] == moves.FORCED_NOTE and log[-1]["forced"] is True
        assert log[-1]["to"] == [0] and log[-1]["action_seq"] == log[-2]["action_seq"]
        # The others see the dismissal as any other: that the card was of no use is the
        # drawer's secret (5.4), so nothing they are shown says the move was forced.
        theirs = play.events_since(db, gid, 1, 0)
        assert theirs[-1]["kind"] == "dismiss"
        assert not any(e.get("forced") or e["text"] == moves.FORCED_NOTE for e in theirs)
        assert not any(e.get("forced") for e in play.events_since(db, gid, None, 0))
        # A forced move is no decision of theirs to take back (the draw revealed a card).
        assert row.undo_seat is None


def test_a_decision_followed_by_a_forced_move_is_not_taken_back(
    factory: sessionmaker[Session],
) -> None:
    """Dismissing the last year's advisor when taxes and recruits are done leaves only the
    end of the turn, which the server plays at once: the dismissal can no longer be
    undone, though it revealed nothing (docs/api.md, undo)."""
    state = position(lambda st, legal: DISMISS in legal and leaves_only(st, DISMISS, END_TURN))
    gid, version, alice, _bob = two_person_game_at(factory, state)
    with factory() as db:
        result = moves.submit_action(db, gid, alice.id, DISMISS, version, None)
        db.commit()
        assert result.version == version + 2
        logged = db.scalars(select(Action).where(Action.game_id == gid)).all()
        assert [(a.source, a.action) for a in logged][-2:] == [
            ("player", DISMISS),
            ("forced", END_TURN),
        ]
        assert play.seat_view(db, gid, alice.id)["can_undo"] is False
        with pytest.raises(Invalid) as refused:
            play.undo(db, gid, alice.id, result.version)
        assert refused.value.code == "no_undo"
