"""The copy by layout (`clone.copy_state`, what `apply` and `engine.clone` copy a
state with) and the check's partial legal list (`legality.legal_of_type`), both
cut for speed (issue 39): neither may change what the engine does.

- A copy equals its original key for key, in the same key order, type for type
  (``True`` is not ``1``), and shares no list or dict with it, on every state of
  random games, and on states of another shape (extra keys anywhere), which are
  copied by ``marshal``.
- `legal_of_type` lists every legal action of the type asked for (and of the
  endeavour kind asked for), exactly as `legal_actions` does, on every state of
  random games.
"""

from __future__ import annotations

import marshal
import random
from collections.abc import Iterator
from typing import Any

import pytest

from app import engine
from app.engine.clone import copy_state
from app.engine.gate import ACTIONS
from app.engine.legality import legal_of_type

GAMES = [
    ("teaching", ("kushan", "han")),
    ("four_empires", ("rome", "parthia", "kushan", "han")),
]


def states(scenario: str, seats: tuple[str, ...], seed: int) -> Iterator[dict[str, Any]]:
    """Every state of one random game (copying `apply`), the first included."""
    rng = random.Random(seed)
    state = engine.new_game(scenario, list(seats), seed)
    yield state
    for _ in range(3000):
        if engine.outcome(state) is not None:
            return
        seat = engine.pending(state)[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        yield state


def containers(value: Any, seen: set[int]) -> set[int]:
    """The ids of every list and dict in ``value``."""
    if type(value) is dict or type(value) is list:
        seen.add(id(value))
        for item in value.values() if type(value) is dict else value:
            containers(item, seen)
    return seen


def key_orders(value: Any) -> list[list[str]]:
    """Every dict's keys in order, depth first (`marshal` of version 2 compares
    values and types; this, that the order is kept too)."""
    out: list[list[str]] = []
    if type(value) is dict:
        out.append(list(value))
        for item in value.values():
            out += key_orders(item)
    elif type(value) is list:
        for item in value:
            out += key_orders(item)
    return out


def assert_true_copy(copy: dict[str, Any], original: dict[str, Any]) -> None:
    assert marshal.dumps(copy, 2) == marshal.dumps(original, 2)  # type for type
    assert key_orders(copy) == key_orders(original)
    assert not containers(copy, set()) & containers(original, set())


@pytest.mark.parametrize(("scenario", "seats"), GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_copy_is_equal_and_shares_nothing(
    scenario: str, seats: tuple[str, ...], seed: int
) -> None:
    for n, state in enumerate(states(scenario, seats, seed)):
        if n % 3 == 0 or engine.outcome(state) is not None:
            assert_true_copy(copy_state(state), state)


def test_a_state_of_another_shape_is_still_copied_whole() -> None:
    """Extra keys (a newer or older state, a test's hand-made one) where the copier
    knows the layout: each such record goes by `marshal`, and is still deep. (A known
    key holds what docs/engine-contract.md says it holds: a scalar stays a scalar.)"""
    state = next(
        s
        for n, s in enumerate(states("four_empires", GAMES[1][1], 3))
        if n > 120 and s["relations"]["agreements"]
    )
    state = engine.loads(engine.dumps(state))
    state["areas"][next(iter(state["areas"]))]["extra"] = {"nested": [1]}
    p = state["players"][0]
    p["extra"] = [{"x": [1]}]
    state["players"][1]["deck"]["draw"].append(
        {"id": "k0", "kind": "advisor", "ref": "arts", "x": [2]}
    )
    state["players"][2]["emperor"]["extra"] = {"a": [3]}
    state["relations"]["agreements"][0]["extra"] = [[4]]
    state["relations"]["pairs"]["0|1"]["extra"] = {"b": 5}
    state["fate"]["deck"].append({"id": "k1", "kind": "fate", "ref": "x", "extra": [6]})
    state["market"]["row"].append({"card": "x", "coins": 0, "extra": [7]})
    state["world"]["hordes"]["extra"] = {"strength": [8]}
    state["grand"]["record"] = [
        {"fact": "refused", "from": 0, "to": 1, "turn": 1, "round": 1, "extra": [9]}
    ]
    state["grand"]["offered"] = {"0": [10]}
    state["extra"] = {"deep": [{"er": [11]}]}
    assert_true_copy(copy_state(state), state)
    state["players"][3] = ["not", "a", "player"]  # no layout fits: the whole by marshal
    assert_true_copy(copy_state(state), state)


@pytest.mark.parametrize(("scenario", "seats"), GAMES)
def test_legal_of_type_lists_every_action_of_its_type(
    scenario: str, seats: tuple[str, ...]
) -> None:
    for state in states(scenario, seats, 4):
        for prompt in engine.pending(state):
            seat = prompt["seat"]
            legal = engine.legal_actions(state, seat)
            for kind in ACTIONS:
                expected = [a for a in legal if a["type"] == kind]
                got = [a for a in legal_of_type(state, seat, kind) if a["type"] == kind]
                assert got == expected, (kind, prompt["kind"])
            for endeavour in {a["kind"] for a in legal if a["type"] == "endeavour"}:
                expected = [a for a in legal if a.get("kind") == endeavour]
                got = legal_of_type(state, seat, "endeavour", endeavour)
                assert [a for a in got if a.get("kind") == endeavour] == expected
