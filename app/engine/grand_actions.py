"""Grand diplomacy's actions (docs/rules.md 20.14-20.15 an offer, a counter and
its answer; 20.3 renouncing an agreement; 20.41 and 20.43 bowing to or defying a
verdict; 20.45 asking readmission): their handlers. The rules they carry out
(templates, bundles, breaches, parleys, the accursed) are in `grand`."""

from __future__ import annotations

import json
from typing import Any

from app.engine.core import State, emit, geo, name, player, seat_of_power
from app.engine.grand import (
    _turn_key,
    agreements,
    breach,
    carry_out,
    curse,
    describe,
    fits,
    gw,
    open_parley,
)
from app.engine.legality import legal_actions
from app.engine.ownership import change_owner


def h_offer(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """20.14: make an offer (or a counter, 20.15)."""
    g = gw(state)
    other = seat_of_power(state, action["power"])
    assert other is not None
    listed = next(
        a
        for a in _legal(state, seat)
        if a.get("type") == "offer" and a.get("power") == action["power"]
    )
    bundle = fits(listed, action)
    old = g["offer"]
    if old is not None:  # a counter replaces the offer it answers
        depth, origin, made = old["depth"] + 1, old["origin"], old["made"]
        emit(
            state,
            events,
            f"{name(state, seat)} refuses {name(state, other)}'s offer and counters.",
            "20.15",
            "agreement",
        )
    else:
        depth, origin = 0, seat
        made = "diplomacy" if state["phase"] == "diplomacy" else "turn"
        if made == "diplomacy":
            d = state["diplo"]
            d["moves"][str(seat)] += 1
            d["passes"] = 0
        else:
            g["offered"][str(seat)] = _turn_key(state)
            p = player(state, seat)
            if p["tax_state"] == "taxing":
                p["tax_state"] = "closed"  # 16.14
    g["offer"] = {
        "id": g["next_offer"],
        "from": seat,
        "to": other,
        "give": bundle["give"],
        "get": bundle["get"],
        "terms": bundle["terms"],
        "turns": bundle["turns"],
        "depth": depth,
        "origin": origin,
        "made": made,
    }
    g["next_offer"] += 1
    emit(
        state,
        events,
        f"{name(state, seat)} makes {name(state, other)} an offer.",
        "20.14",
        "offer",
        data={"from": seat, "to": other},
    )
    emit(
        state,
        events,
        f"Offer from {name(state, seat)} to {name(state, other)}: {describe(state, g['offer'])}.",
        "20.14",
        "offer",
        to=[seat, other],
        data={"offer": json.loads(json.dumps(g["offer"]))},
    )


def _legal(state: State, seat: int) -> list[dict[str, Any]]:
    return legal_actions(state, seat)


def _close_offer(state: State, off: dict[str, Any]) -> None:
    gw(state)["offer"] = None
    if off["made"] == "diplomacy" and state["diplo"] is not None:
        state["diplo"]["pos"] = (off["origin"] + 1) % len(state["players"])


def h_answer_offer(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """20.14: accept (the engine carries the bundle out) or refuse."""
    off = gw(state)["offer"]
    _close_offer(state, off)
    if action["answer"] == "refuse":
        emit(
            state,
            events,
            f"{name(state, seat)} refuses {name(state, off['from'])}'s offer.",
            "20.14",
            "agreement",
        )
        return
    carry_out(state, off, events)


def h_renounce(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """20.3: renouncing an agreement in force is a breach."""
    d = state["diplo"]
    d["moves"][str(seat)] += 1
    d["passes"] = 0
    d["pos"] = (seat + 1) % len(state["players"])
    ag = next(x for x in agreements(state) if x["id"] == action["agreement"])
    breach(state, ag, seat, "renounced", events)


def h_verdict(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """20.41 / 20.43: return the area, or keep it and be accursed."""
    g = gw(state)
    v = g["verdict"]
    g["verdict"] = None
    area = geo().areas[v["area"]]["name"]
    if action["comply"]:
        if state["areas"][v["area"]]["owner"] == seat:
            change_owner(state, v["area"], v["to"], events, "parley")
        emit(
            state,
            events,
            f"{name(state, seat)} bows to the parley: {area} returns to {name(state, v['to'])}.",
            v["rule"],
            "parley",
        )
    else:
        emit(
            state,
            events,
            f"{name(state, seat)} defies the parley and keeps {area}.",
            v["rule"],
            "parley",
        )
        curse(state, seat, events, v["rule"])


def h_readmission(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """20.45: the accursed asks to be readmitted."""
    p = player(state, seat)
    if p["tax_state"] == "taxing":
        p["tax_state"] = "closed"  # 16.14
    p["parleys"].append("readmission")
    open_parley(state, seat, "readmit", events)


HANDLERS = {
    "offer": h_offer,
    "answer_offer": h_answer_offer,
    "verdict": h_verdict,
    "renounce": h_renounce,
    "readmission": h_readmission,
}
