"""The advisor deck (docs/rules.md 5): building it from the emperor's statures,
drawing, reshuffling, burdens, and the odds of the next draw."""

from __future__ import annotations

from typing import Any

from app.engine import rng
from app.engine.core import STATURES, State, card_type, deck_cards, has_ability, player


def new_card(state: State, kind: str, ref: str) -> dict[str, Any]:
    state["next_card"] += 1
    return {"id": f"k{state['next_card']}", "kind": kind, "ref": ref}


def common_advisors(state: State, statures: dict[str, int]) -> list[dict[str, Any]]:
    """5.1: one common advisor of each type per point of the matching stature."""
    cards = []
    for stature in STATURES:
        for _ in range(int(statures.get(stature, 0))):
            cards.append(new_card(state, "advisor", stature))
    return cards


def rebuild_for_heir(state: State, seat: int) -> None:
    """19.32: the deck is rebuilt to the heir's statures; notables and burdens stay.
    Everything is shuffled into a new draw pile."""
    p = player(state, seat)
    keep = [c for c in deck_cards(p) if c["kind"] != "advisor"]
    cards = common_advisors(state, p["emperor"]["statures"]) + keep
    rng.shuffle(state, cards)
    p["deck"]["draw"] = cards
    p["deck"]["discard"] = []
    p["deck"]["hand"] = None


def reshuffle_if_empty(state: State, seat: int) -> bool:
    """5.3: when the draw pile is empty the discard pile is shuffled into it."""
    deck = player(state, seat)["deck"]
    if deck["draw"] or not deck["discard"]:
        return False
    deck["draw"] = list(deck["discard"])
    deck["discard"] = []
    rng.shuffle(state, deck["draw"])
    return True


def draw_card(state: State, seat: int) -> dict[str, Any] | None:
    reshuffle_if_empty(state, seat)
    deck = player(state, seat)["deck"]
    if not deck["draw"]:
        return None
    card: dict[str, Any] = deck["draw"].pop(0)
    deck["hand"] = card
    return card


def discard_hand(state: State, seat: int) -> None:
    deck = player(state, seat)["deck"]
    if deck["hand"] is not None:
        deck["discard"].append(deck["hand"])
        deck["hand"] = None


def add_burden(state: State, seat: int, burden: str) -> dict[str, Any]:
    """5.7: a burden enters the discard pile (it comes round at the next reshuffle)."""
    card = new_card(state, "burden", burden)
    player(state, seat)["deck"]["discard"].append(card)
    return card


def take_card(state: State, seat: int, card_id: str) -> dict[str, Any] | None:
    """Take a card out of whichever pile holds it (hand excluded)."""
    deck = player(state, seat)["deck"]
    for pile in ("draw", "discard"):
        for i, card in enumerate(deck[pile]):
            if card["id"] == card_id:
                taken: dict[str, Any] = deck[pile].pop(i)
                return taken
    return None


def remove_card(state: State, seat: int, card_id: str) -> dict[str, Any] | None:
    card = take_card(state, seat, card_id)
    if card is not None:
        player(state, seat)["deck"]["removed"].append(card)
    return card


def next_draw_pile(p: dict[str, Any]) -> list[dict[str, Any]]:
    """The cards the next draw comes from (the discard pile once the draw pile is empty)."""
    deck = p["deck"]
    return list(deck["draw"]) if deck["draw"] else list(deck["discard"])


def petition_pile(p: dict[str, Any]) -> list[dict[str, Any]]:
    """The cards a petition draws from: the draw pile, or, once it is empty, the
    discard pile with the advisor being sent away in it (5.3, 5.5)."""
    deck = p["deck"]
    if deck["draw"]:
        return list(deck["draw"])
    return list(deck["discard"]) + ([deck["hand"]] if deck["hand"] else [])


def strike_types(p: dict[str, Any], petition: bool) -> list[str]:
    """5.6: the advisor types that fail a petition on the next draw: those sent away
    this turn, and on a petition the one about to be sent away."""
    if not petition:
        return []  # a year's first draw is never struck by an earlier petition
    types = list(p.get("passed", []))
    hand = p["deck"]["hand"]
    if petition and hand is not None:
        t = card_type(hand)
        if t is not None and t not in types:
            types.append(t)
    return sorted(types)


def draw_odds(p: dict[str, Any], pile: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """5.9: exact odds of the next draw, by advisor type and of a burden."""
    pile = next_draw_pile(p) if pile is None else pile
    n = len(pile)
    counts: dict[str, int] = {}
    burdens = 0
    for card in pile:
        t = card_type(card)
        if t is None:
            burdens += 1
        else:
            counts[t] = counts.get(t, 0) + 1
    # c / n is the correctly rounded float of the fraction, as float(Fraction(c, n)) is.
    by_type = {t: c / n for t, c in sorted(counts.items())} if n else {}
    return {
        "cards": n,
        "by_type": by_type,
        "burden": burdens / n if n else 0.0,
        "reshuffle": not p["deck"]["draw"],
    }


def petition_cost(state: State, seat: int) -> int:
    """5.5: the k-th petition of a year costs k influence (the first may be free, 6.4)."""
    p = player(state, seat)
    cost = int(p["petitions"]) + 1
    if p["petitions"] == 0 and has_ability(state, seat, "free_petition"):
        return 0
    return cost
