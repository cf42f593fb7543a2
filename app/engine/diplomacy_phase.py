"""The diplomatic phase (docs/rules.md 3.2-3.5, 21.2): in turn, each power acts or
passes until all pass in a row: war and breaking the peace (3.21, 3.22), peace
(3.23), hegemony and coalitions (3.51-3.55), asylum for an exile (21.2). Its
legal moves (`diplomacy_actions`) and their handler (`h_diplo`)."""

from __future__ import annotations

from typing import Any

from app.engine import grand, grand_offers, rng
from app.engine.core import (
    State,
    clamp_popularity,
    emit,
    hegemon_of,
    name,
    player,
    relation,
    same_coalition,
    seat_of_power,
    seats,
)
from app.engine.rules import MAX_DIPLO_MOVES


def diplomacy_actions(state: State, seat: int, with_grand: bool = True) -> list[dict[str, Any]]:
    """3.2-3.5, 21.2: pass, or one of at most MAX_DIPLO_MOVES moves a turn; with
    ``with_grand`` also grand diplomacy's (20.14, 20.3: offer, cancel, renounce), which
    `gate.check` leaves out when it checks a ``diplo`` move."""
    p = player(state, seat)
    out: list[dict[str, Any]] = []
    out.append({"type": "diplo", "move": "pass"})
    if state["diplo"]["moves"][str(seat)] < MAX_DIPLO_MOVES:
        rels = state["relations"]
        hegemon = seat in rels["hegemons"]
        junior = hegemon_of(state, seat) != seat
        if not hegemon and not junior:
            out.append({"type": "diplo", "move": "claim_hegemony"})  # 3.51
        if hegemon:
            out.append({"type": "diplo", "move": "relinquish_hegemony"})  # 3.52
        if junior:
            out.append({"type": "diplo", "move": "leave"})  # 3.54
        for other in seats(state):
            if other == seat:
                continue
            rel = relation(state, seat, other)
            power = state["players"][other]["power"]
            if not junior and not same_coalition(state, seat, other):  # 3.55
                if rel["status"] in ("neutral", "peace"):
                    out.append({"type": "diplo", "move": "declare_war", "power": power})
                if rel["status"] in ("war", "neutral"):  # 3.23: neutral powers too
                    out.append({"type": "diplo", "move": "propose_peace", "power": power})
            # 3.53: only with no war on a third power (ending it needs that power's peace);
            # the scan runs only for a hegemon this seat could join
            # 20.13 / 3.55: nor while bound by non-aggression or alliance (a junior partner
            # shares its hegemon's wars and could not keep the promise; cancel it first, 20.3)
            if (
                not hegemon
                and not junior
                and other in rels["hegemons"]
                and not any(
                    f not in (seat, other) and relation(state, seat, f)["status"] == "war"
                    for f in seats(state)
                )
                and not grand.bound_by_terms(state, seat)
            ):
                out.append({"type": "diplo", "move": "join", "power": power})
            if p["exiled"] and p["asylum"] is None and not player(state, other)["exiled"]:
                out.append({"type": "diplo", "move": "ask_asylum", "power": power})  # 21.2
            if player(state, other)["asylum"] == seat:
                out.append({"type": "diplo", "move": "revoke_asylum", "power": power})  # 21.2
        if with_grand:
            out += grand_offers.diplo_actions(state, seat)  # 20.14, 20.3
    return out


