"""What an endeavour's result does to the board (docs/rules.md 10.3 conquest and
10.36 counter-conquest, 12.3 ties and diplomatic conquest, 12.14, 12.31, 18.2
claims, 22.2 conversion, 5.8 a burden removed). `endeavours.resolve` draws the
result and calls these; the ratings, targets and counters stay in `endeavours`."""

from __future__ import annotations

from typing import Any

from app.engine.core import (
    State,
    ability_sum,
    emit,
    faith_allows_claim,
    geo,
    has_ability,
    leader,
    name,
    own_area,
    player,
)
from app.engine.deck import remove_card
from app.engine.grand import on_conquest
from app.engine.ownership import change_owner
from app.engine.parleys import start_parley


def add_tie(state: State, seat: int, area_id: str, events: list[dict[str, Any]]) -> bool:
    """12.3 T: a tie is formed (12.14: never two); 18 P2.2 may give a claim."""
    g = geo()
    area = own_area(state, area_id)
    if seat in area["ties"]:
        emit(state, events, "The T result is ignored: a tie already exists.", "12.14", "tie")
        return False
    area["ties"].append(seat)
    area["ties"].sort()
    emit(
        state,
        events,
        f"{name(state, seat)} forms a diplomatic tie with {g.areas[area_id]['name']}.",
        "12.3",
        "tie",
    )
    if (
        area["owner"] == seat
        and not area["claims"]
        and faith_allows_claim(state, seat, area_id)  # 18.12
    ):
        area["claims"].append(seat)
        emit(
            state,
            events,
            f"{name(state, seat)} gains a claim to {g.areas[area_id]['name']}.",
            "18.22",
            "claim",
        )
    return True


def social_change(state: State, area_id: str, delta: int) -> int:
    area = own_area(state, area_id)
    before = area["social"]
    area["social"] = max(-3, min(3, before + delta))
    return int(area["social"] - before)


def conquer(
    state: State, seat: int, area_id: str, events: list[dict[str, Any]], diplomatic: bool
) -> None:
    """10.3 (full conquest) and 12.31 (diplomatic conquest)."""
    g = geo()
    area = own_area(state, area_id)
    old = area["owner"]
    if diplomatic:
        emit(
            state,
            events,
            f"{name(state, seat)} takes {g.areas[area_id]['name']} by diplomacy: no unrest, fortifications kept.",
            "12.31",
            "conquest",
        )
    else:
        area["unrest"] = True  # 10.3
        if area["fort"] == 2:
            area["fort"] = 0  # 14.41
        elif area["fort"] == 3:
            area["fort"] = 2
        emit(
            state,
            events,
            f"{name(state, seat)} conquers {g.areas[area_id]['name']} from {name(state, old)}; it enters unrest.",
            "10.3",
            "conquest",
        )
    change_owner(state, area_id, seat, events, "diplomacy" if diplomatic else "conquest")
    on_conquest(state, seat, old, area_id, events)  # 20.13: a partner's area taken


def yield_bonus(area_id: str, state: State) -> int:
    g = geo()
    return sum(
        int(g.buildings[b]["effect"].get("amount", 1))
        for b in state["areas"][area_id]["buildings"]
        if g.buildings.get(b, {}).get("effect", {}).get("op") == "yield_bonus"
    )


def remove_one_burden(
    state: State,
    seat: int,
    ref: str,
    events: list[dict[str, Any]],
    quiet: bool = False,
    needs: str | None = None,
) -> None:
    g = geo()
    if needs is not None and needs not in g.burdens.get(ref, {}).get("removed_by", []):
        return
    deck = player(state, seat)["deck"]
    for card in deck["discard"] + deck["draw"]:
        if card["kind"] == "burden" and card["ref"] == ref:
            remove_card(state, seat, card["id"])
            emit(
                state,
                events,
                f"{name(state, seat)} removes a {g.burdens.get(ref, {}).get('name', ref)} burden.",
                "5.8",
                "burden",
            )
            return
    if not quiet:
        emit(state, events, "No such burden was left to remove.", "5.8", "burden")


