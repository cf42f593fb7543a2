"""Invariants of a game state, checked after every action of the property tests.

Each check raises ``AssertionError`` with a message naming what broke. They read
the state as docs/engine-contract.md describes it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from app import engine
from app.engine.content import content
from app.engine.errors import IllegalAction


def canon(value: Any) -> str:
    """Canonical JSON, so that ``True`` and ``1`` (or ``1.0``) are told apart: compact,
    keys sorted (orjson: what ``json.dumps(sort_keys=True, separators=(",", ":"))``
    gives here, at a fraction of its cost in the long random runs)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()


def listed_form(action: Any) -> str:
    """How ``apply`` compares an action with the listed ones: as a dict, keys whose
    value is ``None`` ignored (docs/engine-contract.md), ``True`` never equal to ``1``."""
    if isinstance(action, dict):
        return canon({k: v for k, v in action.items() if v is not None})
    return canon(action)


def is_listed(legal: list[dict[str, Any]], action: Any) -> bool:
    """Listed by ``legal_actions``, or (20.14) a concrete offer fitting a listed template."""
    return listed_form(action) in {listed_form(a) for a in legal} or engine.offer_fits(
        legal, action
    )


def card_key(card: Any) -> str:
    """A card's identity for counting: its id when it is a dict, else itself."""
    if isinstance(card, dict):
        for key in ("uid", "id", "card"):
            if key in card:
                return str(card[key])
        return canon(card)
    return str(card)


def _cards(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]


def notable_ids() -> set[str]:
    return {n["id"] for n in content().get("notables", [])}


def check_numbers(state: dict[str, Any]) -> None:
    for seat, player in enumerate(state["players"]):
        for key in ("talents", "influence"):
            value = player.get(key)
            assert isinstance(value, int) and not isinstance(value, bool), (
                f"seat {seat} {key} is {value!r}, not an integer"
            )
            assert value >= 0, f"seat {seat} has negative {key}: {value}"
        years = player.get("years_left")
        if years is not None:
            assert years >= 0, f"seat {seat} has negative years_left {years}"


def check_ownership(state: dict[str, Any]) -> None:
    seats = range(len(state["players"]))
    for area_id, area in state["areas"].items():
        owner = area.get("owner")
        assert owner is None or owner in seats, f"area {area_id} owned by {owner!r}"
    for seat, player in enumerate(state["players"]):
        court = player.get("court")
        if court is None or player.get("exiled"):
            continue
        assert court in state["areas"], f"seat {seat} court {court!r} is not an area"
        assert state["areas"][court].get("owner") == seat, (
            f"seat {seat} holds court in {court} but the area's owner is "
            f"{state['areas'][court].get('owner')!r}"
        )


def deck_places(player: dict[str, Any]) -> dict[str, list[Any]]:
    deck = player.get("deck") or {}
    return {
        "draw": _cards(deck.get("draw")),
        "discard": _cards(deck.get("discard")),
        "hand": _cards(deck.get("hand")),
        "removed": _cards(deck.get("removed")),
    }


def check_cards(state: dict[str, Any], first: dict[str, Any]) -> None:
    """Every card in exactly one place.

    - a deck card (it carries its own ``id``) is in one pile of one player;
    - a notable is in at most one place in the whole game (some deck pile of
      one player, the market row or the market deck);
    - Fate cards: deck + discard + every holding is the same multiset as at the
      start (cards leave play only through ``fate.removed`` when the engine has one);
    - result counters: pool + out is the same multiset as at the start.
    """
    notables = notable_ids()
    where: dict[str, str] = {}
    notable_where: dict[str, str] = {}

    def place(card: Any, label: str) -> None:
        # A card with its own id (the engine numbers every deck card) is in one place.
        if isinstance(card, dict) and ("uid" in card or "id" in card):
            key = str(card.get("uid", card.get("id")))
            assert key not in where, f"card {key} is both in {where[key]} and in {label}"
            where[key] = label
        # A notable (by its content id) is in one place in the whole game.
        ref = card.get("ref", card.get("notable")) if isinstance(card, dict) else card
        if isinstance(ref, str) and ref in notables:
            assert ref not in notable_where, (
                f"notable {ref} is both in {notable_where[ref]} and in {label}"
            )
            notable_where[ref] = label

    for seat, player in enumerate(state["players"]):
        for pile, cards in deck_places(player).items():
            for card in cards:
                place(card, f"seat {seat} {pile}")
    market = state.get("market") or {}
    for slot, entry in enumerate(market.get("row") or []):
        card = entry.get("card") if isinstance(entry, dict) else entry
        if card is not None:
            place(card, f"market row slot {slot}")
    for card in market.get("deck") or []:
        place(card, "market deck")

    fate_then, counters_then = _opening_multisets(first)
    fate_now = Counter(map(card_key, fate_cards(state)))
    assert fate_now == fate_then, (
        f"Fate cards were created or lost: lost {dict(fate_then - fate_now)}, "
        f"new {dict(fate_now - fate_then)}"
    )
    counters_now = Counter(map(card_key, counter_cards(state)))
    assert counters_now == counters_then, (
        f"result counters were created or lost: lost {dict(counters_then - counters_now)}, "
        f"new {dict(counters_now - counters_then)}"
    )


_OPENING: dict[int, tuple[dict[str, Any], Counter[str], Counter[str]]] = {}


def _opening_multisets(first: dict[str, Any]) -> tuple[Counter[str], Counter[str]]:
    """The Fate and counter multisets of a game's first state (cached per state object)."""
    cached = _OPENING.get(id(first))
    if cached is None or cached[0] is not first:
        if len(_OPENING) > 64:
            _OPENING.clear()
        cached = (
            first,
            Counter(map(card_key, fate_cards(first))),
            Counter(map(card_key, counter_cards(first))),
        )
        _OPENING[id(first)] = cached
    return cached[1], cached[2]


def fate_cards(state: dict[str, Any]) -> list[Any]:
    """Every Fate card, by its content id: deck, discard, holdings, played for good."""
    fate = state.get("fate") or {}
    cards = list(fate.get("deck") or []) + list(fate.get("discard") or [])
    cards += list(fate.get("removed") or [])
    for player in state["players"]:
        cards += _cards(player.get("holdings"))
        cards += _cards(player.get("in_play"))
    return [card.get("ref", card_key(card)) if isinstance(card, dict) else card for card in cards]


def counter_cards(state: dict[str, Any]) -> list[Any]:
    counters = state.get("counters") or {}
    return list(counters.get("pool") or []) + list(counters.get("out") or [])


def check_all(state: dict[str, Any], first: dict[str, Any]) -> None:
    check_numbers(state)
    check_ownership(state)
    check_cards(state, first)


def assert_refused(state: dict[str, Any], seat: Any, action: Any, unchanged: bool = True) -> None:
    """``apply`` must refuse with a readable reason and leave the state alone.

    ``unchanged=False`` leaves the state comparison to the caller (who compares
    once for several calls: hashing a whole state is the costly part).
    """
    before = engine.state_hash(state) if unchanged else None
    try:
        engine.apply(state, seat, action)
    except IllegalAction as exc:
        assert isinstance(exc.reason, str) and exc.reason.strip(), (
            f"IllegalAction without a reason for {action!r}"
        )
    else:
        raise AssertionError(f"seat {seat!r} action {canon(action)} was accepted but not listed")
    if unchanged:
        assert engine.state_hash(state) == before, f"refusing {action!r} changed the state"
