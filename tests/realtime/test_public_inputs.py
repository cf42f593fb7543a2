"""``engine.public_inputs`` names everything the dear public parts are made from: along
whole games of random legal play in every scenario, two positions whose inputs for a
part encode the same have the same part (a push builds such a part again only when its
inputs changed: app/realtime/render.py). And ``engine.public_parts`` is ``view``'s."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from app import engine
from app.bots.simulate import scenario_catalogue

SCENARIOS = sorted(s for s in scenario_catalogue() if s != "tutorial")
OPTS = orjson.OPT_NON_STR_KEYS


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=OPTS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_equal_inputs_give_an_equal_public_part(scenario: str) -> None:
    powers = scenario_catalogue()[scenario]
    rng = random.Random(len(scenario) + 5)
    state = engine.new_game(scenario, powers, 13)
    seen: dict[tuple[str, bytes], bytes] = {}
    kept: dict[str, int] = {}
    changed: dict[str, int] = {}
    moves = 0
    for _ in range(700):
        prompts = engine.pending(state)
        if not prompts or state["over"]:
            break
        whole = engine.view(state, None)
        parts = engine.public_parts(state)
        assert list(parts) == list(whole) == list(engine.PUBLIC_KEYS)
        assert _dumps(parts) == _dumps(whole)
        for name, inputs in engine.public_inputs(state).items():
            encoded = _dumps(whole[name])
            assert _dumps(engine.public_parts(state, (name,))) == _dumps({name: whole[name]})
            was = seen.setdefault((name, _dumps(inputs)), encoded)
            assert was == encoded, (scenario, name, "the part changed, its inputs did not")
        before = {k: _dumps(v) for k, v in engine.public_inputs(state).items()}
        seat = rng.choice(prompts)["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        moves += 1
        for name, inputs in engine.public_inputs(state).items():
            if before[name] == _dumps(inputs):
                kept[name] = kept.get(name, 0) + 1
            else:
                changed[name] = changed.get(name, 0) + 1
    # Not vacuous: each part keeps its inputs over most moves, and some change them.
    assert moves > 50
    for name in ("areas", "score", "politics"):
        assert kept.get(name, 0) > moves / 3, (name, kept, changed)
    assert changed.get("areas", 0) > 0 and changed.get("score", 0) > 0, changed
