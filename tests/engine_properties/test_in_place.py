"""The in-place path (`apply_in_place`, `undo`, `clone`) against the copying `apply`
(docs/engine-contract.md, "In place").

Seeded random games in every scenario are played twice side by side: one state
moved by `apply` (a new state per action), one `clone` moved by
`apply_in_place`. At every step the two have the same `state_hash`, are equal
as dicts, list the same legal actions (the in-place one from the engine's memo)
and give the same events and the same `explain`. On a share of the steps the
in-place state also goes down a side line of one to four random moves and comes
back with `undo`, last token first: it must be exactly the state it was
(same hash, same dict, same key order) and list the same legal actions again.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app import engine
from app.engine import memo
from app.engine.errors import EngineError, IllegalAction

from .catalogue import scenarios, seats_of, teaching

SCENARIO_IDS = sorted(scenarios())
# Games per scenario and actions per game: about 4,000 actions in all, a
# fifth of them followed by a side line taken back by undo. The two states are
# compared as dicts at every step and by `state_hash` (which also tells True
# from 1) every HASH_EVERY steps and at the end of each game.
GAMES = 2
SHORT_GAMES = 10  # the teaching game ends in about a hundred random actions
ACTIONS = 500
SIDE_LINE_RATE = 0.2
HASH_EVERY = 10


def _snapshot(state: dict[str, Any]) -> tuple[str, list[str]]:
    return engine.state_hash(state), list(state)


def _side_line(live: dict[str, Any], rng: random.Random) -> None:
    """A few random moves in place, then every one taken back, last first."""
    before_hash, before_keys = _snapshot(live)
    prompts = engine.pending(live)
    listed = {p["seat"]: engine.legal_actions(live, p["seat"]) for p in prompts}
    tokens = []
    for _ in range(rng.randint(1, 4)):
        prompts = engine.pending(live)
        if not prompts or engine.outcome(live) is not None:
            break
        seat = prompts[0]["seat"]
        token, _ = engine.apply_in_place(live, seat, rng.choice(engine.legal_actions(live, seat)))
        assert token is not None
        tokens.append(token)
    for token in reversed(tokens):
        engine.undo(live, token)
    assert _snapshot(live) == (before_hash, before_keys)
    for seat, legal in listed.items():
        assert engine.legal_actions(live, seat) == legal


def _explained_alike(
    live: dict[str, Any], ref: dict[str, Any], seat: int, legal: list[Any]
) -> None:
    for action in legal[:: max(1, len(legal) // 6)]:
        try:
            expected = engine.explain(ref, seat, dict(action))
        except IllegalAction:
            with pytest.raises(IllegalAction):
                engine.explain(live, seat, action)
            continue
        assert engine.explain(live, seat, action) == expected


@pytest.mark.parametrize("scenario", SCENARIO_IDS)
def test_in_place_and_undo_match_the_copying_apply(scenario: str) -> None:
    seats = seats_of(scenario)
    steps = 0
    games = SHORT_GAMES if scenario == teaching() else GAMES
    for game in range(games):
        seed = 7_000 + 31 * game + len(scenario)
        rng = random.Random(seed)
        ref = engine.new_game(scenario, seats, seed)
        live = engine.clone(ref)
        assert live == ref and live is not ref
        for _ in range(ACTIONS):
            if engine.outcome(ref) is not None:
                assert engine.outcome(live) == engine.outcome(ref)
                break
            if rng.random() < SIDE_LINE_RATE:
                _side_line(live, rng)
            seat = engine.pending(ref)[0]["seat"]
            legal = engine.legal_actions(ref, seat)
            assert engine.legal_actions(live, seat) == legal
            if rng.random() < 0.1:
                _explained_alike(live, ref, seat, engine.legal_actions(live, seat))
            action = rng.choice(legal)
            ref, events = engine.apply(ref, seat, action)
            token, live_events = engine.apply_in_place(
                live, seat, action, undoable=rng.random() < 0.5
            )
            assert live_events == events
            assert live == ref
            steps += 1
            if steps % HASH_EVERY == 0:
                assert engine.state_hash(live) == engine.state_hash(ref)
        assert engine.state_hash(live) == engine.state_hash(ref)
    assert steps >= GAMES * 50


def test_a_long_undo_chain_goes_back_to_the_opening() -> None:
    scenario = teaching()
    seats = seats_of(scenario)
    state = engine.new_game(scenario, seats, 99)
    opening = engine.dumps(state)
    rng = random.Random(5)
    tokens, hashes = [], []
    while engine.outcome(state) is None and len(tokens) < 400:
        hashes.append(engine.state_hash(state))
        seat = engine.pending(state)[0]["seat"]
        token, _ = engine.apply_in_place(state, seat, rng.choice(engine.legal_actions(state, seat)))
        tokens.append(token)
    assert len(tokens) > 100
    for token, expected in zip(reversed(tokens), reversed(hashes), strict=True):
        engine.undo(state, token)
        assert engine.state_hash(state) == expected
    assert engine.dumps(state) == opening


def test_undo_takes_tokens_back_last_first_and_once() -> None:
    scenario = teaching()
    state = engine.new_game(scenario, seats_of(scenario), 3)
    seat = engine.pending(state)[0]["seat"]
    first, _ = engine.apply_in_place(state, seat, engine.legal_actions(state, seat)[0])
    seat = engine.pending(state)[0]["seat"]
    second, _ = engine.apply_in_place(state, seat, engine.legal_actions(state, seat)[0])
    assert first is not None and second is not None
    moved = engine.state_hash(state)
    with pytest.raises(EngineError):
        engine.undo(state, first)  # the later move must go first
    assert engine.state_hash(state) == moved
    other = engine.clone(state)
    with pytest.raises(EngineError):
        engine.undo(other, second)  # a token undoes only its own state
    engine.undo(state, second)
    with pytest.raises(EngineError):
        engine.undo(state, second)  # once
    engine.undo(state, first)
    assert engine.state_hash(state) == engine.state_hash(
        engine.new_game(scenario, seats_of(scenario), 3)
    )


def test_an_illegal_action_in_place_changes_nothing() -> None:
    scenario = teaching()
    state = engine.new_game(scenario, seats_of(scenario), 4)
    seat = engine.pending(state)[0]["seat"]
    before = engine.dumps(state)
    legal = engine.legal_actions(state, seat)
    for bad in ({"type": "end_turn"}, {"type": "nonsense"}, "draw", {"type": "diplo", "move": 1}):
        if bad in legal:
            continue
        with pytest.raises(IllegalAction):
            engine.apply_in_place(state, seat, bad)
        assert engine.dumps(state) == before
    with pytest.raises(IllegalAction):
        engine.apply_in_place(state, 1 - seat, legal[0])  # not that seat's decision
    assert engine.dumps(state) == before
    assert engine.legal_actions(state, seat) == legal


def test_a_clone_shares_nothing_with_its_original() -> None:
    scenario = teaching()
    state = engine.new_game(scenario, seats_of(scenario), 8)
    rng = random.Random(8)
    for _ in range(60):
        seat = engine.pending(state)[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    original = engine.dumps(state)
    copy = engine.clone(state)
    assert engine.dumps(copy) == original
    for _ in range(200):  # play the clone on, in place, to the end or far
        if engine.outcome(copy) is not None:
            break
        seat = engine.pending(copy)[0]["seat"]
        engine.apply_in_place(
            copy, seat, rng.choice(engine.legal_actions(copy, seat)), undoable=False
        )
    for area in copy["areas"].values():  # and scribble over every container
        area["ties"].append(99)
        area["partial"]["9"] = {"x": 1}
    for p in copy["players"]:
        p["deck"]["draw"].clear()
    assert engine.dumps(state) == original


def test_events_in_place_are_detached_from_the_moving_state() -> None:
    scenario = teaching()
    state = engine.new_game(scenario, seats_of(scenario), 12)
    rng = random.Random(12)
    kept: list[tuple[list[dict[str, Any]], str]] = []
    for _ in range(150):
        if engine.outcome(state) is not None:
            break
        seat = engine.pending(state)[0]["seat"]
        _, events = engine.apply_in_place(
            state, seat, rng.choice(engine.legal_actions(state, seat))
        )
        kept.append((events, repr(events)))
    assert all(repr(events) == text for events, text in kept)


def test_many_states_in_place_at_once_outgrow_the_memo_and_stay_right() -> None:
    """More states driven in place than the memo keeps: each still plays the
    copying game (an evicted state only loses its memo)."""
    scenario = teaching()
    seats = seats_of(scenario)
    count = memo.MAX_TRACKED + 5
    refs = [engine.new_game(scenario, seats, 50 + i) for i in range(count)]
    lives = [engine.clone(ref) for ref in refs]
    rngs = [random.Random(i) for i in range(count)]
    for _ in range(15):
        for i in range(count):
            if engine.outcome(refs[i]) is not None:
                continue
            seat = engine.pending(refs[i])[0]["seat"]
            legal = engine.legal_actions(refs[i], seat)
            assert engine.legal_actions(lives[i], seat) == legal
            action = rngs[i].choice(legal)
            refs[i], _ = engine.apply(refs[i], seat, action)
            engine.apply_in_place(lives[i], seat, action)
            assert lives[i] == refs[i]
    assert [engine.state_hash(s) for s in lives] == [engine.state_hash(s) for s in refs]
