"""Areas changing hands (docs/rules.md 7.4) and the claims that follow them
(18.12, 18 P2.1, P2.3, P3.1): partial conquests (10.37, 10.38), conversions
(22.21), a usurper's area (17.57), the return from exile (21.3), over-extension
(5.7) and a lost court (7.52, `exile`). The one mechanism every conquest,
rebellion, parley, usurper and Fate card calls: it imports no phase and no
endeavour."""

from __future__ import annotations

from typing import Any

from app.engine.core import (
    State,
    emit,
    faith_allows_claim,
    geo,
    leader,
    name,
    own_area,
    owned,
    player,
)
from app.engine.deck import add_burden
from app.engine.exile import court_lost
from app.engine.memo import owner_changed
from app.engine.rules import OVEREXPANSION_BASE
from app.engine.usurper_records import area_lost as usurper_area_lost


def claim_possible(
    state: State, seat: int, area_id: str, with_tie_needed_if_claimed: bool = True
) -> bool:
    """18.12 and the 'Recognition of Claim' cases (18 P2.3 and P3.1)."""
    area = state["areas"][area_id]
    if area["owner"] != seat or seat in area["claims"]:
        return False
    if not faith_allows_claim(state, seat, area_id):
        return False  # 18.12
    others = [s for s in area["claims"] if s != seat]
    if not others:
        return True  # P2.3
    return seat in area["ties"] or not with_tie_needed_if_claimed  # P3.1


def change_owner(
    state: State, area_id: str, new_owner: int | None, events: list[dict[str, Any]], how: str
) -> None:
    """7.4: an area changes hands; partial conquests, conversions and courts follow."""
    g = geo()
    area = own_area(state, area_id)
    old = area["owner"]
    area["owner"] = new_owner
    owner_changed(state, area_id, old, new_owner)
    area["partial"] = {}  # 10.38: every other player's partial conquest is removed
    area["convert"] = {}  # 22.21
    area["rebel_of"] = None
    if area["usurper"]:
        usurper_area_lost(state, area_id, events)  # 17.57
    for other_id, other in list(state["areas"].items()):  # 10.37
        for s in list(other["partial"]):
            if area_id in other["partial"][s]:
                partial = own_area(state, other_id)["partial"]
                del partial[s][area_id]
                if not partial[s]:
                    del partial[s]
                emit(
                    state,
                    events,
                    f"The C results inflicted from {g.areas[area_id]['name']} on {g.areas[other_id]['name']} are removed.",
                    "10.37",
                    "partial",
                )
    if new_owner is not None and player(state, new_owner)["exiled"]:
        q = player(state, new_owner)  # 21.3: an exile returns with his first area
        q.update(exiled=False, asylum=None, court=area_id)
        emit(
            state,
            events,
            f"{name(state, new_owner)} returns from exile and holds court in {g.areas[area_id]['name']}.",
            "21.3",
            "exile",
        )
    if new_owner is not None:
        lead = leader(state, new_owner)
        if seat_claim_by_tie(state, new_owner, area_id):  # 18 P2.1
            emit(
                state,
                events,
                f"{name(state, new_owner)} gains a claim to {g.areas[area_id]['name']} (tie at conquest).",
                "18.21",
                "claim",
            )
        limit = OVEREXPANSION_BASE + 2 * int(lead["statures"].get("administration", 0))
        if len(owned(state, new_owner)) > limit:
            add_burden(state, new_owner, "corruption")
            emit(
                state,
                events,
                f"{name(state, new_owner)} has over-extended: a Corruption burden enters the deck.",
                "5.7",
                "burden",
            )
    if old is not None and player(state, old)["court"] == area_id:
        court_lost(state, old, events)
    _ = how


def seat_claim_by_tie(state: State, seat: int, area_id: str) -> bool:
    """18 P2.1: taking ownership of an unclaimed area one has a tie with gives a claim."""
    area = state["areas"][area_id]
    if area["claims"] or seat not in area["ties"]:
        return False
    if not faith_allows_claim(state, seat, area_id):
        return False  # 18.12
    own_area(state, area_id)["claims"].append(seat)
    return True
