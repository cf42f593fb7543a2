"""`apply`'s copy shares with the position it came from the card records, the records
of ended agreements and the area records its move did not change, and nothing else
(app/engine/clone.py, ``copy_state``'s `share_cards` and `share_areas`): no rule edits a
card once it is made, it only moves between lists, nor an agreement no longer in force,
and a move copies an area record before it first changes it (``core.own_area``). Held here over whole games of every scenario on the real content
pack: the position a move started from is, byte for byte, what it was."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app import engine
from app.bots.simulate import scenario_catalogue
from tests.engine.test_clone import containers


def _cards_of(state: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in state["players"]:
        deck = p["deck"]
        out += deck["draw"] + deck["discard"] + deck["removed"] + p["holdings"]
        if deck["hand"] is not None:
            out.append(deck["hand"])
    return out


@pytest.mark.parametrize(
    ("scenario", "seed"),
    [("teaching", 4), ("four_empires", 5), ("successors", 6), ("late_antiquity", 7)],
)
def test_apply_shares_cards_and_unchanged_areas_and_never_edits_one(
    scenario: str, seed: int
) -> None:
    """Along a whole game of random legal moves, every position is, byte for byte, what
    it was before its move; the two positions have no list or dict in common but cards,
    ended agreements and the records (with their lists) of the areas the move left as
    they were; and a
    move shares most of the map and copies the areas it changes."""
    seats = scenario_catalogue()[scenario]
    rng = random.Random(seed)
    state = engine.new_game(scenario, list(seats), seed)
    shared_seen = areas_shared = areas_changed = 0
    for _ in range(400):
        if engine.outcome(state) is not None:
            break
        seat = engine.pending(state)[0]["seat"]
        before = engine.dumps(state)
        after, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        assert engine.dumps(state) == before
        assert after["areas"] is not state["areas"]
        allowed = {id(c) for c in _cards_of(state)}
        for ag in state["relations"]["agreements"]:
            if ag["status"] != "in_force":  # an ended agreement is history: never changed
                allowed |= containers(ag, set())
        for a_id, record in state["areas"].items():
            if after["areas"][a_id] is record:
                areas_shared += 1
                allowed |= containers(record, set())
            elif engine.dumps(after["areas"][a_id]) != engine.dumps(record):
                areas_changed += 1
        common = containers(after, set()) & containers(state, set())
        assert common <= allowed
        shared_seen += len(common)
        state = after
    assert shared_seen > 0 and areas_changed > 0
    assert areas_shared > 20 * areas_changed, (areas_shared, areas_changed)


def _moves(state: dict[str, Any], rng: random.Random, n: int) -> list[tuple[int, Any]]:
    """Up to `n` legal moves from `state` on, played on a copy."""
    state = engine.clone(state)
    out: list[tuple[int, Any]] = []
    for _ in range(n):
        if engine.outcome(state) is not None:
            break
        seat = engine.pending(state)[0]["seat"]
        action = rng.choice(engine.legal_actions(state, seat))
        out.append((seat, action))
        engine.apply_in_place(state, seat, action, undoable=False)
    return out


def test_moving_in_place_never_changes_a_state_that_shares_its_map() -> None:
    """A state `apply` made shares area records with the one it came from: driving either
    in place afterwards (a clone's playout, a search's undoable moves) copies a record
    before changing it, so the other stays byte for byte what it was."""
    seats = scenario_catalogue()["four_empires"]
    rng = random.Random(8)
    state = engine.new_game("four_empires", list(seats), 8)
    for seat, action in _moves(state, rng, 60):
        state, _ = engine.apply(state, seat, action)
    line = _moves(state, rng, 80)
    assert len(line) == 80
    for undoable in (False, True):
        # the state apply returned, driven in place: its parent is untouched
        parent = engine.clone(state)
        child, _ = engine.apply(parent, *line[0])
        before = engine.dumps(parent)
        for seat, action in line[1:]:
            engine.apply_in_place(child, seat, action, undoable=undoable)
        assert engine.dumps(parent) == before
        # the parent (a clone) driven in place after apply made a child of it: the
        # child is untouched
        parent = engine.clone(state)
        child, _ = engine.apply(parent, *line[0])
        kept = engine.dumps(child)
        for seat, action in line:
            engine.apply_in_place(parent, seat, action, undoable=undoable)
        assert engine.dumps(child) == kept
