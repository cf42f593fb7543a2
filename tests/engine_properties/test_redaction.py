"""Redaction: a seat's view holds nothing it may not know (docs/engine-contract.md, View).

Two checks, at every state of whole games, for every seat and the spectator:

1. *Search*: the serialized view holds no ``rng`` key anywhere, not the RNG
   state's value, and not the secret ordered sequences: another seat's draw
   pile, the market deck, the Fate deck, the counter pool.
2. *Difference*: scrambling what the viewer may not know — other seats' draw
   pile order, their drawn advisor, their Fate holdings, the market deck order,
   the Fate deck order, the counter pool order, the RNG state, and the order of
   the viewer's own draw pile — leaves the view exactly as it was, and leaves
   ``explain`` of the viewer's own legal actions (what bots and the UI's odds
   read) as it was. This catches a leak in any form (a count derived from a
   secret, a copied key, a label naming a card ...).
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app import engine

from .catalogue import game_settings, scenarios, seats_of, teaching
from .invariants import canon

SCENARIO_IDS = sorted(scenarios())
SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


def keys_anywhere(value: Any) -> set[str]:
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _sequence_leaks(text: str, sequence: list[Any]) -> bool:
    """Whether an ordered secret sequence (3+ items, not sorted) shows in ``text``."""
    if len(sequence) < 3:
        return False
    try:
        if sequence == sorted(sequence):
            return False
    except TypeError:
        pass
    return canon(sequence) in text or json.dumps(sequence) in text


def search_view(state: dict[str, Any], viewer: int | None) -> None:
    seat_view = engine.view(state, viewer)
    text = canon(seat_view)
    assert "rng" not in keys_anywhere(seat_view), f"view({viewer}) has an 'rng' key"
    assert str(state["rng"]) not in text, f"view({viewer}) shows the RNG state"
    secrets: dict[str, list[Any]] = {
        "market deck": list((state.get("market") or {}).get("deck") or []),
        "Fate deck": list((state.get("fate") or {}).get("deck") or []),
        "counter pool": list((state.get("counters") or {}).get("pool") or []),
    }
    for seat, player in enumerate(state["players"]):
        draw = list((player.get("deck") or {}).get("draw") or [])
        secrets[f"seat {seat} draw pile"] = draw
    for label, sequence in secrets.items():
        assert not _sequence_leaks(text, sequence), f"view({viewer}) shows the {label} order"


def _perturb_int(value: Any) -> Any:
    return (value * 6364136223846793005 + 1442695040888963407) % (1 << 64)


def scramble(state: dict[str, Any], viewer: int | None, rng: random.Random) -> dict[str, Any]:
    """A state that differs from ``state`` only in what ``viewer`` may not know."""
    other = copy.deepcopy(state)
    other["rng"] = _perturb_int(int(other["rng"]))
    market = other.get("market") or {}
    if isinstance(market.get("deck"), list):
        rng.shuffle(market["deck"])
    fate = other.get("fate") or {}
    if isinstance(fate.get("deck"), list):
        rng.shuffle(fate["deck"])
    counters = other.get("counters") or {}
    if isinstance(counters.get("pool"), list):
        rng.shuffle(counters["pool"])
    for seat, player in enumerate(other["players"]):
        deck = player.get("deck") or {}
        draw = deck.get("draw")
        if isinstance(draw, list):
            rng.shuffle(draw)
        if seat == viewer:
            continue
        hand = deck.get("hand")
        if isinstance(draw, list) and draw and hand not in (None, []):
            # Swap the drawn advisor with a card of the (secret) draw pile.
            j = rng.randrange(len(draw))
            if isinstance(hand, list):
                hand[0], draw[j] = draw[j], hand[0]
            else:
                deck["hand"], draw[j] = draw[j], hand
        holdings = player.get("holdings")
        fate_deck = fate.get("deck")
        if isinstance(holdings, list) and holdings and isinstance(fate_deck, list) and fate_deck:
            # Swap a secret holding with a card of the (secret) Fate deck.
            i, j = rng.randrange(len(holdings)), rng.randrange(len(fate_deck))
            holdings[i], fate_deck[j] = fate_deck[j], holdings[i]
    return other


EXPLAINED = ("endeavour", "draw", "petition", "tax", "plunder")


def difference_view(state: dict[str, Any], viewer: int | None, rng: random.Random) -> None:
    """The view (and ``explain`` of the viewer's own actions) ignores every secret."""
    seen = engine.view(state, viewer)
    other = scramble(state, viewer, rng)
    scrambled = engine.view(other, viewer)
    if scrambled != seen:
        diff = _first_difference(seen, scrambled)
        raise AssertionError(f"view({viewer}) depends on a secret: {diff}")
    if viewer is None:
        return
    legal = [a for a in engine.legal_actions(state, viewer) if a.get("type") in EXPLAINED]
    for action in rng.sample(legal, k=min(2, len(legal))):
        told = engine.explain(state, viewer, action)
        if engine.explain(other, viewer, action) != told:
            diff = _first_difference(told, engine.explain(other, viewer, action))
            raise AssertionError(f"explain({viewer}, {action}) depends on a secret: {diff}")


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or '(root)'}: {str(a)[:200]} != {str(b)[:200]}"


