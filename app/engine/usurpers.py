"""Usurpers, EMA's magnates (docs/rules.md 17.5-17.57): raised by crushing
rebellions, they hold a court and a rating, act at the end of every round
(stir rebellion among areas of their culture, or sway and conquer their
neighbours), fall when their court is taken, and can be bought off. An exile may
take a usurper's area (21.31). An heirless death stirs unrest (19.34).

This module holds what they do: act (17.52-17.54), be bought off (17.56, 21.31),
and the heirless unrest (19.34). Below it, so that a change of hands or a
rebellion can reach them without a circle of imports: their records, an area
joining or lost (17.53, 17.57) in `usurper_records`; a rebellion raising one
(17.5, 21.31) in `economy.raise_usurper`. All are re-exported here.

Their numbers are content (``world.json``, ``usurpers`` and ``heirless``); their
records live in ``state["world"]["usurpers"]`` (``world.py``) and each of their
areas names its usurper (``areas[a]["usurper"]``).
"""

from __future__ import annotations

from typing import Any

from app.engine import overreach, rng
from app.engine.core import State, emit, geo, name, own_area, owned, player
from app.engine.economy import raise_usurper, rebellion_check, rebellion_terms
from app.engine.ownership import change_owner
from app.engine.usurper_records import (
    _cap,
    _same_culture,
    area_lost,
    courts,
    join,
    of_area,
    population,
    price,
    usurpers,
    view,
)
from app.engine.world import knobs, world

Term = dict[str, Any]
Event = dict[str, Any]


# ---------------------------------------------------------------- acting (17.52-17.54)


def act(state: State, events: list[Event]) -> None:
    """17.52: at the end of each round, before the hordes ride and the emperors age,
    each usurper in the order of his rising rolls a die: up to `stir_first` he stirs
    rebellion (17.53) first, else he expands (17.54) first; with no target for the
    one he does the other."""
    w = world(state)
    stamp = [state["turn"], state["round"]]
    if w["acted"] == stamp:
        return
    w["acted"] = stamp
    first = int(knobs("usurpers")["stir_first"])
    for uid in sorted(usurpers(state), key=lambda x: int(x[1:])):
        if uid not in usurpers(state):
            continue  # fell this round
        roll = rng.die(state)
        order = (_stir, _expand) if roll <= first else (_expand, _stir)
        for step in order:
            if step(state, uid, events):
                break
    overreach.check(state, events)  # 4.9


def _neighbours(state: State, u: dict[str, Any]) -> list[str]:
    g = geo()
    out: set[str] = set()
    for a in u["areas"]:
        out |= g.land.get(a, set())
    return sorted(out - set(u["areas"]))


def _stir(state: State, uid: str, events: list[Event]) -> bool:
    """17.53: the usurper stirs the player's area of his culture next to his own that is
    likeliest to rebel (not a court); it makes a rebellion check with his agitation
    added (12.42: the world's checks ask no one to waive a tie). On a rebellion the
    area joins him."""
    g = geo()
    u = usurpers(state)[uid]
    areas = state["areas"]
    player_courts = {p["court"] for p in state["players"]}
    cands = [
        a
        for a in _neighbours(state, u)
        if areas[a]["owner"] is not None and a not in player_courts and _same_culture(state, u, a)
    ]
    if not cands:
        return False
    target = max(
        cands,
        key=lambda a: (
            sum(int(t["value"]) for t in rebellion_terms(state, areas[a]["owner"], a, 0)),
            a,
        ),
    )
    owner = areas[target]["owner"]
    emit(
        state,
        events,
        f"{_cap(u['name'])} stirs rebellion in {g.areas[target]['name']} ({name(state, owner)}).",
        "17.53",
        "usurper",
        data={"usurper": uid, "area": target, "owner": owner, "event": "stir"},
    )
    agitation = int(knobs("usurpers")["agitation"])
    extra = [{"term": "the usurper's agitation", "value": agitation, "rule": "17.53"}]
    rebellion_check(state, owner, target, 0, events, rule="17.53", extra=extra, join=uid)
    return True


