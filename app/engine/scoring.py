"""Victory points, the end and the solitaire rating (docs/rules.md 26)."""

from __future__ import annotations

from typing import Any

from app.engine.core import State, geo, owned, player
from app.engine.rules import solitaire_band


def victory_levels(state: State) -> dict[int, float]:
    """26.2: each power's victory level, a knob of the scenario in the content pack
    (``victory_level`` of the power, 0 when absent). EMA measures each player against
    a level of his own; here the levels even out the powers' unequal starts. A level
    is a whole or a half point: a half point is the finest step there is, since every
    total is whole (a power on a half point never ties on standing). Whole levels stay
    ints, so whole standings print without a fraction."""
    sc = geo().scenarios.get(str(state.get("scenario")), {})
    by_power = {
        str(pw.get("id")): as_points(pw.get("victory_level", 0)) for pw in sc.get("powers", [])
    }
    return {s: by_power.get(str(p["power"]), 0) for s, p in enumerate(state["players"])}


def as_points(value: Any) -> float:
    """Points (a victory level or a standing, 26.2): an int when whole, else the half."""
    number = float(value)
    return int(number) if number.is_integer() else number


def score(state: State) -> dict[int, dict[str, Any]]:
    """26.1: areas by population, +2 per owned area with your claim, monuments,
    innovations, banked points (conversions) and half your popularity; 26.2: the
    standing is the total less the power's victory level."""
    g = geo()
    levels = victory_levels(state)
    out: dict[int, dict[str, Any]] = {}
    for seat in range(len(state["players"])):
        p = player(state, seat)
        mine = owned(state, seat)
        areas_vp = sum(int(g.areas[a].get("population", 1)) for a in mine)
        claims_vp = 2 * sum(1 for a in mine if seat in state["areas"][a]["claims"])
        monuments = 0
        for a in mine:
            for b in state["areas"][a]["buildings"]:
                eff = g.buildings.get(b, {}).get("effect", {})
                if eff.get("op") == "monument":
                    monuments += int(eff.get("vp", 2))
                elif eff.get("op") == "vp":
                    monuments += int(eff.get("amount", 1))
        innovations = sum(
            int(g.innovations[i]["effect"].get("amount", 0))
            for i in p["innovations"]
            if g.innovations.get(i, {}).get("effect", {}).get("op") == "vp"
        )
        popularity = int(p["popularity"]) // 2
        banked = int(p["vp"])
        hegemony = len(
            state["relations"]["coalitions"].get(str(seat), [])
        )  # 26.1: one per junior partner
        total = areas_vp + claims_vp + monuments + innovations + popularity + banked + hegemony
        out[seat] = {
            "areas": areas_vp,
            "claims": claims_vp,
            "monuments": monuments,
            "innovations": innovations,
            "popularity": popularity,
            "banked": banked,
            "hegemony": hegemony,
            "total": total,
            "level": levels[seat],
            "standing": total - levels[seat],
        }
    return out


def outcome_of(state: State) -> dict[str, Any]:
    """26.2: the highest standing (total less victory level) wins; ties go to more
    areas, then more talents, then seat order."""
    sc = score(state)
    ranking = sorted(
        sc,
        key=lambda s: (-sc[s]["standing"], -len(owned(state, s)), -player(state, s)["talents"], s),
    )
    ratings = {
        str(s): solitaire_band(sc[s]["total"] - int(player(state, s)["start_score"])) for s in sc
    }
    return {
        "winner": ranking[0],
        "ranking": ranking,
        "scores": {str(s): v for s, v in sc.items()},
        "solitaire_rating": ratings,
    }


def outcome(state: State) -> dict[str, Any] | None:
    if not state.get("over"):
        return None
    res: dict[str, Any] = state["result"]
    return res
