"""Nomad hordes (docs/rules.md 24): their reach, the target each picks by wealth,
the raid at the end of the game turn's last round, the defense that answers it
(13) and the tribute priced against it (24.2).

The hordes and every number of their table are content (``world.json``,
``nomads``); the state keeps each horde's strength and threat (``world.py``).
All their dice come from the state's generator (2.3).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from app.engine import rng
from app.engine.core import (
    State,
    clamp_popularity,
    cx,
    emit,
    geo,
    name,
    own_area,
    owned,
    player,
)
from app.engine.defense import defense_cost, defense_terms
from app.engine.rules import MAX_EXTRA_TALENTS
from app.engine.world import hordes_of_pack, knobs, world

Term = dict[str, Any]
Event = dict[str, Any]

MAX_DEFENSES = 4  # 13.13


def horde_info(hid: str) -> dict[str, Any]:
    for h in hordes_of_pack():
        if h["id"] == hid:
            return h
    raise KeyError(hid)


def horde_ids(state: State) -> list[str]:
    """The hordes of the game in the pack's order: never the state dict's order, which
    a saved game (sorted keys) does not keep (2.3)."""
    hordes = world(state)["hordes"]
    return [h["id"] for h in hordes_of_pack() if h["id"] in hordes]


def hordes_in_order(state: State) -> list[tuple[str, dict[str, Any]]]:
    hordes = world(state)["hordes"]
    return [(hid, hordes[hid]) for hid in horde_ids(state)]


def horde_name(state: State, hid: str) -> str:
    """24.1: a horde goes by the name of the people leading it in the game's year."""
    info = horde_info(hid)
    current = str(info.get("name", hid))
    for since, label in info.get("names", []):
        if int(since) <= int(state["year"]):
            current = str(label)
    return current


def reach(state: State, hid: str) -> list[str]:
    """24.11: a horde's reach is every player's area in its homeland or linked to it by land.
    The homeland raids on whoever holds it: a seated steppe power too."""
    g = geo()
    home = [a for a in horde_info(hid).get("homeland", []) if a in g.areas]
    cands = set(home)
    for a in home:
        cands |= g.land.get(a, set())
    areas = state["areas"]
    return sorted(a for a in cands if areas[a]["owner"] is not None)


def frontier(state: State, seat: int) -> list[str]:
    """24.11: the seat's areas within some horde's reach."""
    mine = set(owned(state, seat))
    out: set[str] = set()
    for hid in horde_ids(state):
        out |= mine.intersection(reach(state, hid))
    return sorted(out)


def wealth(state: State, area_id: str) -> int:
    """24.12: what draws a horde: social state, population and buildings."""
    area = state["areas"][area_id]
    return (
        int(area["social"])
        + int(geo().areas[area_id].get("population", 1))
        + len(area["buildings"])
    )


def _richest(state: State, cands: list[str]) -> str | None:
    if not cands:
        return None
    best = max(wealth(state, a) for a in cands)
    tied = [a for a in cands if wealth(state, a) == best]
    return tied[rng.below(state, len(tied))] if len(tied) > 1 else tied[0]


def choose_targets(state: State, events: list[Event]) -> None:
    """24.12: at the start of each game turn every horde picks the richest area in its
    reach (ties by the generator) and everyone sees the threat."""
    g = geo()
    for hid, h in hordes_in_order(state):
        h["target"] = _richest(state, reach(state, hid))
        if h["target"] is None:
            continue
        owner = state["areas"][h["target"]]["owner"]
        emit(
            state,
            events,
            f"The {horde_name(state, hid)} (strength {h['strength']}) gather against "
            f"{g.areas[h['target']]['name']} ({name(state, owner)}).",
            "24.12",
            "nomads",
            data={
                "horde": hid,
                "target": h["target"],
                "owner": owner,
                "strength": h["strength"],
                "threat": True,
            },
        )


def threats(state: State, seat: int) -> list[str]:
    """The hordes whose target this game turn is one of the seat's areas."""
    areas = state["areas"]
    return [
        hid
        for hid, h in hordes_in_order(state)
        if h["target"] is not None
        and areas[h["target"]]["owner"] == seat
        and h["rode"] != state["turn"]
    ]


