"""``engine.private_inputs`` names everything a seat's private view is made from: along
whole games of random legal play in every scenario, two positions whose inputs for a
seat encode the same give that seat the same private view (the push builds a seat's
view again only when its inputs changed: app/realtime/render.py)."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from app import engine
from app.bots.simulate import scenario_catalogue

SCENARIOS = sorted(s for s in scenario_catalogue() if s != "tutorial")


def _inputs(state: dict[str, Any], seat: int) -> bytes:
    shared, own = engine.private_inputs(state)
    return orjson.dumps([shared, own[seat]], option=orjson.OPT_NON_STR_KEYS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_equal_inputs_give_an_equal_private_view(scenario: str) -> None:
    powers = scenario_catalogue()[scenario]
    rng = random.Random(len(scenario))
    state = engine.new_game(scenario, powers, 11)
    seen: dict[tuple[int, bytes], bytes] = {}
    repeats = changed = moves = 0
    for _ in range(700):
        prompts = engine.pending(state)
        if not prompts or state["over"]:
            break
        for seat in range(len(powers)):
            inputs = _inputs(state, seat)
            view = orjson.dumps(engine.private_view(state, seat), option=orjson.OPT_NON_STR_KEYS)
            assert view == orjson.dumps(
                engine.view(state, seat)["me"], option=orjson.OPT_NON_STR_KEYS
            )
            was = seen.setdefault((seat, inputs), view)
            assert was == view, (scenario, seat, "the private view changed, its inputs did not")
            repeats += was is not view
        seat = rng.choice(prompts)["seat"]
        legal = engine.legal_actions(state, seat)
        before = [_inputs(state, s) for s in range(len(powers))]
        state, _ = engine.apply(state, seat, rng.choice(legal))
        moves += 1
        changed += sum(b != _inputs(state, s) for s, b in enumerate(before))
    # Not vacuous: most seats keep their inputs over a move, and some change them.
    seats = len(powers)
    assert moves > 50 and repeats > moves * (seats - 1) / 3 and changed > moves / 4, (
        moves,
        repeats,
        changed,
    )
