"""Deep copies of the plain-JSON state that know its layout (docs/engine-contract.md,
"State"), for `apply` and for bots and search (`engine.clone`).

A copy is made container by container: scalars are immutable, so copying every
list and dict is a deep copy. Knowing which keys hold containers saves looking
at every value: the areas, the players (their decks' many small card records),
the relations (pairs and agreements), the fate deck, the market, the world and
grand diplomacy's record are copied so, three to ten times faster per container
than a ``marshal`` round trip and ten times faster than ``copy.deepcopy``. The
copy of an `apply` was more than half of its time (issue 39).

Every record copied by layout is first checked to have exactly the known keys
(one set comparison in C); a record of another shape (an older or newer state,
a test's hand-made one) and every part of the state without a layout here go
through ``marshal``, so a copy is always a true deep copy: never a shared list
or dict (tests/engine/test_clone.py walks every container of the copies). The one
exception is `apply`'s own copy, which shares the card records (``copy_state``'s
`share_cards`): no rule edits a card, it only moves between lists.
"""

from __future__ import annotations

import marshal
from typing import Any

State = dict[str, Any]


def copy_json(value: Any) -> Any:
    """A deep copy of plain JSON data. ``marshal`` (stdlib, in memory, no I/O) is
    several times faster than ``copy.deepcopy`` or a JSON round trip, keeps key
    order and tells ``True`` from ``1``."""
    return marshal.loads(marshal.dumps(value))


# ---------------------------------------------------------------- the areas

# The keys of an area record (docs/engine-contract.md, "areas"): scalars, lists
# of scalars (ties, claims, buildings) and the two maps partial {seat: {base: n}}
# and convert {seat: n}.
AREA_KEYS = frozenset(
    (
        "owner",
        "social",
        "unrest",
        "fort",
        "ties",
        "claims",
        "partial",
        "buildings",
        "language",
        "religion",
        "usurper",
        "rebel_of",
        "convert",
    )
)


