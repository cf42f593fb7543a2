"""`apply`'s copy shares the card records with the position it came from, and nothing
else (app/engine/clone.py, ``copy_state``'s `share_cards`): no rule edits a card once it
is made, it only moves between lists. Held here over whole games of every scenario on the
real content pack."""

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
def test_apply_shares_the_card_records_and_never_edits_one(scenario: str, seed: int) -> None:
    """`apply`'s copy shares the card records with the position it came from (no rule
    edits a card: it only moves between lists), and shares nothing else: along a whole
    game of random legal moves, every position is, byte for byte, what it was before its
    move, and the two positions have no list or dict in common but cards."""
    seats = scenario_catalogue()[scenario]
    rng = random.Random(seed)
    state = engine.new_game(scenario, list(seats), seed)
    shared_seen = 0
    for _ in range(400):
        if engine.outcome(state) is not None:
            break
        seat = engine.pending(state)[0]["seat"]
        before = engine.dumps(state)
        after, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        assert engine.dumps(state) == before
        cards = {id(c) for c in _cards_of(state)}
        common = containers(after, set()) & containers(state, set())
        assert common <= cards
        shared_seen += len(common)
        state = after
    assert shared_seen > 0
