"""The sequence of play (docs/rules.md 3-4, 5.10, 26): a game turn opens with the
diplomatic phase (3), then rounds (4.1-4.3: initiative and the order of play),
each player's turn of years (4.4), its outcome (5.10), the end of a round (4.6:
emperors age), upkeep (4.7-4.8) and the end of the game (26). `advance` runs the
automatic steps until someone must decide."""

from __future__ import annotations

from typing import Any

from app.engine import grand, nomads, rng, usurpers
from app.engine.core import (
    State,
    ability_sum,
    clamp_popularity,
    deck_cards,
    emit,
    has_ability,
    name,
    player,
    seats,
)
from app.engine.deck import discard_hand, new_card
from app.engine.fate import draw_fate, mortality_check
from app.engine.market import upkeep as market_upkeep
from app.engine.rules import YEARS_PER_ROUND
from app.engine.scoring import outcome_of, score


def start_game_turn(state: State, events: list[dict[str, Any]]) -> None:
    """3: a game turn opens with the diplomatic phase (skipped alone)."""
    emit(
        state,
        events,
        f"Game turn {state['turn']} begins ({state['start_year'] + (state['turn'] - 1) * state['years_per_turn']}).",
        "2.2",
        "turn",
    )
    state["round"] = 0
    nomads.choose_targets(state, events)  # 24.12
    if len(state["players"]) > 1:
        state["phase"] = "diplomacy"
        state["diplo"] = {
            "pos": 0,
            "passes": 0,
            "moves": {str(s): 0 for s in seats(state)},
            "proposal": None,
        }
    else:
        start_round(state, events)


def start_round(state: State, events: list[dict[str, Any]]) -> None:
    """4.1-4.3: a round: initiative, then each player's turn of five years."""
    state["phase"] = "initiative"
    state["diplo"] = None
    state["round"] += 1
    state["year"] = (
        state["start_year"]
        + (state["turn"] - 1) * state["years_per_turn"]
        + (state["round"] - 1) * YEARS_PER_ROUND
    )
    for s in seats(state):
        p = player(state, s)
        p["years_left"] = YEARS_PER_ROUND + (1 if has_ability(state, s, "extra_year") else 0)  # 4.2
        p["defenses"] = 0
        p["had_turn"] = False
        p["parleys"] = []
    rolls = {}
    for s in seats(state):
        d = rng.die(state)
        rolls[str(s)] = d + int(player(state, s)["emperor"]["statures"].get("administration", 0))
    pickers = sorted(seats(state), key=lambda s: (-rolls[str(s)], s))
    state["initiative"] = {"rolls": rolls, "pickers": pickers, "slots": [None] * len(pickers)}
    emit(
        state,
        events,
        f"Round {state['round']} ({state['year']}): initiative "
        + ", ".join(f"{name(state, s)} {rolls[str(s)]}" for s in pickers)
        + ".",
        "4.3",
        "initiative",
        data={"rolls": rolls},
    )


def current_picker(state: State) -> int | None:
    ini = state["initiative"]
    placed = {s for s in ini["slots"] if s is not None}
    for s in ini["pickers"]:
        if s not in placed:
            return int(s)
    return None


