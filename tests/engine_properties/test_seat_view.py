"""`seat_view` (the lazy, read-only view bots read) is `view`, key for key
(docs/engine-contract.md, "Seat view").

At states spread along random games of every scenario, for every seat and the
spectator: the lazy view equals the built one (as a mapping, and turned into
plain JSON the same text), whatever order its keys are first read in; it has
no key `view` lacks (so it redacts what `view` redacts); and what a reader
changes in it changes nothing in the game.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from app import engine
from app.engine.seat_view import to_plain

from .catalogue import scenarios, seats_of, teaching

SCENARIO_IDS = sorted(scenarios())


def _states(scenario: str, seed: int, every: int, limit: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    state = engine.new_game(scenario, seats_of(scenario), seed)
    out = [state]
    for step in range(limit):
        if engine.outcome(state) is not None:
            break
        seat = engine.pending(state)[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        if step % every == 0:
            out.append(state)
    out.append(state)
    return out


@pytest.mark.parametrize("scenario", SCENARIO_IDS)
def test_the_seat_view_is_the_view(scenario: str) -> None:
    rng = random.Random(1)
    for state in _states(scenario, 21, every=40, limit=600):
        before = engine.dumps(state)
        for seat in [None, *range(len(state["players"]))]:
            built = engine.view(state, seat)
            lazy = engine.seat_view(state, seat)
            keys = list(built)
            rng.shuffle(keys)  # read lazily, in any order, one part at a time
            for key in keys[: len(keys) // 2]:
                assert lazy[key] == built[key], key
            assert list(lazy) == list(built)
            assert lazy == built and built == lazy
            assert json.dumps(to_plain(lazy)) == json.dumps(built)
            if seat is not None:
                me = lazy["me"]
                assert dict(me) == built["me"]
                area = next(iter(built["areas"]))
                assert lazy["areas"][area] == built["areas"][area]
                assert lazy["players"][seat] == built["players"][seat]
                assert lazy["players"][-1] == built["players"][-1]
        assert engine.dumps(state) == before


def test_a_seat_view_has_nothing_a_view_has_not() -> None:
    scenario = teaching()
    state = _states(scenario, 5, every=50, limit=200)[-1]
    for seat in (None, 0, 1):
        lazy = engine.seat_view(state, seat)
        built = engine.view(state, seat)
        for key in ("rng", "deck", "fate", "seed", "players_raw", "legal_actions"):
            if key not in built:
                assert key not in lazy
                assert lazy.get(key) is None
                with pytest.raises(KeyError):
                    lazy[key]
        if seat is not None:
            assert set(lazy["me"]) == set(built["me"])
            assert lazy["me"].get("draw") is None
        for area in lazy["areas"].values():
            assert set(area) == set(built["areas"][next(iter(built["areas"]))])


def test_a_bad_seat_is_refused_as_by_view() -> None:
    state = engine.new_game(teaching(), seats_of(teaching()), 1)
    for seat in (-1, 2, "0", 1.0, True):
        with pytest.raises(engine.IllegalAction):
            engine.view(state, seat)  # type: ignore[arg-type]
        with pytest.raises(engine.IllegalAction):
            engine.seat_view(state, seat)  # type: ignore[arg-type]


def test_changing_what_a_seat_view_gives_changes_nothing() -> None:
    scenario = teaching()
    state = _states(scenario, 9, every=30, limit=120)[-1]
    before = engine.dumps(state)
    lazy = engine.seat_view(state, 0)
    for area in lazy["areas"].values():
        area["ties"].append(7)
        area["partial"]["0"] = {"x": 3}
    lazy["players"][0]["talents"] = 999
    lazy["me"]["deck_list"].clear()
    lazy["order"].reverse()
    assert engine.dumps(state) == before
    with pytest.raises(TypeError):
        lazy["turn"] = 5  # type: ignore[index]
