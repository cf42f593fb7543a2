"""Fate cards, the emperor's mortality, succession and holding cards
(docs/rules.md 19)."""

from __future__ import annotations

from typing import Any

from app.engine import rng
from app.engine.core import (
    State,
    clamp_popularity,
    emit,
    faith_allows_claim,
    geo,
    has_ability,
    name,
    own_area,
    owned,
    player,
    seat_of_power,
)
from app.engine.deck import add_burden, new_card, rebuild_for_heir
from app.engine.grand import on_heirless
from app.engine.inheritance import inherit, inheritable
from app.engine.market import drop_leftmost
from app.engine.nomads import fate_raid
from app.engine.nomads import frontier as horde_frontier
from app.engine.ownership import claim_possible
from app.engine.rules import MORTALITY_AT, age_modifier
from app.engine.usurpers import heirless_unrest


def ruler_emperor(ruler_id: str, year: int, reigning: bool = False) -> dict[str, Any]:
    """An emperor record from rulers.json (19.32). An heir comes to the throne at his
    historical age of accession (the game's calendar may run ahead of or behind
    history); the emperor reigning when a scenario opens is as old as he was that year."""
    g = geo()
    r = g.rulers[ruler_id]
    born = r.get("born")
    start = r.get("reign_start")
    if isinstance(born, int) and reigning:
        age = year - born
    elif isinstance(born, int) and isinstance(start, int):
        age = start - born
    else:
        age = int(r.get("age_at_accession", 35))
    return {
        "ruler": ruler_id,
        "name": r["name"],
        "age": max(12, age),
        "reign_years": 0,
        "statures": {k: int(v) for k, v in r["statures"].items()},
        "language": r.get("language"),
        "religion": r.get("religion"),
    }