def h_diplo(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """3.2: the diplomatic phase (PPW): act or pass until all pass in a row."""
    d = state["diplo"]
    move = action["move"]
    n = len(state["players"])
    rels = state["relations"]
    if move in ("accept_asylum", "reject_asylum"):
        pr = d["proposal"]
        d["proposal"] = None
        if move == "accept_asylum":
            player(state, pr["from"])["asylum"] = pr["to"]
            emit(
                state,
                events,
                f"{name(state, pr['to'])} grants {name(state, pr['from'])} asylum.",
                "21.2",
                "exile",
            )
        else:
            emit(
                state,
                events,
                f"{name(state, pr['to'])} refuses {name(state, pr['from'])} asylum.",
                "21.2",
                "exile",
            )
        d["pos"] = (pr["from"] + 1) % n
        return
    if move in ("accept_join", "reject_join"):
        pr = d["proposal"]
        d["proposal"] = None
        if move == "accept_join":
            rels["coalitions"].setdefault(str(pr["to"]), []).append(pr["from"])
            # 3.53: a power joins at war with no one but (perhaps) the hegemon: that war ends
            # in the peace both have just agreed to.
            rel = relation(state, pr["from"], pr["to"])
            rel["status"], rel["since"] = "peace", state["turn"]
            emit(
                state,
                events,
                f"{name(state, pr['from'])} joins {name(state, pr['to'])}'s coalition.",
                "3.53",
                "diplomacy",
            )
        else:
            emit(
                state,
                events,
                f"{name(state, pr['to'])} refuses {name(state, pr['from'])} in the coalition.",
                "3.53",
                "diplomacy",
            )
        d["pos"] = (pr["from"] + 1) % n
        return
    if move in ("claim_hegemony", "relinquish_hegemony", "leave"):
        d["moves"][str(seat)] += 1
        d["passes"] = 0
        d["pos"] = (seat + 1) % n
        if move == "claim_hegemony":
            rels["hegemons"].append(seat)
            rels["hegemons"].sort()
            emit(state, events, f"{name(state, seat)} claims the hegemony.", "3.51", "diplomacy")
        elif move == "relinquish_hegemony":
            rels["hegemons"].remove(seat)
            rels["coalitions"].pop(str(seat), None)  # 3.52: its own wars go on
            p = player(state, seat)
            p["popularity"] -= 1
            clamp_popularity(p)
            emit(
                state,
                events,
                f"{name(state, seat)} relinquishes the hegemony: its coalition dissolves; popularity -1.",
                "3.52",
                "diplomacy",
            )
        else:
            head = hegemon_of(state, seat)
            rels["coalitions"][str(head)].remove(seat)
            if not rels["coalitions"][str(head)]:
                del rels["coalitions"][str(head)]
            emit(
                state,
                events,
                f"{name(state, seat)} leaves {name(state, head)}'s coalition.",
                "3.54",
                "diplomacy",
            )
        return
    if move in ("accept_peace", "reject_peace"):
        pr = d["proposal"]
        d["proposal"] = None
        if move == "accept_peace":
            rel = relation(state, pr["from"], pr["to"])
            was = rel["status"]
            rel["status"] = "peace"
            rel["since"] = state["turn"]
            emit(
                state,
                events,
                f"{name(state, pr['from'])} and {name(state, pr['to'])} make peace.",
                "3.23",
                "diplomacy",
                data={"was": was},
            )
        else:
            emit(state, events, f"{name(state, pr['to'])} rejects peace.", "3.23", "diplomacy")
        d["pos"] = (pr["from"] + 1) % n
        return
    if move == "pass":
        d["passes"] += 1
        d["pos"] = (seat + 1) % n
        emit(state, events, f"{name(state, seat)} passes.", "3.2", "diplomacy")
        return
    other = seat_of_power(state, action["power"])
    assert other is not None
    d["moves"][str(seat)] += 1
    d["passes"] = 0
    rel = relation(state, seat, other)
    if move == "declare_war":
        if rel["status"] == "neutral":
            rel["status"] = "war"
            rel["since"] = state["turn"]
            emit(
                state,
                events,
                f"{name(state, seat)} declares war on {name(state, other)}.",
                "3.21",
                "diplomacy",
            )
            grand.war_price(state, seat, events)  # 3.21
            grand.on_war(state, seat, other, events)  # 20.13
        else:
            lasted = state["turn"] - int(rel["since"])
            roll = rng.die(state)
            if roll < lasted:
                rel["status"] = "war"
                rel["since"] = state["turn"]
                emit(
                    state,
                    events,
                    f"{name(state, seat)} finds a pretext (die {roll} < {lasted}) and breaks the peace with {name(state, other)}: war.",
                    "3.22",
                    "diplomacy",
                )
                grand.on_war(state, seat, other, events)  # 20.13
            elif roll > lasted:
                p = player(state, seat)
                p["popularity"] -= 1
                clamp_popularity(p)
                emit(
                    state,
                    events,
                    f"{name(state, seat)} fails to break the peace (die {roll}); the sacrilege costs a point of popularity.",
                    "3.22",
                    "diplomacy",
                )
            else:
                emit(
                    state,
                    events,
                    f"{name(state, seat)} fails to break the peace (die {roll}).",
                    "3.22",
                    "diplomacy",
                )
        d["pos"] = (seat + 1) % n
    elif move == "ask_asylum":
        d["proposal"] = {"from": seat, "to": other, "kind": "asylum"}
        emit(
            state,
            events,
            f"{name(state, seat)} asks {name(state, other)} for asylum.",
            "21.2",
            "exile",
        )
    elif move == "revoke_asylum":
        player(state, other)["asylum"] = None
        d["pos"] = (seat + 1) % n
        emit(
            state,
            events,
            f"{name(state, seat)} revokes {name(state, other)}'s asylum.",
            "21.2",
            "exile",
        )
    elif move == "join":
        d["proposal"] = {"from": seat, "to": other, "kind": "join"}
        emit(
            state,
            events,
            f"{name(state, seat)} asks to join {name(state, other)}'s coalition.",
            "3.53",
            "diplomacy",
        )
    elif move == "propose_peace":
        d["proposal"] = {"from": seat, "to": other, "kind": "peace"}
        emit(
            state,
            events,
            f"{name(state, seat)} proposes peace to {name(state, other)}.",
            "3.23",
            "diplomacy",
        )
