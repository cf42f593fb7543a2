"""Defense (docs/rules.md 13): who may answer a conquest or pillage (13.11-13.14),
what it costs (13.11) and the terms it takes off the attacker's rating (13.21,
19.41). Read by endeavours and by a horde's raid (24.13, `nomads`)."""

from __future__ import annotations

from typing import Any

from app.engine.core import State, ability_sum, has_ability, loc_costs, player

Term = dict[str, Any]


def defender_for(state: State, seat: int, kind: str, target: str) -> int | None:
    """13: who may answer a conquest or pillage with a defense endeavour."""
    if kind not in ("conquest", "pillage"):
        return None
    owner = state["areas"][target]["owner"]
    if owner is None or owner == seat:
        return None
    d = player(state, owner)
    if d["exiled"] or d["years_left"] < 1 or d["defenses"] >= 4:
        return None  # 13.13, 13.14
    if not d["had_turn"] and d["years_left"] < 2:
        return None  # 13.13: a year is kept for the defender's own turn
    cost = defense_cost(state, owner, target)
    if cost is None or d["talents"] < cost:
        return None  # 13.11
    return owner


def defense_cost(state: State, seat: int, area: str) -> int | None:
    """13.11: one talent plus sea costs from the defender's court."""
    costs = loc_costs(state, seat)
    if area not in costs:
        return None
    sea = 0 if has_ability(state, seat, "ignore_sea_cost") else costs[area]
    return 1 + sea


def defense_terms(state: State, defender: int, talents: int) -> list[Term]:
    d = player(state, defender)
    terms: list[Term] = [
        {
            "term": f"{d['emperor']['name']}'s defense (military stature)",
            "value": -int(d["emperor"]["statures"].get("military", 0)),
            "rule": "13.21",
        }
    ]
    if talents:
        terms.append({"term": "defender's extra talents", "value": -talents, "rule": "13.21"})
    bonus = ability_sum(state, defender, "defense_bonus") + ability_sum(
        state, defender, "military_innovation"
    )
    if bonus:
        terms.append(
            {"term": "defender's innovations and notables", "value": -bonus, "rule": "19.41"}
        )
    return terms