def check_game(
    scenario: str, seed: int, options: dict[str, Any] | None = None, every: int = 1
) -> int:
    """Play a random game; check every seat's view (and the spectator's) along it."""
    seats = seats_of(scenario)
    rng = random.Random(seed)
    state = engine.new_game(scenario, seats, seed, options)
    viewers: list[int | None] = [*range(len(seats)), None]
    steps = 0
    while True:
        if steps % every == 0:
            for viewer in viewers:
                where = f"{scenario} seed {seed} action {steps}"
                try:
                    search_view(state, viewer)
                    difference_view(state, viewer, rng)
                except AssertionError as exc:
                    raise AssertionError(f"{where}: {exc}") from exc
        if engine.outcome(state) is not None:
            return steps
        seat = int(engine.pending(state)[0]["seat"])
        legal = engine.legal_actions(state, seat)
        state, _ = engine.apply(state, seat, legal[rng.randrange(len(legal))])
        steps += 1


@game_settings(3)
@given(seed=SEEDS)
def test_views_along_teaching_games_hold_no_secret(seed: int) -> None:
    assert check_game(teaching(), seed) > 0


@pytest.mark.parametrize("scenario", SCENARIO_IDS)
def test_views_along_a_one_round_game_of_every_scenario_hold_no_secret(scenario: str) -> None:
    assert check_game(scenario, 99, {"end_turn": 1, "rounds": 1}) > 0


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("scenario", SCENARIO_IDS)
def test_views_along_a_whole_game_of_every_scenario_hold_no_secret(scenario: str) -> None:
    assert check_game(scenario, 2024, every=8) > 0


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("batch", range(4))  # 24 games in four tests, for `make test`'s workers
@game_settings(6)
@given(seed=SEEDS)
def test_views_along_many_teaching_games_hold_no_secret(batch: int, seed: int) -> None:
    assert check_game(teaching(), seed, every=2) > 0


def test_own_view_shows_own_cards_and_nothing_of_the_order() -> None:
    """The seated viewer sees its own hand and deck list (the redaction is not blanket)."""
    scenario = teaching()
    state = engine.new_game(scenario, seats_of(scenario), 3)
    rng = random.Random(3)
    while engine.outcome(state) is None:
        seat = int(engine.pending(state)[0]["seat"])
        hand = state["players"][seat]["deck"]["hand"]
        if hand is not None:
            me = engine.view(state, seat)["me"]
            assert me["seat"] == seat
            assert me["hand"]["id"] == hand["id"]
            deck = state["players"][seat]["deck"]
            listed = sorted(card["id"] for card in me["deck_list"])
            assert listed == sorted(card["id"] for card in deck["draw"] + deck["discard"])
            assert "me" not in engine.view(state, None)
            other = 1 - seat
            assert engine.view(state, other)["players"][seat]["has_hand"] is True
            return
        legal = engine.legal_actions(state, seat)
        draws = [a for a in legal if a["type"] == "draw"]
        action = draws[0] if draws else legal[rng.randrange(len(legal))]
        state, _ = engine.apply(state, seat, action)
    raise AssertionError("no advisor was drawn in a whole game")
