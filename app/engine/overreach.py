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


def knob(state: State) -> dict[str, Any] | None:
    sc = geo().scenarios.get(str(state.get("scenario")), {})
    value = sc.get("overreach")
    return value if isinstance(value, dict) else None


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
    k = knob(state)
    if not k or len(state["players"]) < 2:
        return
    top = leader(state)
    if top is None:
        return
    seat, lead = top
    if lead < int(k.get("from_lead", 3)):
        return
    bonus = lead // max(1, int(k.get("per", 2)))
    emit(
        state,
        events,
        f"{name(state, seat)} leads by {lead} points: its provinces grow restless "
        f"(overreach, +{bonus} to the rebellion value).",
        "4.9",
        "overreach",
        data={"seat": seat, "lead": lead, "bonus": bonus},
    )
    for _ in range(int(k.get("checks", 1))):
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
    k = knob(state)
    if not k or len(state["players"]) < 2:
        return None
    terms = {
        "from_lead": int(k.get("from_lead", 3)),
        "per": max(1, int(k.get("per", 2))),
        "checks": int(k.get("checks", 1)),
    }
    top = leader(state)
    out: dict[str, Any] = {**terms, "seat": None, "lead": 0, "bonus": 0, "area": None}
    if top is not None:
        seat, lead = top
        out["lead"] = lead
        if lead >= terms["from_lead"]:
            out.update(seat=seat, bonus=lead // terms["per"], area=restless(state, seat))
    return out