def draw_fate(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    """19.1: at the end of each player turn the player draws a Fate card."""
    g = geo()
    fate = state["fate"]
    if not fate["deck"]:
        fate["deck"] = list(fate["discard"])
        fate["discard"] = []
        rng.shuffle(state, fate["deck"])
        if not fate["deck"]:
            return
    card = fate["deck"].pop(0)
    info = g.fate.get(card["ref"], {})
    if info.get("kind") == "holding":
        player(state, seat)["holdings"].append(card)
        emit(state, events, f"{name(state, seat)} draws a Fate holding card.", "19.4", "fate")
        emit(
            state,
            events,
            f"You draw the holding card {info.get('name')}: {info.get('text')}",
            "19.4",
            "fate",
            to=[seat],
            data={"card": card},
        )
        return
    emit(
        state,
        events,
        f"Fate for {name(state, seat)}: {info.get('name')} — {info.get('text')}",
        "19.2",
        "fate",
        data={"card": card["ref"]},
    )
    fate["discard"].append(card)
    resolve_event(state, seat, info.get("effect", {}), events)


def _pick_areas(state: State, seat: int, n: int, exclude_court: bool = False) -> list[str]:
    cands = owned(state, seat)
    if exclude_court:
        cands = [a for a in cands if a != player(state, seat)["court"]]
    picked: list[str] = []
    while cands and len(picked) < n:
        picked.append(cands.pop(rng.below(state, len(cands))))
    return picked


def frontier(state: State, seat: int) -> list[str]:
    """24.11: the seat's areas within some horde's reach."""
    return horde_frontier(state, seat)


def raid(state: State, seat: int, amount: int, events: list[dict[str, Any]]) -> None:
    """24.15: a Fate raid falls on the seat's frontier unless tribute was paid (24.2)."""
    fate_raid(state, seat, amount, events)


def resolve_event(
    state: State, seat: int, eff: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    g = geo()
    op = eff.get("op")
    p = player(state, seat)
    if op == "mortality":
        mortality_check(state, seat, int(eff.get("modifier", 0)), events, "fate")
    elif op == "death":
        if p["emperor"]["age"] >= int(eff.get("min_age", 60)):
            die(state, seat, events, "fate")
        else:
            mortality_check(state, seat, 0, events, "fate")
    elif op == "heirless":
        die(state, seat, events, "fate", heirless=not has_ability(state, seat, "designated_heir"))
    elif op == "plague":
        for a in _pick_areas(state, seat, int(eff.get("areas", 1))):
            area = own_area(state, a)
            area["social"] = max(-3, area["social"] - 1)
            emit(
                state,
                events,
                f"Plague in {g.areas[a]['name']}: it loses a social level.",
                "19.2",
                "social",
            )
        add_burden(state, seat, "plague")
    elif op == "barbarian_raid":
        raid(state, seat, int(eff.get("amount", 1)), events)  # 24.15
    elif op == "popularity":
        p["popularity"] += int(eff.get("amount", 1))
    elif op == "influence":
        p["influence"] += int(eff.get("amount", 1))
    elif op == "talents":
        p["talents"] += int(eff.get("amount", 1))
    elif op == "add_burden":
        add_burden(state, seat, str(eff.get("burden", "corruption")))
    elif op == "unrest":
        for a in _pick_areas(state, seat, int(eff.get("areas", 1)), exclude_court=True):
            own_area(state, a)["unrest"] = True
            emit(state, events, f"{g.areas[a]['name']} enters unrest.", "19.2", "unrest")
    elif op == "social":
        for a in _pick_areas(state, seat, int(eff.get("areas", 1))):
            area = own_area(state, a)
            area["social"] = max(-3, min(3, area["social"] + int(eff.get("amount", 1))))
            emit(
                state,
                events,
                f"{g.areas[a]['name']} is now at social state {area['social']}.",
                "19.2",
                "social",
            )
    elif op == "refill_counters":
        c = state["counters"]
        c["pool"] = sorted(c["pool"] + c["out"])
        c["out"] = []
    elif op == "market_shift":
        drop_leftmost(state, events)
    clamp_popularity(p)


def mortality_check(
    state: State, seat: int, modifier: int, events: list[dict[str, Any]], cause: str
) -> bool:
    """19.31: 2d6 + modifier + age modifier; 12 or more and the emperor dies."""
    p = player(state, seat)
    e = p["emperor"]
    a, b = rng.die(state), rng.die(state)
    total = a + b + modifier + age_modifier(e["age"])
    dies = total >= MORTALITY_AT
    emit(
        state,
        events,
        f"Mortality check for {e['name']} (age {e['age']}, {cause}): {a}+{b}{modifier:+d}{age_modifier(e['age']):+d} = {total}: {'dies' if dies else 'survives'}.",
        "19.31",
        "mortality",
    )
    if dies:
        die(state, seat, events, cause)
    return dies


def die(
    state: State, seat: int, events: list[dict[str, Any]], cause: str, heirless: bool | None = None
) -> None:
    """19.32: the emperor dies; the heir succeeds. 19.33: heirless deaths break the line."""
    g = geo()
    p = player(state, seat)
    dead = p["emperor"]
    if heirless is None:
        a, b = rng.die(state), rng.die(state)
        heirless = a + b <= 3 and not has_ability(state, seat, "designated_heir")
    for ref in [
        h
        for h in p["in_play"]
        if g.fate.get(h, {}).get("effect", {}).get("op") == "designated_heir"
    ][:1]:
        p["in_play"].remove(ref)  # 19.46: used up, back to the Fate discard pile
        state["fate"]["discard"].append(new_card(state, "fate", ref))
    line = p["dynasty"]
    idx = p["dynasty_index"] + 1
    if idx < len(line):
        heir = ruler_emperor(line[idx], state["year"])
        p["dynasty_index"] = idx
    else:
        heir = {
            "ruler": None,
            "name": f"a usurper of {p['name']}",
            "age": 35,
            "reign_years": 0,
            "statures": {k: 2 for k in dead["statures"]},
            "language": dead["language"],
            "religion": dead["religion"],
        }
        heirless = True
    emit(
        state,
        events,
        f"{dead['name']} dies ({cause}) after {dead['reign_years']} years on the throne. {heir['name']} succeeds.",
        "19.32",
        "death",
        data={"seat": seat, "dead": dead["ruler"], "heir": heir["ruler"]},
    )
    p["fallen"].append(
        {"ruler": dead["ruler"], "name": dead["name"], "reign_years": dead["reign_years"]}
    )
    p["emperor"] = heir
    p["influence"] += p["popularity"]  # 19.32: popularity turns into influence
    p["popularity"] = 2
    rebuild_for_heir(state, seat)
    if heirless:
        for a_id, area in list(state["areas"].items()):  # 19.33 and 12.43
            if seat in area["ties"]:
                own_area(state, a_id)["ties"].remove(seat)
        add_burden(state, seat, "pretender")
        for ref in [
            h for h in p["in_play"] if g.fate.get(h, {}).get("effect", {}).get("op") == "demesne"
        ]:
            p["in_play"].remove(ref)  # 19.42: the demesne does not pass to a broken line
            state["fate"]["discard"].append(new_card(state, "fate", ref))
            emit(
                state,
                events,
                f"{g.fate[ref]['name']} is lost with the line of {p['name']}.",
                "19.42",
                "death",
            )
        p["accursed"] = False  # 22.14
        on_heirless(state, seat, events)  # 20.3, 20.43
        p["usurped"] += 1
        emit(
            state,
            events,
            f"The line of {p['name']} is broken: every tie is lost and a Pretender burden enters the deck.",
            "19.33",
            "death",
        )
        heirless_unrest(state, seat, events)  # 19.34


# ---------------------------------------------------------------- holdings (19.4)


def holding_actions(state: State, seat: int, step: str) -> list[dict[str, Any]]:
    """19.4: the holding cards a seat may play now, with their targets."""
    g = geo()
    p = player(state, seat)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for card in p["holdings"]:
        ref = card["ref"]
        if ref in seen:
            continue  # identical copies give identical actions: list the first
        seen.add(ref)
        op = g.fate.get(ref, {}).get("effect", {}).get("op")
        cid = card["id"]
        if step == "drawn":
            if op == "redraw_counter" and not p["redraw"]:
                out.append({"type": "play", "card": cid})
            continue
        if op == "recognition_of_claim":
            for a in owned(state, seat):
                if claim_possible(state, seat, a):
                    out.append({"type": "play", "card": cid, "target": a})
        elif op == "dynastic_inheritance":
            for a, area in sorted(state["areas"].items()):
                if seat in area["ties"] and (
                    (seat not in area["claims"] and faith_allows_claim(state, seat, a))  # 18.12
                    or inheritable(state, seat, a)  # 20.43
                ):
                    out.append({"type": "play", "card": cid, "target": a})
        elif op == "diplomatic_coup":
            for a, area in sorted(state["areas"].items()):
                for other in area["ties"]:
                    if other != seat:
                        out.append(
                            {
                                "type": "play",
                                "card": cid,
                                "target": a,
                                "power": state["players"][other]["power"],
                            }
                        )
        elif op in (
            "military_innovation",
            "demesne",
            "missionary_fervor",
            "designated_heir",
            "treasure",
            "extra_year_now",
        ):
            out.append({"type": "play", "card": cid})
    return out


def play_holding(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    g = geo()
    p = player(state, seat)
    card = next(c for c in p["holdings"] if c["id"] == action["card"])
    p["holdings"].remove(card)
    info = g.fate[card["ref"]]
    eff = info["effect"]
    op = eff["op"]
    target = action.get("target")
    emit(
        state,
        events,
        f"{name(state, seat)} plays {info['name']}.",
        "19.4",
        "holding",
        data={"card": card["ref"], "target": target},
    )
    if op in ("military_innovation", "demesne", "missionary_fervor", "designated_heir"):
        p["in_play"].append(card["ref"])  # lasting: kept face up
        return
    state["fate"]["discard"].append(card)
    areas = state["areas"]
    if op == "recognition_of_claim" and target:
        own_area(state, target)["claims"].append(seat)  # 18 P2.3 / P3.1
        emit(
            state,
            events,
            f"{name(state, seat)} gains a claim to {g.areas[target]['name']}.",
            "18.23",
            "claim",
        )
    elif op == "dynastic_inheritance" and target:
        if seat not in areas[target]["claims"] and faith_allows_claim(state, seat, target):
            own_area(state, target)["claims"].append(seat)  # 18 P4
            emit(
                state,
                events,
                f"{name(state, seat)} gains a claim to {g.areas[target]['name']} by dynastic inheritance.",
                "18.25",
                "claim",
            )
        inherit(state, seat, target, events)  # 20.43: another player's area passes, contested
    elif op == "diplomatic_coup" and target:
        other = seat_of_power(state, action["power"])
        if other is not None and other in areas[target]["ties"]:
            own_area(state, target)["ties"].remove(other)
            emit(
                state,
                events,
                f"{name(state, other)}'s tie with {g.areas[target]['name']} is broken.",
                "12.43",
                "tie",
            )
    elif op == "treasure":
        p["talents"] += int(eff.get("amount", 3))
    elif op == "extra_year_now":
        p["years_left"] += 1
    elif op == "redraw_counter":
        p["redraw"] = True


def new_fate_deck(state: State) -> list[dict[str, Any]]:
    g = geo()
    cards = []
    for fid, info in sorted(g.fate.items()):
        for _ in range(int(info.get("copies", 1))):
            cards.append(new_card(state, "fate", fid))
    rng.shuffle(state, cards)
    return cards