# ---------------------------------------------------------------- tribute (24.2)


def tribute_open(state: State, seat: int) -> bool:
    """24.2: tribute is offered to a power with an area in some horde's reach that has
    not paid this game turn."""
    p = player(state, seat)
    return p["tribute_turn"] != state["turn"] and bool(frontier(state, seat))


def tribute_price(state: State, seat: int) -> int:
    """24.2: per_strength x the strength of the hordes threatening the seat, rounded up;
    at least `min` (Fate raids threaten any frontier)."""
    k = knobs("nomads")["tribute"]
    hordes = world(state)["hordes"]
    strength = sum(int(hordes[h]["strength"]) for h in threats(state, seat))
    per = Fraction(str(k.get("per_strength", 0.5)))
    return max(int(k.get("min", 1)), math.ceil(per * strength))


# ---------------------------------------------------------------- the raid (24.13)


def raid_terms(state: State, hid: str, area_id: str) -> list[Term]:
    """24.13: the horde's rating: its strength less the area's fortifications (14.31)."""
    h = world(state)["hordes"][hid]
    terms: list[Term] = [
        {
            "term": f"the {horde_name(state, hid)}' strength",
            "value": int(h["strength"]),
            "rule": "24.13",
        }
    ]
    fort = int(state["areas"][area_id]["fort"])
    if fort:
        terms.append({"term": "fortifications", "value": -fort, "rule": "14.31"})
    return terms


def raid_result(total: int) -> str:
    t = knobs("nomads")["raid"]
    if total >= int(t["sack_at"]):
        return "sack"
    if total >= int(t["raid_at"]):
        return "raid"
    return "none"


RESULT_TEXT = {
    "sack": "sacked: a social level lost and unrest",
    "raid": "raided: a social level lost",
    "none": "the horde rides home empty-handed",
}


def raid_odds(rating: int) -> dict[str, float]:
    """24.13: the chance of each result of rating + one die."""
    return dict(_raid_odds(cx().hash, rating))


@lru_cache(maxsize=256)
def _raid_odds(pack: str, rating: int) -> tuple[tuple[str, float], ...]:
    """`raid_odds` once per pack (``pack``, its hash: the table is the pack's) and rating."""
    out = {"none": Fraction(0), "raid": Fraction(0), "sack": Fraction(0)}
    for d in range(1, 7):
        out[raid_result(rating + d)] += Fraction(1, 6)
    return tuple((k, float(v)) for k, v in out.items())


def can_defend(state: State, seat: int, area_id: str) -> bool:
    """13.11-13.14 for a raid: a year left, fewer than four defenses, and the talents
    for 1 + the sea costs to the area."""
    d = player(state, seat)
    if d["exiled"] or d["years_left"] < 1 or d["defenses"] >= MAX_DEFENSES:
        return False
    cost = defense_cost(state, seat, area_id)
    return cost is not None and d["talents"] >= cost


def ride(state: State, events: list[Event]) -> bool:
    """24.13: at the end of the game turn's last round, before the emperors age, each
    horde with a target rides in the pack's order. Returns False while a raid waits
    for its defender (the end of the round goes on after the answer)."""
    w = world(state)
    if w["raid"] is not None:
        return False
    g = geo()
    for hid, h in hordes_in_order(state):
        if h["rode"] == state["turn"]:
            continue
        h["rode"] = state["turn"]
        target = h["target"]
        if target is None or target not in reach(state, hid):
            h["target"] = target = _richest(state, reach(state, hid))  # 24.12: the target is gone
        if target is None:
            continue
        owner = state["areas"][target]["owner"]
        if player(state, owner)["tribute_turn"] == state["turn"]:
            emit(
                state,
                events,
                f"The {horde_name(state, hid)} keep the peace: {name(state, owner)} paid tribute.",
                "24.2",
                "nomads",
                data={"horde": hid, "target": target, "owner": owner, "result": "tribute"},
            )
            continue
        terms = raid_terms(state, hid, target)
        total = sum(int(t["value"]) for t in terms)
        if can_defend(state, owner, target):
            w["raid"] = {
                "horde": hid,
                "area": target,
                "defender": owner,
                "rating": total,
                "terms": terms,
            }
            emit(
                state,
                events,
                f"The {horde_name(state, hid)} ride against {g.areas[target]['name']} with rating "
                f"{total}; {name(state, owner)} may defend.",
                "24.13",
                "interrupt",
                data={"horde": hid, "target": target, "owner": owner, "rating": total},
            )
            return False
        resolve_raid(state, hid, target, total, terms, None, events)
    return True