def _expand(state: State, uid: str, events: list[Event]) -> bool:
    """17.54: the usurper turns on the richest neighbour that is independent (no other
    usurper's) or a player's area in unrest (not a court). One of his culture he
    sways; another he conquers. Die + rating, less the culture difference and the
    owner's Diplomacy (sway) or less its fortifications and the owner's Military
    (conquest), reaching `expand_at` takes it."""
    g = geo()
    k = knobs("usurpers")
    u = usurpers(state)[uid]
    if len(u["areas"]) >= int(k["max_areas"]):
        return False
    areas = state["areas"]
    player_courts = {p["court"] for p in state["players"]}
    cands = [
        a
        for a in _neighbours(state, u)
        if (areas[a]["owner"] is None and areas[a]["usurper"] is None)
        or (areas[a]["owner"] is not None and areas[a]["unrest"] and a not in player_courts)
    ]
    if not cands:
        return False
    target = max(
        cands,
        key=lambda a: (int(g.areas[a].get("population", 1)) + int(areas[a]["social"]), a),
    )
    area = own_area(state, target)
    owner = area["owner"]
    sway = _same_culture(state, u, target)
    terms: list[Term] = [{"term": f"{u['name']}'s rating", "value": u["rating"], "rule": "17.54"}]
    if sway:
        diff = g.language_diff(u["language"], area["language"]) + g.religion_diff(
            u["religion"], area["religion"]
        )
        if diff:
            terms.append({"term": "culture difference", "value": -diff, "rule": "17.54"})
        if owner is not None:
            stature = int(player(state, owner)["emperor"]["statures"].get("diplomacy", 0))
            terms.append({"term": "the owner's Diplomacy", "value": -stature, "rule": "12.17"})
    else:
        if area["fort"]:
            terms.append({"term": "fortifications", "value": -int(area["fort"]), "rule": "14.31"})
        if owner is not None:
            stature = int(player(state, owner)["emperor"]["statures"].get("military", 0))
            terms.append({"term": "the owner's Military", "value": -stature, "rule": "13.21"})
    die = rng.die(state)
    total = die + sum(int(t["value"]) for t in terms)
    took = total >= int(k["expand_at"])
    what = "sways" if sway else "attacks"
    emit(
        state,
        events,
        f"{_cap(u['name'])} {what} {g.areas[target]['name']} ({name(state, owner)}): "
        f"the die shows {die}, {total} in all: {'the area is taken' if took else 'it holds'}.",
        "17.54",
        "usurper",
        data={
            "usurper": uid,
            "area": target,
            "owner": owner,
            "event": "sway" if sway else "conquest",
            "die": die,
            "total": total,
            "terms": terms,
            "result": "taken" if took else "held",
        },
    )
    if not took:
        return True
    if owner is not None:
        change_owner(state, target, None, events, "usurper")
    if not sway:
        area["unrest"] = True
    join(state, uid, target)
    return True


# ---------------------------------------------------------------- buying off (17.56, 21.31)


def buy_off_options(state: State, seat: int) -> list[dict[str, Any]]:
    """17.56: in his turn a player may buy off a usurper whose area borders one of his
    (by land or across the sea, as in 10.12) or rebelled from him, paying his price.
    21.31: an exile may buy off a usurper of his own language or religion."""
    g = geo()
    p = player(state, seat)
    lead = p["emperor"]
    mine = owned(state, seat)
    near: set[str] = set(mine)
    for a in mine:
        near |= g.land.get(a, set()) | g.sea_near.get(a, set())
    out = []
    for uid in sorted(usurpers(state), key=lambda x: int(x[1:])):
        u = usurpers(state)[uid]
        if p["talents"] < price(state, u):
            continue
        if p["exiled"]:
            ok = lead["language"] == u["language"] or lead["religion"] == u["religion"]
        else:
            ok = any(a in near for a in u["areas"]) or any(
                state["areas"][a]["rebel_of"] == seat for a in u["areas"]
            )
        if ok:
            out.append({"type": "buy_off", "usurper": uid})
    return out


def buy_off(state: State, seat: int, action: dict[str, Any], events: list[Event]) -> None:
    """17.56: the buyer pays the price; the usurper retires and his areas pass to the
    buyer as by diplomacy (no unrest, fortifications kept: 12.31), his court first
    (21.3: an exile returns there)."""
    g = geo()
    u = usurpers(state)[action["usurper"]]
    cost = price(state, u)
    p = player(state, seat)
    p["talents"] -= cost
    exiled = p["exiled"]
    del usurpers(state)[u["id"]]
    for a in u["areas"]:
        own_area(state, a)["usurper"] = None
    emit(
        state,
        events,
        f"{name(state, seat)} buys off {u['name']} for {cost} talents: "
        + ", ".join(g.areas[a]["name"] for a in u["areas"])
        + " pass to them.",
        "21.31" if exiled else "17.56",
        "usurper",
        data={
            "usurper": u["id"],
            "seat": seat,
            "price": cost,
            "areas": list(u["areas"]),
            "event": "bought",
            "exile": exiled,
        },
    )
    for a in u["areas"]:
        change_owner(state, a, seat, events, "buy_off")


# ---------------------------------------------------------------- heirless (19.34)


def heirless_unrest(state: State, seat: int, events: list[Event]) -> None:
    """19.34: the line is broken and the realm wavers: `unrest_areas` of the power's
    areas (never the court), drawn by the generator, enter unrest; then every area of
    his in unrest, save the court, makes a rebellion check (17.3; no one is asked to
    waive a tie, 12.42)."""
    g = geo()
    p = player(state, seat)
    cands = [a for a in owned(state, seat) if a != p["court"] and not state["areas"][a]["unrest"]]
    n = int(knobs("heirless")["unrest_areas"])
    picked: list[str] = []
    while cands and len(picked) < n:
        picked.append(cands.pop(rng.below(state, len(cands))))
    for a in sorted(picked):
        own_area(state, a)["unrest"] = True
    emit(
        state,
        events,
        f"The broken line of {name(state, seat)} unsettles the realm"
        + (
            ": " + ", ".join(g.areas[a]["name"] for a in sorted(picked)) + " enter unrest."
            if picked
            else "."
        ),
        "19.34",
        "unrest",
        data={"seat": seat, "areas": sorted(picked), "event": "heirless"},
    )
    for a in owned(state, seat):
        area = state["areas"][a]
        if a != player(state, seat)["court"] and area["unrest"] and area["owner"] == seat:
            rebellion_check(state, seat, a, 0, events, rule="19.34")


# ---------------------------------------------------------------- the view


__all__ = [
    "act",
    "buy_off",
    "buy_off_options",
    "heirless_unrest",
    # the records and the rising, re-exported from the modules below
    "area_lost",
    "courts",
    "join",
    "of_area",
    "population",
    "price",
    "raise_usurper",
    "usurpers",
    "view",
]
