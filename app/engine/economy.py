"""Taxation, plunder, unrest and rebellion (docs/rules.md 16, 17)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from app.engine import rng
from app.engine import usurper_records as usurpers_
from app.engine.core import (
    Event,
    State,
    ability_sum,
    emit,
    geo,
    loc_costs,
    name,
    own_area,
    owned,
    player,
    seats,
)
from app.engine.deck import add_burden
from app.engine.grand import religion_gap
from app.engine.ownership import change_owner
from app.engine.rules import PLUNDER_TABLE, REBELLION_REVOLT_AT, REBELLION_UNREST_AT
from app.engine.world import knobs, world

Term = dict[str, Any]


def yield_bonus(state: State, area_id: str) -> int:
    g = geo()
    return sum(
        int(g.buildings[b]["effect"].get("amount", 1))
        for b in state["areas"][area_id]["buildings"]
        if g.buildings.get(b, {}).get("effect", {}).get("op") == "yield_bonus"
    )


def rebellion_terms(
    state: State,
    seat: int,
    area_id: str,
    demanded: int,
    waived: list[int] | None = None,
    extra: list[Term] | None = None,
) -> list[Term]:
    """17.2: the rebellion value of an area, term by term."""
    g = geo()
    area = state["areas"][area_id]
    lead = player(state, seat)["emperor"]
    terms: list[Term] = []
    if demanded:
        terms.append({"term": "talents demanded", "value": demanded, "rule": "16.16"})
    if area["unrest"]:
        terms.append({"term": "unrest", "value": 5, "rule": "17.21"})
    ld = g.language_diff(lead["language"], area["language"])
    rd, cursed = religion_gap(state, seat, g.religion_diff(lead["religion"], area["religion"]))
    if ld:
        terms.append({"term": "language difference", "value": ld, "rule": "17.22"})
    if rd:
        terms.append(
            {
                "term": "religion difference" + (" (accursed)" if cursed else ""),
                "value": rd,
                "rule": cursed or "17.23",
            }
        )
    if seat in area["ties"]:
        terms.append({"term": "your diplomatic tie", "value": -2, "rule": "12.42"})
    rivals = [s for s in area["ties"] if s != seat]
    if rivals and not all(s in (waived or []) for s in rivals):
        terms.append({"term": "rival diplomatic ties", "value": 2, "rule": "12.42"})
    if area["fort"]:
        terms.append({"term": "fortifications", "value": -int(area["fort"]), "rule": "14.32"})
    if seat in area["claims"]:
        terms.append({"term": "your claim", "value": -1, "rule": "17.24"})
    pop = player(state, seat)["popularity"]
    if pop <= 2:
        terms.append({"term": "low popularity", "value": 1, "rule": "17.25"})
    elif pop >= 8:
        terms.append({"term": "high popularity", "value": -1, "rule": "17.25"})
    enemy = sum(sum(b.values()) for b in area["partial"].values())
    if enemy:
        terms.append({"term": "enemy C results", "value": enemy, "rule": "17.27"})
    mod = ability_sum(state, seat, "rebellion_modifier")
    mod += sum(
        int(g.buildings[b]["effect"].get("amount", 0))
        for b in area["buildings"]
        if g.buildings.get(b, {}).get("effect", {}).get("op") == "rebellion_modifier"
    )
    if mod:
        terms.append({"term": "temples, laws and notables", "value": mod, "rule": "17.28"})
    terms += extra or []  # e.g. 17.53: a usurper's agitation
    return terms


def rebellion_odds(value: int) -> dict[str, float]:
    """17.3: 2d6 + value: 14+ rebellion, 11-13 unrest, else nothing."""
    return dict(_rebellion_odds(value))


@lru_cache(maxsize=256)
def _rebellion_odds(value: int) -> dict[str, float]:
    out = {"none": Fraction(0), "unrest": Fraction(0), "rebellion": Fraction(0)}
    for a in range(1, 7):
        for b in range(1, 7):
            t = a + b + value
            key = (
                "rebellion"
                if t >= REBELLION_REVOLT_AT
                else "unrest"
                if t >= REBELLION_UNREST_AT
                else "none"
            )
            out[key] += Fraction(1, 36)
    return {k: float(v) for k, v in out.items()}


#: 17.3's outcomes (the Unrest & Rebellion table) in the chronicle's words
REBELLION_WORDS = {
    "none": "it stays loyal",
    "unrest": "it enters unrest",
    "rebellion": "it rebels",
}


def rebellion_check(
    state: State,
    seat: int,
    area_id: str,
    demanded: int,
    events: list[dict[str, Any]],
    waived: list[int] | None = None,
    rule: str = "17.3",
    extra: list[Term] | None = None,
    join: str | None = None,
) -> str:
    """17.3: roll 2d6 on the Unrest & Rebellion table. Returns none | unrest | rebellion.
    ``extra`` terms join the rebellion value (17.53); a rebellion stirred by a usurper
    ``join``s him (17.53) instead of raising another (17.5)."""
    g = geo()
    terms = rebellion_terms(state, seat, area_id, demanded, waived, extra)
    value = sum(int(t["value"]) for t in terms)
    a, b = rng.die(state), rng.die(state)
    total = a + b + value
    if total >= REBELLION_REVOLT_AT:
        result = "rebellion"
    elif total >= REBELLION_UNREST_AT:
        result = "unrest"
    else:
        result = "none"
    emit(
        state,
        events,
        f"Rebellion check in {g.areas[area_id]['name']}: the dice show {a} and {b}, "
        f"{'plus' if value >= 0 else 'minus'} {abs(value)} for the area's rebellion value, "
        f"{total} in all: {REBELLION_WORDS[result]}.",
        rule,
        "rebellion",
        data={"area": area_id, "value": value, "dice": [a, b], "result": result, "terms": terms},
    )
    if result == "unrest":
        own_area(state, area_id)["unrest"] = True
    elif result == "rebellion":
        margin = int(knobs("usurpers")["margin"])
        revolt(
            state,
            seat,
            area_id,
            events,
            usurper=total >= REBELLION_REVOLT_AT + margin,
            join=join,
        )
    return result


def revolt(
    state: State,
    seat: int,
    area_id: str,
    events: list[dict[str, Any]],
    usurper: bool = False,
    join: str | None = None,
) -> None:
    """17.4: the area becomes independent; an Unrest burden enters the deck (5.7).
    17.5: a rebellion that beats the table by the usurpers' margin raises a usurper;
    17.53: one a usurper stirred joins him."""
    g = geo()
    change_owner(state, area_id, None, events, "rebellion")
    area = own_area(state, area_id)
    area["unrest"] = False
    area["rebel_of"] = seat
    add_burden(state, seat, "unrest")
    emit(
        state,
        events,
        f"{g.areas[area_id]['name']} rebels against {name(state, seat)} and becomes independent; an Unrest burden enters the deck.",
        "17.4",
        "rebellion",
    )
    if join is not None and join in usurpers_.usurpers(state):
        usurpers_.join(state, join, area_id)
        emit(
            state,
            events,
            f"{g.areas[area_id]['name']} goes over to {usurpers_.usurpers(state)[join]['name']}.",
            "17.53",
            "usurper",
            data={"usurper": join, "area": area_id, "owner": seat, "event": "rebellion"},
        )
    elif usurper:
        raise_usurper(state, area_id, seat, events)


def raise_usurper(state: State, area_id: str, rebel_of: int | None, events: list[Event]) -> None:
    """17.5: a usurper seizes a rebelling area. 21.31: if an exiled emperor has the
    area's very language and religion, the exile takes it instead and returns."""
    g = geo()
    area = state["areas"][area_id]
    for s in seats(state):
        p = player(state, s)
        lead = p["emperor"]
        if (
            p["exiled"]
            and lead["language"] == area["language"]
            and lead["religion"] == area["religion"]
        ):
            emit(
                state,
                events,
                f"{g.areas[area_id]['name']} rises for its exiled lord: {name(state, s)} takes it.",
                "21.31",
                "exile",
                data={"area": area_id, "seat": s, "via": "usurper"},
            )
            change_owner(state, area_id, s, events, "exile")
            return
    w = world(state)
    lo, hi = (int(x) for x in knobs("usurpers")["rating"])
    uid = f"u{w['next_usurper']}"
    w["next_usurper"] += 1
    rating = lo + rng.below(state, hi - lo + 1)
    u = {
        "id": uid,
        "name": f"the usurper of {g.areas[area_id]['name']}",
        "court": area_id,
        "areas": [area_id],
        "rating": rating,
        "language": area["language"],
        "religion": area["religion"],
        "rebel_of": rebel_of,
        "since": state["turn"],
    }
    usurpers_.usurpers(state)[uid] = u
    own_area(state, area_id)["usurper"] = uid
    emit(
        state,
        events,
        f"A usurper (rating {rating}) seizes {g.areas[area_id]['name']} and holds court there: "
        f"no diplomacy against his court (12.16), -5 against his other areas (12.20).",
        "17.5",
        "usurper",
        data={"usurper": uid, "area": area_id, "rating": rating, "event": "raised"},
    )