def resolve_raid(
    state: State,
    hid: str,
    area_id: str,
    total: int,
    terms: list[Term],
    defender: int | None,
    events: list[Event],
    rule: str = "24.13",
) -> str:
    """24.13: roll a die on the raid table. 24.14: a sack makes the horde stronger; a
    defended raid that comes to nothing throws it back and wins the defender popularity."""
    g = geo()
    k = knobs("nomads")["raid"]
    h = world(state)["hordes"][hid]
    info = horde_info(hid)
    die = rng.die(state)
    final = total + die
    result = raid_result(final)
    area = own_area(state, area_id)
    owner = area["owner"]
    hname = horde_name(state, hid)
    emit(
        state,
        events,
        f"The {hname} raid {g.areas[area_id]['name']} ({name(state, owner)}) at rating {total}; "
        f"the die shows {die}, so the final rating is {final}: {RESULT_TEXT[result]}.",
        rule,
        "nomads",
        data={
            "horde": hid,
            "target": area_id,
            "owner": owner,
            "rating": total,
            "die": die,
            "final": final,
            "result": result,
            "terms": terms,
            "defended": defender is not None,
        },
    )
    if result in ("sack", "raid"):
        area["social"] = max(-3, area["social"] - 1)
        if result == "sack" and not area["unrest"]:
            area["unrest"] = True
            emit(state, events, f"{g.areas[area_id]['name']} enters unrest.", rule, "unrest")
        if result == "sack":  # 24.14: a sack swells the horde
            grown = min(int(info.get("max_strength", 9)), int(h["strength"]) + int(k["growth"]))
            h["strength"] = grown
    elif defender is not None:
        h["strength"] = max(
            int(info.get("min_strength", 1)), int(h["strength"]) - int(k["setback"])
        )
        d = player(state, defender)
        d["popularity"] += int(k["victory_popularity"])
        clamp_popularity(d)
        emit(
            state,
            events,
            f"{name(state, defender)} throws back the {hname}: popularity "
            f"+{k['victory_popularity']}, their strength falls to {h['strength']}.",
            "24.14",
            "nomads",
            data={"horde": hid, "defender": defender, "result": "repulsed"},
        )
    return result


def pending_raid(state: State) -> dict[str, Any] | None:
    raid: dict[str, Any] | None = state["world"]["raid"]
    return raid


def prompt(state: State) -> dict[str, Any]:
    """The defender's prompt (13.0 for a raid): public, like every prompt."""
    raid = world(state)["raid"]
    return {
        "seat": raid["defender"],
        "kind": "defend",
        "label": f"The {horde_name(state, raid['horde'])} ride against "
        f"{geo().areas[raid['area']]['name']}: defend?",
        "attacker": None,
        "horde": raid["horde"],
        "area": raid["area"],
        "endeavour": "raid",
        "rating": raid["rating"],
    }


def defend_actions(state: State, seat: int) -> list[dict[str, Any]]:
    raid = world(state)["raid"]
    p = player(state, seat)
    cost = defense_cost(state, seat, raid["area"]) or 1
    top = max(0, min(MAX_EXTRA_TALENTS, p["talents"] - cost))
    return [{"type": "defend", "talents": t} for t in range(top + 1)] + [{"type": "decline"}]


