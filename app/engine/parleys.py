"""Parleys (docs/rules.md 20; 18.2, 18.32, 12.32): weighted votes on a claim or
on the return of an area taken by diplomacy. Called by a player (18.2, 20.53) or
by a diplomatic conquest (20.41, `endeavours`); every seat not accursed votes."""

from __future__ import annotations

from typing import Any

from app.engine import grand
from app.engine.core import (
    State,
    emit,
    faith_allows_claim,
    geo,
    name,
    own_area,
    owned,
    parley_weight,
    player,
    seats,
)
from app.engine.economy import close_tax


def start_parley(
    state: State,
    caller: int,
    question: str,
    area: str,
    events: list[dict[str, Any]],
    against: int | None = None,
) -> None:
    g = geo()
    eligible = [s for s in seats(state) if not player(state, s)["accursed"]]
    state["parley"] = {
        "question": question,
        "caller": caller,
        "area": area,
        "against": against,
        "eligible": eligible,
        "votes": {},
        "weights": {str(s): parley_weight(state, s) for s in eligible},
    }
    what = "a claim to" if question == "claim" else "the diplomatic conquest of"
    emit(
        state,
        events,
        f"{name(state, caller)} calls a parley on {what} {g.areas[area]['name']}.",
        "20.4",
        "parley",
        data={"question": question, "area": area},
    )


def resolve_parley(state: State, events: list[dict[str, Any]]) -> None:
    """20.5: yes wins on a majority or a tie of weighted votes (20.41, 20.42)."""
    g = geo()
    pa = state["parley"]
    yes = sum(pa["weights"][s] for s, v in pa["votes"].items() if v == "yes")
    no = sum(pa["weights"][s] for s, v in pa["votes"].items() if v == "no")
    passed = yes >= no
    state["parley"] = None
    area = pa["area"]
    emit(
        state,
        events,
        f"The parley votes {yes} for, {no} against: {'carried' if passed else 'refused'}.",
        "20.5",
        "parley",
        data={"votes": pa["votes"], "yes": yes, "no": no},
    )
    grand.check_pledges(state, pa, events)  # 20.11: pledged votes
    if grand.resolve(state, pa, passed, events):  # 20.41, 20.43-20.45
        return
    if not passed:
        return
    if pa["question"] == "claim":
        own_area(state, area)["claims"].append(pa["caller"])
        emit(
            state,
            events,
            f"{name(state, pa['caller'])} gains a claim to {g.areas[area]['name']}.",
            "18.32",
            "claim",
        )


def parley_options(state: State, seat: int) -> list[dict[str, Any]]:
    """18.2, 20.42: a claim parley on an owned area with a tie, claimed by another, once
    per round, on an area the emperor could claim at all (18.12, `faith_allows_claim`:
    the rule every other way to a claim reads too)."""
    p = player(state, seat)
    if p["accursed"] or len(state["players"]) < 2:
        return []
    out = []
    for a in owned(state, seat):
        area = state["areas"][a]
        if (
            seat in area["ties"]
            and seat not in area["claims"]
            and any(s != seat for s in area["claims"])
            and a not in p["parleys"]
            and faith_allows_claim(state, seat, a)  # 18.12: the religion family counts
        ):
            out.append({"type": "call_parley", "area": a})
    return out


def h_call_parley(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    close_tax(state, seat)
    player(state, seat)["parleys"].append(action["area"])  # 20.53
    start_parley(state, seat, "claim", action["area"], events)


def h_vote(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    pa = state["parley"]
    pa["votes"][str(seat)] = action["choice"]
    emit(state, events, f"{name(state, seat)} has voted.", "20.5", "vote")
    if all(str(s) in pa["votes"] for s in pa["eligible"]):
        resolve_parley(state, events)