def begin_player_turn(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    state["phase"] = "turn"
    state["active"] = seat
    state["step"] = "start"
    p = player(state, seat)
    p["taxed"] = []
    p["tax_state"] = "open"
    p["recruited"] = False
    p["petitions"] = 0
    p["strikes"] = 0
    p["passed"] = []
    p["shield_used"] = False
    p["turn_record"] = {"success": 0, "fail": 0, "last_success": None, "last_fail": None}
    emit(
        state,
        events,
        f"{name(state, seat)}'s turn ({p['years_left']} years).",
        "4.4",
        "turn",
        data={"seat": seat},
    )


def turn_outcome(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    """5.10: the turn's outcome: popularity, influence and the deck move by how it went."""
    p = player(state, seat)
    rec = p["turn_record"]
    net = rec["success"] - rec["fail"]
    if net > 0:
        p["popularity"] += 1
        t = rec["last_success"]
        cap = int(p["emperor"]["statures"].get(t, 0)) + 2 if t else 0
        have = sum(1 for c in deck_cards(p) if c["kind"] == "advisor" and c["ref"] == t)
        text = f"A good turn for {name(state, seat)}: popularity +1"
        if t and have < cap:
            p["deck"]["discard"].append(new_card(state, "advisor", t))
            text += f", and a {t} advisor joins the court"
        emit(state, events, text + ".", "5.10", "outcome")
    elif net < 0:
        p["popularity"] -= 1
        p["influence"] -= 1
        t = rec["last_fail"]
        text = f"A bad turn for {name(state, seat)}: popularity and influence -1"
        deck = p["deck"]
        for pile in ("discard", "draw"):
            hit = next((c for c in deck[pile] if c["kind"] == "advisor" and c["ref"] == t), None)
            if hit is not None:
                deck[pile].remove(hit)
                deck["removed"].append(hit)
                text += f", and a {t} advisor leaves the court"
                break
        emit(state, events, text + ".", "5.10", "outcome")
    pop = ability_sum(state, seat, "popularity_per_turn")
    inf = ability_sum(state, seat, "influence_per_turn")
    if pop or inf:
        p["popularity"] += pop
        p["influence"] += inf
        emit(
            state,
            events,
            f"{name(state, seat)}'s court brings popularity {pop:+d}, influence {inf:+d}.",
            "6.4",
            "outcome",
        )
    clamp_popularity(p)


def end_player_turn(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    p = player(state, seat)
    discard_hand(state, seat)
    turn_outcome(state, seat, events)
    draw_fate(state, seat, events)  # 19.1
    p["had_turn"] = True
    p["tax_state"] = "closed"
    state["step"] = None
    order = state["order"]
    idx = order.index(seat) + 1
    if idx < len(order):
        begin_player_turn(state, order[idx], events)
    else:
        end_round(state, events)


def end_round(state: State, events: list[dict[str, Any]]) -> None:
    """4.6: emperors age five years each round. Before that the usurpers act (17.52)
    and, after the last round, the hordes ride (24.13); a raid may wait for its
    defender, and the round's end goes on after the answer (`h_defend`)."""
    state["active"] = None
    usurpers.act(state, events)  # 17.52
    if state["round"] >= state["rounds"] and not nomads.ride(state, events):
        return  # 24.13: a raid waits for its defender
    for s in seats(state):
        e = player(state, s)["emperor"]
        e["age"] += YEARS_PER_ROUND
        e["reign_years"] += YEARS_PER_ROUND
    if state["round"] < state["rounds"]:
        start_round(state, events)
    else:
        upkeep(state, events)


def upkeep(state: State, events: list[dict[str, Any]]) -> None:
    """4.7: mortality of old emperors, the market; then the next game turn or the end.
    (The hordes rode at the end of the last round: 24.13.)"""
    state["phase"] = "upkeep"
    for s in seats(state):
        if player(state, s)["emperor"]["age"] >= 50:
            mortality_check(state, s, 0, events, "old age")  # 19.31
    market_upkeep(state, events)
    grand.upkeep(state, events)  # 20.12: tribute, expiry
    if len(state["players"]) > 1:  # 4.8: catch-up for the trailing power
        totals = {s: v["standing"] for s, v in score(state).items()}  # 26.2
        low = min(totals.values())
        if low < max(totals.values()):
            for s in sorted(totals):
                if totals[s] == low:
                    player(state, s)["influence"] += 1
                    emit(
                        state,
                        events,
                        f"{name(state, s)}, trailing, gains one influence.",
                        "4.8",
                        "catch_up",
                    )
    if state["turn"] >= state["end_turn"]:
        finish(state, events)
        return
    state["turn"] += 1
    start_game_turn(state, events)


def finish(state: State, events: list[dict[str, Any]]) -> None:
    """26: the scenario ends; the highest score wins."""
    state["phase"] = "over"
    state["over"] = True
    state["active"] = None
    state["step"] = None
    state["result"] = outcome_of(state)
    res = state["result"]
    emit(
        state,
        events,
        f"The game ends. {name(state, res['winner'])} wins with a standing of "
        f"{res['scores'][str(res['winner'])]['standing']} "
        f"({res['scores'][str(res['winner'])]['total']} points).",
        "26.2",
        "over",
        data=res,
    )


def advance(state: State, events: list[dict[str, Any]]) -> None:
    """Run automatic steps until someone must decide."""
    for _ in range(10000):
        if (
            state["over"]
            or state["parley"]
            or state["request"]
            or state["interrupt"]
            or nomads.pending_raid(state)
        ):
            return
        if grand.blocking(state) or grand.start_due(state, events):  # 20.14, 20.44
            return
        phase = state["phase"]
        if phase == "diplomacy":
            d = state["diplo"]
            if d["proposal"] is not None:
                return
            if d["passes"] >= len(state["players"]):
                emit(state, events, "The diplomatic phase ends.", "3.4", "diplomacy")
                start_round(state, events)
                continue
            return
        if phase == "initiative":
            ini = state["initiative"]
            free = [i for i, s in enumerate(ini["slots"]) if s is None]
            picker = current_picker(state)
            if picker is not None and len(free) == 1:
                ini["slots"][free[0]] = picker
                continue
            if picker is not None:
                return
            state["order"] = list(ini["slots"])
            state["initiative"] = None
            emit(
                state,
                events,
                "Order of play: " + ", ".join(name(state, s) for s in state["order"]) + ".",
                "4.3",
                "initiative",
                data={"order": state["order"]},
            )
            begin_player_turn(state, state["order"][0], events)
            continue
        return


def h_end_turn(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    end_player_turn(state, seat, events)


def h_choose_slot(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    state["initiative"]["slots"][action["slot"]] = seat
    emit(
        state,
        events,
        f"{name(state, seat)} takes place {action['slot'] + 1} in the order of play.",
        "4.3",
        "initiative",
    )