def tax_options(state: State, seat: int) -> list[dict[str, Any]]:
    """16.1-16.2: the tax and plunder actions open now."""
    p = player(state, seat)
    if p["exiled"] or p["tax_state"] == "closed":
        return []
    costs = loc_costs(state, seat)
    out: list[dict[str, Any]] = []
    for a in owned(state, seat):
        if a not in costs or a in p["taxed"]:
            continue  # 16.13, 16.15
        area = state["areas"][a]
        if area["social"] > 0:
            for amount in range(1, area["social"] + yield_bonus(state, a) + 1):
                out.append({"type": "tax", "area": a, "amount": amount})
        if area["social"] > -3:
            out.append({"type": "plunder", "area": a})  # 16.2
    return out


def open_segment(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    """16.14: the first tax or plunder of a turn opens the segment; demesnes and
    tax bonuses pay once per segment (19.42, 6.4)."""
    p = player(state, seat)
    if p["tax_state"] == "open":
        p["tax_state"] = "taxing"
        bonus = ability_sum(state, seat, "tax_bonus") + ability_sum(state, seat, "demesne")
        if bonus:
            p["talents"] += bonus
            emit(
                state,
                events,
                f"{name(state, seat)} collects {bonus} talents from demesnes and reforms.",
                "16.18",
                "gold",
            )


def close_tax(state: State, seat: int) -> None:
    """16.14: any other action ends a taxation segment once it has begun."""
    p = player(state, seat)
    if p["tax_state"] == "taxing":
        p["tax_state"] = "closed"  # 16.14


def do_tax(
    state: State,
    seat: int,
    area_id: str,
    amount: int,
    events: list[dict[str, Any]],
    waived: list[int],
) -> None:
    """16.1: tax an area; the court is taxed without a check (16.17)."""
    g = geo()
    p = player(state, seat)
    open_segment(state, seat, events)
    p["taxed"].append(area_id)
    if area_id == p["court"]:
        p["talents"] += amount
        emit(
            state,
            events,
            f"{name(state, seat)} taxes the court, {g.areas[area_id]['name']}, for {amount}.",
            "16.17",
            "tax",
        )
        return
    result = rebellion_check(state, seat, area_id, amount, events, waived, rule="16.1")
    if result == "rebellion":
        emit(state, events, "The tax is lost.", "16.1", "tax")
        return
    p["talents"] += amount
    emit(
        state,
        events,
        f"{name(state, seat)} taxes {g.areas[area_id]['name']} for {amount}.",
        "16.1",
        "tax",
    )


def do_plunder(
    state: State, seat: int, area_id: str, events: list[dict[str, Any]], waived: list[int]
) -> None:
    """16.2: plunder: -1 social; unrest, or a rebellion check at +3 if already in unrest."""
    g = geo()
    p = player(state, seat)
    open_segment(state, seat, events)
    p["taxed"].append(area_id)
    area = own_area(state, area_id)
    area["social"] = max(-3, area["social"] - 1)  # 16.22
    emit(
        state,
        events,
        f"{name(state, seat)} plunders {g.areas[area_id]['name']}; it loses a social level.",
        "16.22",
        "plunder",
    )
    if not area["unrest"]:
        area["unrest"] = True  # 16.23
        emit(state, events, f"{g.areas[area_id]['name']} enters unrest.", "16.23", "unrest")
    else:
        result = rebellion_check(state, seat, area_id, 3, events, waived, rule="16.231")
        if result == "rebellion":
            return
    roll = rng.die(state)
    gold = PLUNDER_TABLE[roll]
    p["talents"] += gold
    emit(state, events, f"The plunder yields {gold} talents (die {roll}).", "16.232", "gold")


def needs_check(state: State, seat: int, action: dict[str, Any]) -> bool:
    area = state["areas"][action["area"]]
    if action["type"] == "tax":
        return bool(action["area"] != player(state, seat)["court"])
    return bool(area["unrest"])


def check_after_waivers(
    state: State, seat: int, area_id: str, demanded: int, events: list[dict[str, Any]], rule: str
) -> None:
    """12.42: a rebellion check other than a levy's (e.g. a failed conversion, 22.2).

    Rivals with a tie to the area are asked first, before the dice; the check then runs
    when the last of them answers (``h_waive``). With no rival tie it runs at once.
    """
    ask = sorted(s for s in state["areas"][area_id]["ties"] if s != seat)
    if not ask:
        rebellion_check(state, seat, area_id, demanded, events, rule=rule)
        return
    state["request"] = {
        "kind": "waive",
        "seat": seat,
        "area": area_id,
        "check": {"demanded": demanded, "rule": rule},
        "ask": ask,
        "answers": {},
    }
    emit(
        state,
        events,
        f"A rebellion check in {geo().areas[area_id]['name']}: tie holders may waive (12.42).",
        "12.42",
        "request",
    )


def waiver_seats(state: State, seat: int, action: dict[str, Any]) -> list[int]:
    """12.42: rivals with ties to the area are asked before the dice are rolled."""
    if not needs_check(state, seat, action):
        return []
    return sorted(s for s in state["areas"][action["area"]]["ties"] if s != seat)
