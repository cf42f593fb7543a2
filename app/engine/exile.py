"""Exile (docs/rules.md 21.1, 7.52): a power that loses the area of its court
moves the court to its best remaining area, or goes into exile when it has none.
Asylum (21.2) is a move of the diplomatic phase (`diplomacy_phase`); the return
from exile (21.3) happens where areas change hands (`ownership.change_owner`)."""

from __future__ import annotations

from typing import Any

from app.engine.core import State, emit, geo, name, owned, player


def court_lost(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    """7.52 / 21: a lost court moves to the best remaining area, else exile."""
    g = geo()
    p = player(state, seat)
    lead = p["emperor"]
    cands = owned(state, seat)
    if not cands:
        p["court"] = None
        p["exiled"] = True
        emit(
            state,
            events,
            f"{name(state, seat)} has lost every area and goes into exile.",
            "21.1",
            "exile",
        )
        return
    areas = state["areas"]
    best = sorted(
        cands,
        key=lambda a: (
            areas[a]["language"] != lead["language"],
            areas[a]["religion"] != lead["religion"],
            -areas[a]["social"],
            -int(g.areas[a].get("population", 1)),
            a,
        ),
    )[0]
    p["court"] = best
    emit(
        state,
        events,
        f"{name(state, seat)} moves the court to {g.areas[best]['name']}.",
        "7.52",
        "court",
    )