def partial_conquest(
    state: State, seat: int, base: str, target: str, events: list[dict[str, Any]]
) -> None:
    """10.3 partial conquest by population, 10.36 counter-conquest."""
    g = geo()
    areas = state["areas"]
    base_area = areas[base]
    tarea = areas[target]
    enemy = tarea["owner"]
    if enemy is not None:
        marks = base_area["partial"].get(str(enemy), {})
        if marks.get(target):
            partial = own_area(state, base)["partial"]
            marks = partial[str(enemy)]
            marks[target] -= 1
            if not marks[target]:
                del marks[target]
            if not marks:
                del partial[str(enemy)]
            emit(
                state,
                events,
                f"Counter-conquest: one of {name(state, enemy)}'s C results against {g.areas[base]['name']} is removed.",
                "10.36",
                "partial",
            )
            return
    mine = own_area(state, target)["partial"].setdefault(str(seat), {})
    mine[base] = mine.get(base, 0) + 1
    total = sum(mine.values())
    pop = int(g.areas[target].get("population", 1))
    if total >= pop:
        conquer(state, seat, target, events, diplomatic=False)
    else:
        emit(
            state,
            events,
            f"{g.areas[target]['name']} is partially conquered ({total} of {pop}).",
            "10.3",
            "partial",
        )


def diplomacy_result(
    state: State, seat: int, target: str, code: str, events: list[dict[str, Any]]
) -> None:
    """12.3: T, C and T/C."""
    area = own_area(state, target)
    if code == "T":
        add_tie(state, seat, target, events)
    elif code in ("C", "T/C"):
        if area["owner"] == seat:
            add_tie(
                state, seat, target, events
            )  # 12.19: against one's own area every success is a tie
            return
        old = area["owner"]
        had_tie = seat in area["ties"]
        if code == "T/C" and not had_tie:
            area["ties"].append(seat)
            area["ties"].sort()
            emit(
                state,
                events,
                f"{name(state, seat)} forms a diplomatic tie with {geo().areas[target]['name']}.",
                "12.3",
                "tie",
            )
        unclaimed_before = not area["claims"]
        conquer(state, seat, target, events, diplomatic=True)
        if (
            code == "T/C"
            and unclaimed_before
            and seat not in area["claims"]
            and faith_allows_claim(state, seat, target)  # 18.12
        ):
            area["claims"].append(seat)  # 18 P2.4
            emit(
                state,
                events,
                f"{name(state, seat)} gains a claim by the T/C result.",
                "18.24",
                "claim",
            )
        if old is not None and not player(state, old)["accursed"]:
            start_parley(state, old, "contest", target, events, against=seat)  # 12.32 / 20.41


def convert_result(
    state: State,
    seat: int,
    target: str,
    code: str,
    events: list[dict[str, Any]],
    check_after_waivers: Any,
) -> None:
    """22.2: conversion by repeated results against one's own area."""
    g = geo()
    area = own_area(state, target)
    if code == "CV":
        prog = area["convert"]
        prog[str(seat)] = prog.get(str(seat), 0) + 1
        need = conversion_differential(state, seat, target)
        if prog[str(seat)] >= need:
            area["religion"] = leader(state, seat)["religion"]
            area["convert"] = {}
            p = player(state, seat)
            p["conversions"] += 1
            p["vp"] += 3
            emit(
                state,
                events,
                f"{g.areas[target]['name']} converts to {name(state, seat)}'s religion (+3 VP).",
                "22.28",
                "convert",
            )
        else:
            emit(
                state,
                events,
                f"Conversion of {g.areas[target]['name']}: {prog[str(seat)]} of {need}.",
                "22.2",
                "convert",
            )
    elif code == "-1TU":
        social_change(state, target, -1)
        area["unrest"] = True
        emit(
            state,
            events,
            f"{g.areas[target]['name']} resists conversion: it loses a social level and enters unrest.",
            "22.2",
            "unrest",
        )
        check_after_waivers(state, seat, target, 0, events, rule="22.2")  # 12.42


def conversion_differential(state: State, seat: int, target: str) -> int:
    """22.2: conviction of the area's religion minus proselytism of the leader's;
    halved with a tie (22.24) and with Missionary Fervour (22.23); at least 1."""
    g = geo()
    area = state["areas"][target]
    conviction = int(g.religion.get(area["religion"], {}).get("conviction", 2))
    prosely = int(g.religion.get(leader(state, seat)["religion"], {}).get("proselytism", 1))
    diff = max(1, conviction - prosely)
    if seat in area["ties"]:
        diff //= 2
    if has_ability(state, seat, "missionary_fervor"):
        diff //= 2
    diff -= ability_sum(state, seat, "conversion_bonus")
    if "temple" in area["buildings"]:
        diff -= 1  # 8.1: a temple helps conversion
    return max(1, diff)
