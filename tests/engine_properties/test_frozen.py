"""Frozen states (`engine.freeze`, docs/engine-contract.md, "Frozen states"): a state
its holder never changes again gets the engine's memo, so what is worked out about a
position (legal actions, lasting effects, owned areas) is computed once and shared.

Seeded random games in every scenario: at every step the position is frozen and every
seat's legal actions, the public and seat views and the scores are compared with those
of an unfrozen copy, asked twice (the second time from the memo). The game is moved
on with the copying `apply`, so the frozen positions stay as they were, and at the end
every one of them still hashes as it did when it was frozen.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app import engine
from app.engine import memo

from .catalogue import scenarios, seats_of

SCENARIO_IDS = sorted(scenarios())
ACTIONS = 150


def _copy(state: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = engine.loads(engine.dumps(state))
    return out


@pytest.mark.parametrize("scenario", SCENARIO_IDS)
def test_a_frozen_position_answers_as_an_unfrozen_copy(scenario: str) -> None:
    rng = random.Random(f"frozen-{scenario}")
    state = engine.new_game(scenario, seats_of(scenario), seed=rng.randrange(2**31))
    frozen: list[tuple[dict[str, Any], str]] = []
    try:
        for _ in range(ACTIONS):
            if engine.outcome(state) is not None:
                break
            engine.freeze(state)
            frozen.append((state, engine.state_hash(state)))
            plain = _copy(state)
            for seat in range(len(state["players"])):
                fresh = engine.legal_actions(plain, seat)
                assert engine.legal_actions(state, seat) == fresh
                assert engine.legal_actions(state, seat) == fresh  # from the memo
                assert engine.view(state, seat) == engine.view(plain, seat)
            assert engine.view(state, None) == engine.view(plain, None)
            assert engine.score(state) == engine.score(plain)
            seat = engine.pending(state)[0]["seat"]
            action = rng.choice(engine.legal_actions(state, seat))
            moved, events = engine.apply(state, seat, action)
            again, events_plain = engine.apply(plain, seat, action)
            assert engine.state_hash(moved) == engine.state_hash(again)
            assert events == events_plain
            state = moved
        for position, digest in frozen:
            assert engine.state_hash(position) == digest  # apply never moved them
    finally:
        for position, _ in frozen:
            engine.thaw(position)


def test_the_memo_is_used_and_thaw_drops_it() -> None:
    scenario = SCENARIO_IDS[0]
    state = engine.new_game(scenario, seats_of(scenario), seed=3)
    seat = engine.pending(state)[0]["seat"]
    assert memo.tracked(state) is None
    engine.freeze(state)
    try:
        first = engine.legal_actions(state, seat)
        second = engine.legal_actions(state, seat)
        assert first == second and first is not second  # each caller gets its own list
        assert all(a is b for a, b in zip(first, second, strict=True))  # of the same dicts
    finally:
        engine.thaw(state)
    assert memo.tracked(state) is None
    third = engine.legal_actions(state, seat)
    assert third == first and not any(a is b for a, b in zip(first, third, strict=True))


def test_moving_a_frozen_state_in_place_thaws_it_first() -> None:
    scenario = SCENARIO_IDS[0]
    state = engine.new_game(scenario, seats_of(scenario), seed=4)
    seat = engine.pending(state)[0]["seat"]
    engine.freeze(state)
    before = engine.legal_actions(state, seat)
    count = memo.frozen_count()
    engine.apply_in_place(state, seat, before[0], undoable=False)
    try:
        assert memo.frozen_count() == count - 1
        plain = _copy(state)
        for other in range(len(state["players"])):
            assert engine.legal_actions(state, other) == engine.legal_actions(plain, other)
    finally:
        memo.forget(state)
