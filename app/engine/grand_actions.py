"""Grand diplomacy's actions (docs/rules.md 20.14-20.15 an offer, a counter and
its answer; 20.3 an offer to cancel an agreement by consent, and renouncing one;
20.41 and 20.43 bowing to or defying a verdict; 20.45 asking readmission): their handlers. The rules they carry out
(templates, bundles, breaches, parleys, the accursed) are in `grand`."""

from __future__ import annotations

import json
from typing import Any

from app.engine.core import State, emit, geo, name, player, seat_of_power
from app.engine.grand import (
    _other,
    agreements,
    breach,
    carry_out,
    curse,
    describe,
    gw,
    open_parley,
)
from app.engine.grand_offers import _empty_side, _turn_key, fits
from app.engine.grand_record import remember
from app.engine.legality import legal_actions
from app.engine.ownership import change_owner


def h_offer(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """20.14: make an offer (or a counter, 20.15)."""
    other = seat_of_power(state, action["power"])
    assert other is not None
    listed = next(
        a
        for a in _legal(state, seat)
        if a.get("type") == "offer" and a.get("power") == action["power"]
    )
    bundle = fits(listed, action)
    _place(state, seat, other, bundle, events)


def h_cancel(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """20.3: offer the partner to cancel an agreement by mutual consent: an offer of
    its own (one of the seat's offers, 20.14), answered like any offer."""
    ag = next(x for x in agreements(state) if x["id"] == action["agreement"])
    other = _other(ag, seat)
    body = {
        "kind": "cancel",
        "agreement": ag["id"],
        "give": _empty_side(),
        "get": _empty_side(),
        "terms": [],
        "turns": 0,
    }
    _place(state, seat, other, body, events)


def _place(
    state: State, seat: int, other: int, body: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """Put an offer (a bundle, or a cancellation) before ``other``: a move in the
    diplomatic phase, the turn's one offer in a player turn (20.14), or a counter."""
    g = gw(state)
    old = g["offer"]
    if old is not None:  # a counter replaces the offer it answers
        depth, origin, made = old["depth"] + 1, old["origin"], old["made"]
        remember(state, "countered", **{"from": old["from"], "to": seat})
        emit(
            state,
            events,
            f"{name(state, seat)} refuses {name(state, other)}'s offer and counters.",
            "20.15",
            "agreement",
            data={"from": old["from"], "to": seat, "answer": "counter"},
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
        **({"kind": "cancel", "agreement": body["agreement"]} if "kind" in body else {}),
        "give": body["give"],
        "get": body["get"],
        "terms": body["terms"],
        "turns": body["turns"],
        "depth": depth,
        "origin": origin,
        "made": made,
    }
    g["next_offer"] += 1
    cancel = "kind" in body
    emit(
        state,
        events,
        f"{name(state, seat)} asks {name(state, other)} to cancel agreement {body['agreement']}."
        if cancel
        else f"{name(state, seat)} makes {name(state, other)} an offer.",
        "20.3" if cancel else "20.14",
        "offer",
        data={"from": seat, "to": other} | ({"agreement": body["agreement"]} if cancel else {}),
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
    cancel = off.get("kind") == "cancel"
    if action["answer"] == "refuse":
        remember(state, "refused", **{"from": off["from"], "to": seat})
        emit(
            state,
            events,
            f"{name(state, seat)} refuses to cancel agreement {off['agreement']}: it stays in force."
            if cancel
            else f"{name(state, seat)} refuses {name(state, off['from'])}'s offer.",
            "20.3" if cancel else "20.14",
            "agreement",
            data={"from": off["from"], "to": seat, "answer": "refuse"},
        )
        reason = action.get("reason")
        if reason:  # 20.14: the reason is the two parties' alone, as the bundle is
            emit(
                state,
                events,
                f"{name(state, seat)} to {name(state, off['from'])}: {reason}",
                "20.3" if cancel else "20.14",
                "offer",
                to=[off["from"], seat],
                data={"from": off["from"], "to": seat, "answer": "refuse", "reason": reason},
            )
        return
    if cancel:
        cancel_by_consent(state, off["agreement"], events)
    else:
        carry_out(state, off, events)


#: the longest reason a refusal may give (20.14): one line
MAX_REASON = 200


def answer_reason(action: dict[str, Any]) -> str | None:
    """20.14: a refusal may give its reason: one line of at most `MAX_REASON`
    characters, with no control characters. The reason of a valid refusal (None when it
    gives none); ValueError for a reason that is not one line of text, or that goes with
    anything but a refusal (an acceptance says all it needs by being carried out)."""
    if "reason" not in action:
        return None
    reason = action["reason"]
    if action.get("answer") != "refuse":
        raise ValueError("only a refusal gives a reason")
    if (
        not isinstance(reason, str)
        or not reason.strip()
        or len(reason) > MAX_REASON
        or any(ord(c) < 32 or ord(c) == 127 for c in reason)
    ):
        raise ValueError("a reason is one line of text")
    return reason


def cancel_by_consent(state: State, agreement: int, events: list[dict[str, Any]]) -> None:
    """20.3: both parties consent: the agreement ends with no breach and no parley."""
    ag = next(x for x in agreements(state) if x["id"] == agreement)
    if ag["status"] != "in_force":
        return
    ag["status"], ag["ended"], ag["why"] = "cancelled", state["turn"], "cancelled by consent"
    emit(
        state,
        events,
        f"{name(state, ag['parties'][0])} and {name(state, ag['parties'][1])} cancel agreement "
        f"{ag['id']} by consent: it ends, no breach.",
        "20.3",
        "agreement",
        data={"agreement": ag["id"], "cancelled": True},
    )


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
        remember(state, "defied", seat=seat)
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
