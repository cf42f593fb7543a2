"""Overreach (docs/rules.md 4.9): the provinces of a power far ahead grow restless.

A scenario may carry an ``overreach`` knob in the content pack::

    "overreach": {"from_lead": 4, "per": 2, "checks": 1}

At the end of every round (4.6, after the usurpers act) the power with the most
points (26.1, the victory level aside), if it leads the next by ``from_lead`` or
more, makes ``checks`` rebellion checks (17.3) in its most restless areas (highest
rebellion value, never its court), each with +1 per ``per`` points of lead. It is
the game's catch-up that turns into areas: a lead is a stock of areas (26.1), and
only a loss of areas shortens it. All dice come from the state's generator (2.3).
"""

from __future__ import annotations

from typing import Any

from app.engine.core import State, emit, geo, name, owned, player
from app.engine.economy import rebellion_check, rebellion_terms
from app.engine.scoring import score

Event = dict[str, Any]


def terms(state: State) -> dict[str, int] | None:
    """The scenario's knob (the validator requires all three numbers), or None: no
    overreach in this scenario, or nobody to overreach against."""
    sc = geo().scenarios.get(str(state.get("scenario")), {})
    k = sc.get("overreach")
    if not isinstance(k, dict) or len(state["players"]) < 2:
        return None
    return {"from_lead": int(k["from_lead"]), "per": int(k["per"]), "checks": int(k["checks"])}


def leader(state: State) -> tuple[int, int] | None:
    """The seat with the single highest score (26.1) and its lead over the next. Points,
    not standings: the widest empire overreaches, whatever level the scenario sets it
    (26.2), so the levels and this rule do not feed each other."""
    totals = sorted(((v["total"], s) for s, v in score(state).items()), reverse=True)
    if len(totals) < 2 or totals[0][0] == totals[1][0]:
        return None
    return totals[0][1], totals[0][0] - totals[1][0]


def check(state: State, events: list[Event]) -> None:
    """4.9: the leader's most restless areas make rebellion checks."""
    k = terms(state)
    top = leader(state) if k else None
    if k is None or top is None or top[1] < k["from_lead"]:
        return
    seat, lead = top
    bonus = lead // k["per"]
    emit(
        state,
        events,
        f"{name(state, seat)} leads by {lead} points: its provinces grow restless "
        f"(overreach, +{bonus} to the rebellion value).",
        "4.9",
        "overreach",
        data={"seat": seat, "lead": lead, "bonus": bonus},
    )
    for _ in range(k["checks"]):
        area = restless(state, seat)
        if area is None:
            return
        rebellion_check(
            state,
            seat,
            area,
            0,
            events,
            rule="4.9",
            extra=[{"term": "overreach", "value": bonus, "rule": "4.9"}],
        )


def restless(state: State, seat: int) -> str | None:
    """The leader's area that would make the next 4.9 check: the highest rebellion
    value, never the court; ties to the later area id."""
    court = player(state, seat)["court"]
    cands = [a for a in owned(state, seat) if a != court]
    if not cands:
        return None
    value = {a: sum(int(t["value"]) for t in rebellion_terms(state, seat, a, 0)) for a in cands}
    return max(cands, key=lambda a: (value[a], a))


def view(state: State) -> dict[str, Any] | None:
    """4.9, public: the scenario's terms and, while they apply, who overreaches, by
    how much, and which area checks next at the round's end."""
    k = terms(state)
    if k is None:
        return None
    top = leader(state)
    out: dict[str, Any] = {**k, "seat": None, "lead": 0, "bonus": 0, "area": None}
    if top is not None:
        seat, lead = top
        out["lead"] = lead
        if lead >= k["from_lead"]:
            out.update(seat=seat, bonus=lead // k["per"], area=restless(state, seat))
    return out