def copy_area(a: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of one area record by layout."""
    if a.keys() != AREA_KEYS:
        copied: dict[str, Any] = copy_json(a)
        return copied
    b = a.copy()
    b["ties"] = a["ties"][:]
    b["claims"] = a["claims"][:]
    b["buildings"] = a["buildings"][:]
    partial = a["partial"]
    b["partial"] = {s: bases.copy() for s, bases in partial.items()} if partial else {}
    b["convert"] = a["convert"].copy()
    return b


def copy_areas(areas: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``state["areas"]`` by layout."""
    return {a_id: copy_area(a) for a_id, a in areas.items()}


# ---------------------------------------------------------------- the players

# A card ({"id", "kind", "ref"}: advisors, notables, burdens, fate) holds scalars.
CARD_KEYS = frozenset(("id", "kind", "ref"))


def _cards(cards: list[dict[str, Any]], share: bool = False) -> list[dict[str, Any]]:
    """A list of card records copied; with `share`, a new list of the same records
    (``copy_state``'s `share_cards`)."""
    # Every key of every card one of the three: checked in C, not card by card.
    if CARD_KEYS.issuperset(set().union(*cards)):
        return cards[:] if share else [c.copy() for c in cards]
    copied: list[dict[str, Any]] = copy_json(cards)
    return copied


DECK_KEYS = frozenset(("draw", "discard", "hand", "removed"))
EMPEROR_KEYS = frozenset(
    ("ruler", "name", "age", "reign_years", "statures", "language", "religion")
)
# The player record (setup.py): these keys hold lists of scalars (ids), ...
PLAYER_ID_LISTS = ("dynasty", "in_play", "innovations", "taxed", "parleys", "passed")
# ... these lists of flat records, these flat records, and every other key a scalar.
PLAYER_FLAT_LISTS = ("fallen",)
PLAYER_FLAT = ("turn_record",)
PLAYER_KEYS = frozenset(
    (
        "power",
        "name",
        "colour",
        "emperor",
        "dynasty",
        "dynasty_index",
        "fallen",
        "usurped",
        "talents",
        "influence",
        "popularity",
        "years_left",
        "deck",
        "holdings",
        "in_play",
        "innovations",
        "court",
        "exiled",
        "asylum",
        "accursed",
        "vp",
        "conversions",
        "strikes",
        "petitions",
        "passed",
        "shield_used",
        "redraw",
        "defenses",
        "had_turn",
        "taxed",
        "tax_state",
        "recruited",
        "parleys",
        "tribute_turn",
        "turn_record",
        "start_score",
    )
)


def _flat_list(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A list of records whose values are scalars (the layout says so)."""
    return [r.copy() for r in records]


def copy_player(p: dict[str, Any], share_cards: bool = False) -> dict[str, Any]:
    """A deep copy of one player record by layout (``marshal`` for another shape); with
    `share_cards`, but for its card records (``copy_state``)."""
    deck, emperor = p.get("deck"), p.get("emperor")
    if (
        p.keys() != PLAYER_KEYS
        or type(deck) is not dict
        or deck.keys() != DECK_KEYS
        or type(emperor) is not dict
        or emperor.keys() != EMPEROR_KEYS
    ):
        copied: dict[str, Any] = copy_json(p)
        return copied
    q = p.copy()
    d = deck.copy()
    d["draw"] = _cards(deck["draw"], share_cards)
    d["discard"] = _cards(deck["discard"], share_cards)
    d["removed"] = _cards(deck["removed"], share_cards)
    hand = deck["hand"]
    if hand is not None and hand.keys() == CARD_KEYS:
        d["hand"] = hand if share_cards else hand.copy()
    elif hand is not None:
        d["hand"] = copy_json(hand)
    q["deck"] = d
    e = emperor.copy()
    e["statures"] = emperor["statures"].copy()
    q["emperor"] = e
    q["holdings"] = _cards(p["holdings"], share_cards)
    for key in PLAYER_ID_LISTS:
        q[key] = p[key][:]
    for key in PLAYER_FLAT_LISTS:
        q[key] = _flat_list(p[key])
    for key in PLAYER_FLAT:
        q[key] = p[key].copy()
    return q


# ---------------------------------------------------------------- the rest of the state

PAIR_KEYS = frozenset(("status", "since"))
SIDE_KEYS = frozenset(("talents", "per_turn", "areas", "claims", "votes"))
EXCHANGE_KEYS = frozenset(("give", "get"))
AGREEMENT_KEYS = frozenset(
    (
        "id",
        "parties",
        "signed",
        "year",
        "expires",
        "status",
        "terms",
        "tribute",
        "votes",
        "exchange",
        "breaker",
        "ended",
        "why",
    )
)
RELATIONS_KEYS = frozenset(("pairs", "hegemons", "coalitions", "agreements"))


def _side(side: dict[str, Any]) -> dict[str, Any]:
    s = side.copy()
    s["areas"] = side["areas"][:]
    s["claims"] = side["claims"][:]
    return s


def _agreement(ag: dict[str, Any]) -> dict[str, Any]:
    """grand.py's agreement record (docs/engine-contract.md, "relations")."""
    exchange = ag["exchange"]
    if (
        ag.keys() != AGREEMENT_KEYS
        or type(exchange) is not dict
        or exchange.keys() != EXCHANGE_KEYS
        or exchange["give"].keys() != SIDE_KEYS
        or exchange["get"].keys() != SIDE_KEYS
    ):
        copied: dict[str, Any] = copy_json(ag)
        return copied
    b = ag.copy()
    b["parties"] = ag["parties"][:]
    b["terms"] = ag["terms"][:]
    b["tribute"] = _flat_list(ag["tribute"])
    b["votes"] = _flat_list(ag["votes"])
    x = b["exchange"] = exchange.copy()
    x["give"] = _side(exchange["give"])
    x["get"] = _side(exchange["get"])
    return b


def copy_relations(rel: dict[str, Any], share_ended: bool = False) -> dict[str, Any]:
    """The relations by layout; with `share_ended` (``apply``'s copy), the records of
    agreements no longer in force are shared: only an agreement in force is ever
    changed (broken, voided, expired, cancelled: grand.py), an ended one is history."""
    if rel.keys() != RELATIONS_KEYS or any(
        pair.keys() != PAIR_KEYS for pair in rel["pairs"].values()
    ):
        copied: dict[str, Any] = copy_json(rel)
        return copied
    out = rel.copy()
    out["pairs"] = {k: pair.copy() for k, pair in rel["pairs"].items()}
    out["hegemons"] = rel["hegemons"][:]
    out["coalitions"] = {k: juniors[:] for k, juniors in rel["coalitions"].items()}
    out["agreements"] = [
        ag if share_ended and ag.get("status") != "in_force" else _agreement(ag)
        for ag in rel["agreements"]
    ]
    return out


FATE_KEYS = frozenset(("deck", "discard"))
MARKET_KEYS = frozenset(("row", "deck", "discard"))
SLOT_KEYS = frozenset(("card", "coins"))
COUNTERS_KEYS = frozenset(("pool", "out"))
HORDE_KEYS = frozenset(("strength", "target", "rode"))
USURPER_KEYS = frozenset(
    ("id", "name", "court", "areas", "rating", "language", "religion", "rebel_of", "since")
)
WORLD_KEYS = frozenset(("usurpers", "next_usurper", "acted", "hordes", "raid"))
GRAND_FLAT = ("offered", "heirless")
# grand_record.py's facts: refused and countered (from, to), defied (seat)
RECORD_KEYS = (
    frozenset(("fact", "from", "to", "turn", "round")),
    frozenset(("fact", "seat", "turn", "round")),
)


def copy_fate(fate: dict[str, Any]) -> dict[str, Any]:
    if fate.keys() != FATE_KEYS:
        copied: dict[str, Any] = copy_json(fate)
        return copied
    out = fate.copy()
    out["deck"] = _cards(fate["deck"])
    out["discard"] = _cards(fate["discard"])
    return out


def copy_market(market: dict[str, Any]) -> dict[str, Any]:
    if market.keys() != MARKET_KEYS or any(s.keys() != SLOT_KEYS for s in market["row"]):
        copied: dict[str, Any] = copy_json(market)
        return copied
    out = market.copy()
    out["row"] = _flat_list(market["row"])
    out["deck"] = market["deck"][:]
    out["discard"] = market["discard"][:]
    return out


def copy_counters(counters: dict[str, Any]) -> dict[str, Any]:
    if counters.keys() != COUNTERS_KEYS:
        copied: dict[str, Any] = copy_json(counters)
        return copied
    out = counters.copy()
    out["pool"] = counters["pool"][:]
    out["out"] = counters["out"][:]
    return out


def copy_world(world: dict[str, Any]) -> dict[str, Any]:
    """world.py's record: usurpers and hordes by layout, a waiting raid by ``marshal``."""
    if (
        world.keys() != WORLD_KEYS
        or any(h.keys() != HORDE_KEYS for h in world["hordes"].values())
        or any(u.keys() != USURPER_KEYS for u in world["usurpers"].values())
    ):
        copied: dict[str, Any] = copy_json(world)
        return copied
    out = world.copy()
    usurpers = {}
    for k, u in world["usurpers"].items():
        v = u.copy()
        v["areas"] = u["areas"][:]
        usurpers[k] = v
    out["usurpers"] = usurpers
    out["hordes"] = {k: h.copy() for k, h in world["hordes"].items()}
    acted, raid = world["acted"], world["raid"]
    out["acted"] = acted if acted is None else copy_json(acted)
    out["raid"] = raid if raid is None else copy_json(raid)
    return out


def copy_grand(grand: dict[str, Any]) -> dict[str, Any]:
    """grand.py's record: the maps of scalars (offered, heirless) and the record of
    refusals (`grand_record`) by layout, the pending offer and the rest by ``marshal``."""
    out = grand.copy()
    for key, value in grand.items():
        kind = type(value)
        if kind is dict:
            if key in GRAND_FLAT and all(type(v) is str or type(v) is int for v in value.values()):
                out[key] = value.copy()
            else:
                out[key] = copy_json(value)
        elif kind is list:
            if key == "record" and all(type(r) is dict and r.keys() in RECORD_KEYS for r in value):
                out[key] = _flat_list(value)
            else:
                out[key] = copy_json(value)
    return out


def _copy_players(players: list[dict[str, Any]], share_cards: bool = False) -> list[dict[str, Any]]:
    return [copy_player(p, share_cards) for p in players]


#: top-level key -> the copier by layout of its value, a dict (the players are a list)
SECTIONS: dict[str, Any] = {
    "areas": copy_areas,
    "grand": copy_grand,
    "relations": copy_relations,
    "fate": copy_fate,
    "market": copy_market,
    "counters": copy_counters,
    "world": copy_world,
}


def copy_state(state: State, share_cards: bool = False, share_areas: bool = False) -> State:
    """A deep copy of a whole state: the large parts by layout (`SECTIONS`), the
    small and rarely present ones (a parley, a request, the diplomatic phase's
    record, the result) by ``marshal``. A state that is not of the engine's shape
    where the layout looks (a list where a record should be) is copied whole by
    ``marshal``, as any state was before: the copy never raises what it did not.

    With `share_cards` (``apply``'s copy), the players' card records of exactly the
    card's keys (``{"id", "kind", "ref"}``, in decks, hands and holdings) are shared
    with `state`, their lists copied: no rule changes a card once it is made, it only
    moves between lists (docs/engine-contract.md, "State"; tests/engine_properties/test_card_sharing.py
    holds it over whole games). A third of a copy's work was copying them. The records
    of agreements that ended are shared too: no rule changes one.

    With `share_areas` (``apply``'s copy too), the map is a new dict of the same area
    records: the move copies a record before it first changes it (``core.own_area``,
    under ``memo.areas_on_write``), so the records it does not touch, most of the map,
    are never copied. The map was half of a copy's work."""
    try:
        return _copy_state(state, share_cards, share_areas)
    except (AttributeError, TypeError, KeyError):
        copied: State = copy_json(state)
        return copied


def _copy_state(state: State, share_cards: bool = False, share_areas: bool = False) -> State:
    st = state.copy()
    for key, value in state.items():
        kind = type(value)
        if kind is dict:
            if share_areas and key == "areas":
                st[key] = value.copy()
                continue
            if share_cards and key == "relations":
                st[key] = copy_relations(value, share_ended=True)
                continue
            copier = SECTIONS.get(key)
            st[key] = copy_json(value) if copier is None else copier(value)
        elif kind is list:
            st[key] = _copy_players(value, share_cards) if key == "players" else copy_json(value)
    return st
