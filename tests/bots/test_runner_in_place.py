"""The bot loop on the fast path plays the very game of the plain path.

`play_game` moves one state with `engine.apply_in_place` and hands bots the
lazy `engine.seat_view`; the plain loop below builds `engine.view` and makes a
new state per action with `engine.apply`. Same seeds, same bots: the same
actions, the same final `state_hash`.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest

from app import engine
from app.bots import choose_action
from app.bots.runner import play_game
from app.bots.simulate import scenario_catalogue
from app.bots.temperament import temperament_for


def _plain_game(scenario: str, seats: list[str], seed: int) -> tuple[list[Any], str]:
    rng = random.Random(seed * 7919 + 17)  # play_game's bot seed
    state = engine.new_game(scenario, seats, seed)
    log: list[Any] = []
    while engine.outcome(state) is None:
        seat = engine.pending(state)[0]["seat"]
        legal = engine.legal_actions(state, seat)
        explain = partial(engine.explain, state, seat)
        action = choose_action(
            "heuristic",
            engine.view(state, seat),
            legal,
            rng,
            explain,
            temperament=temperament_for(seed, seat),  # play_game's temperaments
        )
        log.append((seat, action))
        state, _ = engine.apply(state, seat, action)
    return log, engine.state_hash(state)


@pytest.mark.parametrize("seed", [3, 4])
def test_the_fast_bot_loop_plays_the_plain_game(seed: int) -> None:
    scenario = "teaching"
    seats = scenario_catalogue()[scenario]
    log, final = _plain_game(scenario, seats, seed)
    fast = play_game(scenario, seats, seed, "heuristic", use_explain=True)
    slow = play_game(scenario, seats, seed, "heuristic", use_explain=True, in_place=False)
    assert not fast.errors and not slow.errors
    assert fast.log == log and slow.log == log
    assert fast.final_hash == final == slow.final_hash
