"""Prompts (docs/engine-contract.md "Prompts"): who must decide now, and on
what: a parley vote (20.5), a tie holder's waiver (12.42), a defence (13), a
diplomatic proposal or move (3.2, 3.23, 3.53, 21.2), a place in the order of
play (4.3), or the active player's turn (5.4)."""

from __future__ import annotations

from typing import Any

from app.engine import grand, grand_offers, nomads
from app.engine.core import State, geo, name
from app.engine.sequence import current_picker


def pending(state: State) -> list[dict[str, Any]]:
    g = geo()
    if state["over"]:
        return []
    if state["parley"]:
        pa = state["parley"]
        return [
            {
                "seat": s,
                "kind": "vote",
                "label": grand.parley_label(state, pa),
                "parley": {
                    "question": pa["question"],
                    "area": pa["area"],
                    "caller": pa["caller"],
                    "against": pa.get("against"),
                },
            }
            for s in pa["eligible"]
            if str(s) not in pa["votes"]
        ]
    offered = grand_offers.prompts(state)  # 20.41/20.43 verdicts, 20.14 offers
    if offered is not None:
        return offered
    if state["request"]:
        rq = state["request"]
        return [
            {
                "seat": s,
                "kind": "request",
                "label": f"Waive your tie's effect on the rebellion check in {g.areas[rq['area']]['name']}?",
                "request": "waive_tie",
                "area": rq["area"],
                "from": rq["seat"],
            }
            for s in rq["ask"]
            if str(s) not in rq["answers"]
        ]
    if state["interrupt"]:
        it = state["interrupt"]
        return [
            {
                "seat": it["defender"],
                "kind": "defend",
                "label": f"{name(state, it['attacker'])} attacks {g.areas[it['action']['target']]['name']}: defend?",
                "attacker": it["attacker"],
                "area": it["action"]["target"],
                "endeavour": it["action"]["kind"],
                "rating": it["rating"],
            }
        ]
    if nomads.pending_raid(state):
        return [nomads.prompt(state)]  # 24.13
    phase = state["phase"]
    if phase == "diplomacy":
        d = state["diplo"]
        if d["proposal"] is not None:
            pr = d["proposal"]
            what = pr.get("kind", "peace")
            label = {
                "peace": f"{name(state, pr['from'])} proposes peace.",
                "join": f"{name(state, pr['from'])} asks to join your coalition.",
                "asylum": f"{name(state, pr['from'])}, in exile, asks for asylum at your court.",
            }[what]
            return [
                {
                    "seat": pr["to"],
                    "kind": "request",
                    "label": label,
                    "request": what,
                    "from": pr["from"],
                }
            ]
        actor = d["pos"] % len(state["players"])
        return [{"seat": actor, "kind": "diplomacy", "label": "Diplomatic phase: act or pass."}]
    if phase == "initiative":
        picker = current_picker(state)
        return (
            []
            if picker is None
            else [
                {
                    "seat": picker,
                    "kind": "initiative",
                    "label": "Choose your place in the order of play.",
                }
            ]
        )
    if phase == "turn" and state["active"] is not None:
        s = state["active"]
        if state["step"] == "drawn":
            # Prompts are public (every view lists them): the label never names the card.
            return [
                {
                    "seat": s,
                    "kind": "advisor",
                    "label": "Act with the advisor you drew, petition for another, or dismiss it.",
                }
            ]
        return [
            {
                "seat": s,
                "kind": "turn",
                "label": "Your turn: draw an advisor, tax, recruit or end your turn.",
            }
        ]
    return []
