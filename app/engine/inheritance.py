"""Dynastic Inheritance (docs/rules.md 18.25, 20.43): the heir takes another
player's area it has a tie with, and the owner contests it in a parley. The
breach it may be (20.13) and the parley itself are `grand`'s."""

from __future__ import annotations

from typing import Any

from app.engine.core import State, emit, geo, name, player
from app.engine.grand import gr, on_conquest, open_parley
from app.engine.ownership import change_owner


def inheritable(state: State, seat: int, area_id: str) -> bool:
    """20.43: a Dynastic Inheritance takes another player's area the seat has a tie
    with (never a court)."""
    area = state["areas"][area_id]
    owner = area["owner"]
    return (
        owner is not None
        and owner != seat
        and seat in area["ties"]
        and player(state, owner)["court"] != area_id
    )


def inherit(state: State, seat: int, area_id: str, events: list[dict[str, Any]]) -> None:
    """20.43: the heir takes the area; its owner contests it in a parley unless
    accursed (22.13) or his own line has just been broken (an heirless death this
    game turn)."""
    if not inheritable(state, seat, area_id):
        return
    old = state["areas"][area_id]["owner"]
    assert old is not None
    emit(
        state,
        events,
        f"{name(state, seat)} inherits {geo().areas[area_id]['name']} from {name(state, old)}.",
        "20.43",
        "conquest",
    )
    change_owner(state, area_id, seat, events, "inheritance")
    on_conquest(state, seat, old, area_id, events)
    heirless = gr(state)["heirless"].get(str(old)) == state["turn"]
    if not player(state, old)["accursed"] and not heirless:
        open_parley(state, old, "inherit", events, against=seat, area=area_id)
