"""A player's turn (docs/rules.md 5, 6.6, 9.1, 12.4, 13, 14.43, 16, 19.4): draw
an advisor (5.4) with its strikes (5.6), petition (5.5) or dismiss it; undertake
an endeavour (9.1) and the defender's interrupt (13.2); tax or plunder with the
tie holders' waivers (16, 12.42); recruit (6.6); play a holding (19.4); give up
a tie (12.43) or slight a fort (14.43). The handlers of those actions; calling
a parley and voting are in `parleys`, ending the turn in `sequence`."""

from __future__ import annotations

from typing import Any

from app.engine import nomads, usurpers
from app.engine.core import (
    State,
    card_name,
    card_type,
    clamp_popularity,
    emit,
    geo,
    has_ability,
    name,
    own_area,
    player,
)
from app.engine.deck import discard_hand, draw_card, petition_cost
from app.engine.defense import defender_for, defense_cost, defense_terms
from app.engine.economy import close_tax, do_plunder, do_tax, rebellion_check, waiver_seats
from app.engine.endeavours import base_cost, rating, resolve
from app.engine.fate import play_holding
from app.engine.market import recruit
from app.engine.sequence import end_round


def h_draw(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """5.4: spend a year and draw the top advisor."""
    close_tax(state, seat)
    p = player(state, seat)
    p["years_left"] -= 1
    p["petitions"] = 0
    p["strikes"] = 0
    p["shield_used"] = False
    p["redraw"] = False
    _draw_into_hand(state, seat, events)


def _draw_into_hand(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    p = player(state, seat)
    card = draw_card(state, seat)
    assert card is not None
    emit(state, events, f"{name(state, seat)} draws an advisor.", "5.4", "draw")
    emit(
        state, events, f"You draw {card_name(card)}.", "5.4", "draw", to=[seat], data={"card": card}
    )
    state["step"] = "drawn"
    if card["kind"] == "burden":
        if has_ability(state, seat, "burden_shield") and not p["shield_used"]:
            p["shield_used"] = True  # 5.6
            emit(
                state,
                events,
                f"{name(state, seat)} draws a burden; a trusted notable shields it (no strike).",
                "5.6",
                "strike",
            )
            return
        p["strikes"] = max(2, p["strikes"] + 1) if p["petitions"] else p["strikes"] + 1
        emit(
            state,
            events,
            f"{name(state, seat)} draws a burden: a strike, the petition fails."
            if p["petitions"]
            else f"{name(state, seat)} draws a burden: a dead draw (the year's first card is"
            " no strike).",
            "5.6",
            "strike",
        )
    elif p["petitions"] and card_type(card) in p.get("passed", []):
        # 5.6: on a petition, an advisor of a type already sent away this turn will not
        # be passed over twice: a strike, and the petition fails at once.
        p["strikes"] = max(2, p["strikes"] + 1)
        emit(
            state,
            events,
            f"{name(state, seat)} draws an advisor of a type already sent away this turn:"
            " he will not be passed over twice.",
            "5.6",
            "strike",
        )
    else:
        return
    if p["strikes"] >= 2:
        p["popularity"] -= 1  # 5.6: the petition fails
        p["turn_record"]["fail"] += 1
        clamp_popularity(p)
        discard_hand(state, seat)
        state["step"] = "start"
        emit(
            state,
            events,
            f"{name(state, seat)}'s petition fails; popularity -1 and the year is spent.",
            "5.6",
            "bust",
        )


def h_petition(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """5.5: pay 1, then 2, 3 ... influence to set the advisor aside and draw again."""
    p = player(state, seat)
    cost = petition_cost(state, seat)
    p["influence"] -= cost
    p["petitions"] += 1
    emit(
        state,
        events,
        f"{name(state, seat)} petitions for another advisor ({cost} influence).",
        "5.5",
        "petition",
    )
    sent_away = card_type(p["deck"]["hand"]) if p["deck"]["hand"] else None
    if sent_away is not None and sent_away not in p.setdefault("passed", []):
        p["passed"].append(sent_away)  # 5.6: a later advisor of this type is a strike
    discard_hand(state, seat)
    _draw_into_hand(state, seat, events)


def h_dismiss(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    discard_hand(state, seat)
    state["step"] = "start"
    emit(
        state,
        events,
        f"{name(state, seat)} dismisses the advisor; the year passes.",
        "5.4",
        "dismiss",
    )


def h_endeavour(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """9.1: pay, announce the rating; a defender may interrupt (13); then resolve."""
    p = player(state, seat)
    card = p["deck"]["hand"]
    kind, base, target, option = (
        action["kind"],
        action["base"],
        action["target"],
        action.get("option"),
    )
    cost, _ = base_cost(state, seat, kind, base, target, option)
    p["talents"] -= cost + action["talents"]
    total, terms = rating(state, seat, card, kind, base, target, option, action["talents"])
    defender = defender_for(state, seat, kind, target)
    if defender is not None:
        state["interrupt"] = {
            "attacker": seat,
            "defender": defender,
            "action": action,
            "card": card,
            "rating": total,
            "terms": terms,
        }
        state["step"] = "interrupt"
        emit(
            state,
            events,
            f"{name(state, seat)} announces {kind} against {geo().areas[target]['name']} with rating {total}; {name(state, defender)} may defend.",
            "13.0",
            "interrupt",
        )
        return
    _finish_endeavour(state, seat, action, card, total, terms, events)


def _finish_endeavour(
    state: State,
    seat: int,
    action: dict[str, Any],
    card: dict[str, Any],
    total: int,
    terms: list[dict[str, Any]],
    events: list[dict[str, Any]],
) -> None:
    resolve(state, seat, action, card, total, terms, events)
    discard_hand(state, seat)
    state["step"] = "start"


def h_defend(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """13.2: the defender spends a year and talents to lower the attacker's rating."""
    if nomads.pending_raid(state):
        nomads.answer(state, seat, action, events)  # 24.13
        end_round(state, events)  # the round's end goes on
        return
    it = state["interrupt"]
    state["interrupt"] = None
    d = player(state, seat)
    if action["type"] == "defend":
        cost = defense_cost(state, seat, it["action"]["target"]) or 1
        d["talents"] -= cost + action["talents"]
        d["years_left"] -= 1
        d["defenses"] += 1
        dterms = defense_terms(state, seat, action["talents"])
        terms = it["terms"] + dterms
        total = it["rating"] + sum(int(t["value"]) for t in dterms)
        emit(
            state,
            events,
            f"{name(state, seat)} defends: the rating falls to {total}.",
            "13.21",
            "defense",
        )
    else:
        terms, total = it["terms"], it["rating"]
        emit(state, events, f"{name(state, seat)} does not defend.", "13.0", "defense")
    state["step"] = "drawn"
    _finish_endeavour(state, it["attacker"], it["action"], it["card"], total, terms, events)


def h_tax(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    ask = waiver_seats(state, seat, action)
    if ask:
        state["request"] = {
            "kind": "waive",
            "seat": seat,
            "area": action["area"],
            "action": action,
            "ask": ask,
            "answers": {},
        }
        emit(
            state,
            events,
            f"{name(state, seat)} announces a levy on {geo().areas[action['area']]['name']}; tie holders may waive (12.42).",
            "12.42",
            "request",
        )
        return
    _do_levy(state, seat, action, [], events)


def _do_levy(
    state: State, seat: int, action: dict[str, Any], waived: list[int], events: list[dict[str, Any]]
) -> None:
    if action["type"] == "tax":
        do_tax(state, seat, action["area"], action["amount"], events, waived)
    else:
        do_plunder(state, seat, action["area"], events, waived)


def h_waive(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    rq = state["request"]
    rq["answers"][str(seat)] = bool(action["waive"])
    emit(
        state,
        events,
        f"{name(state, seat)} {'waives' if action['waive'] else 'keeps'} the tie's effect.",
        "12.42",
        "request",
    )
    if all(str(s) in rq["answers"] for s in rq["ask"]):
        state["request"] = None
        waived = [int(s) for s, w in rq["answers"].items() if w]
        check = rq.get("check")
        if check:  # 12.42: a check other than a levy's (check_after_waivers)
            rebellion_check(
                state, rq["seat"], rq["area"], check["demanded"], events, waived, check["rule"]
            )
        else:
            _do_levy(state, rq["seat"], rq["action"], waived, events)


def h_recruit(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    close_tax(state, seat)
    recruit(state, seat, action["slot"], action["pay"], events)


def h_play(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    if state["step"] == "start":
        close_tax(state, seat)
    play_holding(state, seat, action, events)


def h_remove_tie(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    close_tax(state, seat)
    own_area(state, action["area"])["ties"].remove(seat)
    emit(
        state,
        events,
        f"{name(state, seat)} gives up the tie with {geo().areas[action['area']]['name']}.",
        "12.43",
        "tie",
    )


def h_reduce_fort(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    close_tax(state, seat)
    area = own_area(state, action["area"])
    area["fort"] = 2 if area["fort"] == 3 else 0
    emit(
        state,
        events,
        f"{name(state, seat)} slights the fortifications of {geo().areas[action['area']]['name']}.",
        "14.43",
        "fort",
    )


def h_buy_off(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """17.56 / 21.31: buy off a usurper."""
    close_tax(state, seat)
    usurpers.buy_off(state, seat, action, events)