def answer(state: State, seat: int, action: dict[str, Any], events: list[Event]) -> None:
    """13.2 against a horde: the defender spends a year and talents; Military, extra
    talents and defense abilities lower the horde's rating (13.21)."""
    w = world(state)
    raid = w["raid"]
    w["raid"] = None
    terms, total = list(raid["terms"]), int(raid["rating"])
    defender: int | None = None
    if action["type"] == "defend":
        d = player(state, seat)
        cost = defense_cost(state, seat, raid["area"]) or 1
        d["talents"] -= cost + action["talents"]
        d["years_left"] -= 1
        d["defenses"] += 1
        dterms = defense_terms(state, seat, action["talents"])
        terms += dterms
        total += sum(int(t["value"]) for t in dterms)
        defender = seat
        emit(
            state,
            events,
            f"{name(state, seat)} defends against the {horde_name(state, raid['horde'])}: "
            f"the rating falls to {total}.",
            "13.21",
            "defense",
            data={"horde": raid["horde"], "area": raid["area"]},
        )
    else:
        emit(state, events, f"{name(state, seat)} does not defend.", "13.0", "defense")
    resolve_raid(state, raid["horde"], raid["area"], total, terms, defender, events)


def explain_answer(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """`explain` of defend / decline against a raid: the rating after the defense and
    the odds of each result."""
    raid = world(state)["raid"]
    talents = action.get("talents", 0) if action.get("type") == "defend" else 0
    dterms = defense_terms(state, seat, talents) if action.get("type") == "defend" else []
    after = int(raid["rating"]) + sum(int(t["value"]) for t in dterms)
    cost = (defense_cost(state, seat, raid["area"]) or 1) + talents if dterms else 0
    odds = raid_odds(after)
    return {
        "type": action.get("type"),
        "kind": "raid",
        "rule": "24.13",
        "attacker_rating": raid["rating"],
        "terms": dterms,
        "rating": after,
        "cost": cost,
        "odds": odds,
        "results": {k: RESULT_TEXT[k] for k in odds},
    }


def fate_raid(state: State, seat: int, amount: int, events: list[Event]) -> None:
    """19.2 / 24.15: a Fate raid: the strongest horde with the seat's areas in its reach
    falls on the richest of them at once, `amount` times; no defense (it comes at the
    end of the turn, unannounced), but tribute keeps it away (24.2)."""
    p = player(state, seat)
    if p["tribute_turn"] == state["turn"]:
        emit(
            state,
            events,
            f"The nomads keep the peace: {name(state, seat)} paid tribute.",
            "24.2",
            "nomads",
            data={"owner": seat, "result": "tribute"},
        )
        return
    hordes = world(state)["hordes"]
    mine = set(owned(state, seat))
    near = [(hid, [a for a in reach(state, hid) if a in mine]) for hid in horde_ids(state)]
    near = [(hid, areas) for hid, areas in near if areas]
    if not near:
        emit(state, events, f"No horde can reach {name(state, seat)}.", "24.15", "nomads")
        return
    hid, areas = max(near, key=lambda x: int(hordes[x[0]]["strength"]))
    for _ in range(amount):
        target = _richest(state, areas)
        if target is None:
            return
        terms = raid_terms(state, hid, target)
        resolve_raid(
            state, hid, target, sum(int(t["value"]) for t in terms), terms, None, events, "24.15"
        )


# ---------------------------------------------------------------- the view


def view(state: State) -> list[dict[str, Any]]:
    """24: every horde, its strength and its threat, with the odds of an undefended raid."""
    out = []
    areas = state["areas"]
    for hid, h in hordes_in_order(state):
        target = h["target"]
        row: dict[str, Any] = {
            "id": hid,
            "name": horde_name(state, hid),
            "homeland": list(horde_info(hid).get("homeland", [])),
            "strength": h["strength"],
            "target": target,
            "owner": areas[target]["owner"] if target else None,
            "rode": h["rode"] == state["turn"],
        }
        if target:
            row["rating"] = sum(int(t["value"]) for t in raid_terms(state, hid, target))
            row["odds"] = raid_odds(row["rating"])
        out.append(row)
    return out
