"""Sequence of play (docs/rules.md 2-4): setup, the diplomatic phase, rounds and
initiative, player turns, upkeep and the end; prompts, legal actions and
`apply`. `legal_actions` is the one source of legality: `apply` accepts exactly
what it lists."""

from __future__ import annotations

import json
from typing import Any

from app.engine import grand, memo, nomads, rng, usurpers
from app.engine.clone import copy_state
from app.engine.core import (
    State,
    ability_sum,
    card_name,
    card_type,
    clamp_popularity,
    deck_cards,
    emit,
    geo,
    has_ability,
    hegemon_of,
    name,
    owned,
    player,
    rel_key,
    relation,
    same_coalition,
    seat_of_power,
    seats,
)
from app.engine.deck import (
    common_advisors,
    discard_hand,
    draw_card,
    new_card,
    next_draw_pile,
    petition_cost,
)
from app.engine.economy import do_plunder, do_tax, rebellion_check, tax_options, waiver_seats
from app.engine.endeavours import (
    base_cost,
    defender_for,
    defense_cost,
    defense_terms,
    endeavour_actions,
    rating,
    resolve,
)
from app.engine.errors import BadSetup, IllegalAction, UnknownScenario
from app.engine.fate import (
    draw_fate,
    holding_actions,
    mortality_check,
    new_fate_deck,
    play_holding,
    ruler_emperor,
)
from app.engine.market import new_market, recruit, recruit_options
from app.engine.market import upkeep as market_upkeep
from app.engine.rules import MAX_DIPLO_MOVES, MAX_EXTRA_TALENTS, ROUNDS_PER_TURN, YEARS_PER_ROUND
from app.engine.world import new_world

SCHEMA = 1


# ====================================================================== setup (2)


def new_game(
    scenario_id: str, seat_powers: list[str], seed: int, options: dict[str, Any] | None = None
) -> State:
    from app.engine.core import cx

    g = geo()
    sc = g.scenarios.get(scenario_id)
    if sc is None:
        raise UnknownScenario(scenario_id)
    options = dict(options or {})
    powers = {pw["id"]: pw for pw in sc["powers"]}
    if not seat_powers:
        raise BadSetup("A game needs at least one seat.")
    for pw in seat_powers:
        if pw not in powers:
            raise BadSetup(f"{pw!r} is not a power of the scenario {sc['name']}.")
    if len(set(seat_powers)) != len(seat_powers):
        raise BadSetup("Each power can be played by one seat only.")
    lo, hi = int(sc.get("min_players", 1)), int(sc.get("max_players", len(powers)))
    if not lo <= len(seat_powers) <= hi:
        raise BadSetup(f"{sc['name']} is for {lo} to {hi} players.")
    for pw in seat_powers:
        missing = [r for r in powers[pw]["rulers"] if r not in g.rulers]
        if not powers[pw]["rulers"] or missing:
            raise BadSetup(f"The content pack lacks rulers for {pw}: {missing or 'none listed'}.")
    turns = int(sc.get("turns", 4))
    end_turn = int(options.get("end_turn", turns))
    if not 1 <= end_turn <= turns:
        raise BadSetup(f"end_turn must be between 1 and {turns}.")
    rounds = int(options.get("rounds", sc.get("rounds", ROUNDS_PER_TURN)))
    if not 1 <= rounds <= 8:
        raise BadSetup("rounds must be between 1 and 8.")
    start_year = int(sc["start_year"])
    state: State = {
        "schema": SCHEMA,
        "content_hash": cx().hash,
        "scenario": scenario_id,
        "seed": int(seed),
        "options": options,
        "rng": rng.seed_state(int(seed)),
        "turn": 1,
        "end_turn": end_turn,
        "rounds": rounds,
        "round": 0,
        "start_year": start_year,
        "years_per_turn": int(sc.get("years_per_turn", rounds * YEARS_PER_ROUND)),
        "year": start_year,
        "phase": "diplomacy",
        "order": list(range(len(seat_powers))),
        "active": None,
        "step": None,
        "players": [],
        "areas": {},
        "log_seq": 0,
        "next_card": 0,
        "interrupt": None,
        "parley": None,
        "request": None,
        "diplo": None,
        "grand": grand.fresh(),  # 20: pending offer, verdict, parleys due
        "initiative": None,
        "over": False,
        "result": None,
        "world": new_world(),  # 17.5, 24: usurpers and hordes
    }
    independents = sc.get("independents") or {}
    # 7.2: the map's languages and religions are those of c. 200 BC–200 AD; a scenario of
    # another era restates the areas that changed (a Christian Roman world in 530 CE).
    era = sc.get("area_overrides") or {}
    for a_id, a in sorted(g.areas.items()):
        over = independents.get(a_id) or {}
        culture = era.get(a_id) or {}
        state["areas"][a_id] = {
            "owner": None,
            "social": int(over.get("social", a.get("social", 0))),
            "unrest": False,
            "fort": int(over.get("fort", 0)),
            "ties": [],
            "claims": [],
            "partial": {},
            "buildings": [],
            "language": culture.get("language", a.get("language")),
            "religion": culture.get("religion", a.get("religion")),
            "usurper": None,
            "rebel_of": None,
            "convert": {},
        }
    for seat, pw_id in enumerate(seat_powers):
        pw = powers[pw_id]
        dynasty = list(pw["rulers"])
        emperor = ruler_emperor(dynasty[0], start_year, reigning=True)
        p = {
            "power": pw_id,
            "name": pw.get("name", pw_id),
            "colour": pw.get("colour"),
            "emperor": emperor,
            "dynasty": dynasty,
            "dynasty_index": 0,
            "fallen": [],
            "usurped": 0,
            "talents": int(pw.get("talents", 8)),
            "influence": int(pw.get("influence", 3)),
            "popularity": int(pw.get("popularity", 5)),
            "years_left": 0,
            "deck": {"draw": [], "discard": [], "hand": None, "removed": []},
            "holdings": [],
            "in_play": [],
            "innovations": [],
            "court": pw["court"],
            "exiled": False,
            "asylum": None,
            "accursed": False,
            "vp": 0,
            "conversions": 0,
            "strikes": 0,
            "petitions": 0,
            "passed": [],
            "shield_used": False,
            "redraw": False,
            "defenses": 0,
            "had_turn": False,
            "taxed": [],
            "tax_state": "open",
            "recruited": False,
            "parleys": [],
            "tribute_turn": None,
            "turn_record": {"success": 0, "fail": 0, "last_success": None, "last_fail": None},
            "start_score": 0,
        }
        state["players"].append(p)
        for a_id in pw["areas"]:
            if a_id in state["areas"]:
                state["areas"][a_id]["owner"] = seat
        for a_id in pw.get("claims", []):
            if a_id in state["areas"] and seat not in state["areas"][a_id]["claims"]:
                state["areas"][a_id]["claims"].append(seat)  # 18 P1
        for a_id in pw.get("ties", []):
            if a_id in state["areas"] and seat not in state["areas"][a_id]["ties"]:
                state["areas"][a_id]["ties"].append(seat)
        cards = common_advisors(state, emperor["statures"])
        for b in pw.get("burdens", []):
            cards.append(new_card(state, "burden", b))
        for nb in pw.get("notables", []):
            cards.append(new_card(state, "notable", nb))
        rng.shuffle(state, cards)
        p["deck"]["draw"] = cards
    pairs = {}
    sc_rel = sc.get("relations") or {}
    for i in range(len(seat_powers)):
        for j in range(i + 1, len(seat_powers)):
            key = f"{seat_powers[i]}|{seat_powers[j]}"
            alt = f"{seat_powers[j]}|{seat_powers[i]}"
            status = sc_rel.get(key) or sc_rel.get(alt) or "neutral"
            pairs[rel_key(i, j)] = {"status": status, "since": 0}
    state["relations"] = {"pairs": pairs, "hegemons": [], "coalitions": {}, "agreements": []}
    state["market"] = new_market(state, start_year, int(sc.get("end_year", start_year + 200)))
    values = (geo_counters()).get("values", {"0": 1})
    pool: list[int] = []
    for v, n in values.items():
        pool += [int(v)] * int(n)
    state["counters"] = {"pool": sorted(pool) or [0], "out": []}
    state["fate"] = {"deck": new_fate_deck(state), "discard": []}
    from app.engine.scoring import score

    for seat, sc_row in score(state).items():
        state["players"][seat]["start_score"] = sc_row["total"]
    events: list[dict[str, Any]] = []
    start_game_turn(state, events)
    advance(state, events)
    return state


def geo_counters() -> dict[str, Any]:
    from app.engine.core import cx

    c: dict[str, Any] = cx().get("counters") or {}
    return c


# ====================================================================== phases


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
        from app.engine.scoring import score

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
    from app.engine.scoring import outcome_of

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


# ====================================================================== parleys (20)


def parley_weight(state: State, seat: int) -> int:
    p = player(state, seat)
    return int(p["emperor"]["statures"].get("diplomacy", 0)) + ability_sum(
        state, seat, "parley_votes"
    )


def start_parley(
    state: State,
    caller: int,
    question: str,
    area: str,
    events: list[dict[str, Any]],
    against: int | None = None,
) -> None:
    g = geo()
    eligible = [s for s in seats(state) if not player(state, s)["accursed"]]
    state["parley"] = {
        "question": question,
        "caller": caller,
        "area": area,
        "against": against,
        "eligible": eligible,
        "votes": {},
        "weights": {str(s): parley_weight(state, s) for s in eligible},
    }
    what = "a claim to" if question == "claim" else "the diplomatic conquest of"
    emit(
        state,
        events,
        f"{name(state, caller)} calls a parley on {what} {g.areas[area]['name']}.",
        "20.4",
        "parley",
        data={"question": question, "area": area},
    )


def resolve_parley(state: State, events: list[dict[str, Any]]) -> None:
    """20.5: yes wins on a majority or a tie of weighted votes (20.41, 20.42)."""
    g = geo()
    pa = state["parley"]
    yes = sum(pa["weights"][s] for s, v in pa["votes"].items() if v == "yes")
    no = sum(pa["weights"][s] for s, v in pa["votes"].items() if v == "no")
    passed = yes >= no
    state["parley"] = None
    area = pa["area"]
    emit(
        state,
        events,
        f"The parley votes {yes} for, {no} against: {'carried' if passed else 'refused'}.",
        "20.5",
        "parley",
        data={"votes": pa["votes"], "yes": yes, "no": no},
    )
    grand.check_pledges(state, pa, events)  # 20.11: pledged votes
    if grand.resolve(state, pa, passed, events):  # 20.41, 20.43-20.45
        return
    if not passed:
        return
    if pa["question"] == "claim":
        state["areas"][area]["claims"].append(pa["caller"])
        emit(
            state,
            events,
            f"{name(state, pa['caller'])} gains a claim to {g.areas[area]['name']}.",
            "18.32",
            "claim",
        )


def parley_options(state: State, seat: int) -> list[dict[str, Any]]:
    """18.2, 20.42: a claim parley on an owned area with a tie, claimed by another, once per round."""
    p = player(state, seat)
    if p["accursed"] or len(state["players"]) < 2:
        return []
    out = []
    for a in owned(state, seat):
        area = state["areas"][a]
        if (
            seat in area["ties"]
            and seat not in area["claims"]
            and any(s != seat for s in area["claims"])
            and a not in p["parleys"]
            and area["religion"] == p["emperor"]["religion"]
        ):
            out.append({"type": "call_parley", "area": a})
    return out


# ====================================================================== prompts


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
    offered = grand.prompts(state)  # 20.41/20.43 verdicts, 20.14 offers
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


# ====================================================================== legal actions


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """Every action the seat may take now. On a state driven in place
    (`apply_in_place`, `clone`), the list is computed once per position and
    kept outside the state (`memo`); callers get their own list of the same
    action dicts, which they must not change."""
    if type(seat) is not int or not 0 <= seat < len(state["players"]):
        return []
    entry = memo.tracked(state)
    if entry is None or entry.moving:
        with memo.scope():
            return _legal_actions(state, seat)
    legal = entry.legal.get(seat)
    if legal is None:
        with memo.scope():
            legal = entry.legal[seat] = _legal_actions(state, seat)
    return legal[:]


def _legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    prompts = [pr for pr in pending(state) if pr["seat"] == seat]
    if not prompts:
        return []
    kind = prompts[0]["kind"]
    p = player(state, seat)
    out: list[dict[str, Any]] = []
    if kind == "vote":
        return [{"type": "vote", "choice": c} for c in ("yes", "no", "abstain")]
    if kind == "request":
        if prompts[0]["request"] in ("offer", "verdict"):
            return grand.request_actions(state, seat, prompts[0])
        if prompts[0]["request"] == "waive_tie":
            area = prompts[0]["area"]
            return [
                {"type": "waive_tie", "area": area, "waive": True},
                {"type": "waive_tie", "area": area, "waive": False},
            ]
        power = state["players"][prompts[0]["from"]]["power"]
        what = prompts[0]["request"]  # peace | join
        return [
            {"type": "diplo", "move": f"accept_{what}", "power": power},
            {"type": "diplo", "move": f"reject_{what}", "power": power},
        ]
    if kind == "defend" and nomads.pending_raid(state):
        return nomads.defend_actions(state, seat)  # 24.13
    if kind == "defend":
        it = state["interrupt"]
        cost = defense_cost(state, seat, it["action"]["target"]) or 1
        top = max(0, min(MAX_EXTRA_TALENTS, p["talents"] - cost))
        return [{"type": "defend", "talents": t} for t in range(top + 1)] + [{"type": "decline"}]
    if kind == "diplomacy":
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
                if not hegemon and not junior and other in rels["hegemons"]:
                    out.append({"type": "diplo", "move": "join", "power": power})  # 3.53
                if p["exiled"] and p["asylum"] is None and not player(state, other)["exiled"]:
                    out.append({"type": "diplo", "move": "ask_asylum", "power": power})  # 21.2
                if player(state, other)["asylum"] == seat:
                    out.append({"type": "diplo", "move": "revoke_asylum", "power": power})  # 21.2
            out += grand.diplo_actions(state, seat)  # 20.14, 20.3
        return out
    if kind == "initiative":
        return [
            {"type": "choose_slot", "slot": i}
            for i, s in enumerate(state["initiative"]["slots"])
            if s is None
        ]
    if kind == "advisor":
        card = p["deck"]["hand"]
        if card_type(card) is not None:
            out += endeavour_actions(state, seat)
        if next_draw_pile(p) and p["influence"] >= petition_cost(state, seat):
            out.append({"type": "petition"})
        out.append({"type": "dismiss"})
        out += holding_actions(state, seat, "drawn")
        return out
    # kind == "turn"
    if p["years_left"] > 0 and (p["deck"]["draw"] or p["deck"]["discard"]):
        out.append({"type": "draw"})
    out += tax_options(state, seat)
    out += recruit_options(state, seat)
    out += holding_actions(state, seat, "start")
    out += parley_options(state, seat)
    out += grand.turn_actions(state, seat)  # 20.14, 20.45
    out += usurpers.buy_off_options(state, seat)  # 17.56, 21.31
    for a, area in sorted(state["areas"].items()):
        if seat in area["ties"]:
            out.append({"type": "remove_tie", "area": a})  # 12.43
    for a in owned(state, seat):
        if state["areas"][a]["fort"]:
            out.append({"type": "reduce_fort", "area": a})  # 14.43
    out.append({"type": "end_turn"})
    return out


def default_action(state: State, prompt: dict[str, Any]) -> dict[str, Any]:
    """What a passed deadline does: pass, decline, abstain, dismiss, end the turn."""
    kind = prompt.get("kind")
    seat = int(prompt.get("seat", -1))
    legal = legal_actions(state, seat)
    prefs: list[dict[str, Any]] = []
    if kind == "vote":
        prefs = [{"type": "vote", "choice": "abstain"}]
    elif kind == "request":
        prefs = [
            a
            for a in legal
            if a.get("waive") is False
            or str(a.get("move", "")).startswith("reject_")
            or a.get("answer") == "refuse"
            or a.get("comply") is True
        ]
    elif kind == "defend":
        prefs = [{"type": "decline"}]
    elif kind == "diplomacy":
        prefs = [{"type": "diplo", "move": "pass"}]
    elif kind == "advisor":
        prefs = [{"type": "dismiss"}]
    elif kind == "turn":
        prefs = [{"type": "end_turn"}]
    for a in prefs:
        if a in legal:
            return a
    if legal:
        return legal[0]
    raise IllegalAction("There is nothing to decide for that prompt.", "no_prompt")


# ====================================================================== apply


def _norm(action: Any) -> dict[str, Any]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("An action must be an object with a 'type'.", "malformed")
    return dict(action)


def diagnose(state: State, seat: int, action: dict[str, Any]) -> IllegalAction:
    """A reason a person can read for an action `legal_actions` does not list."""
    if state["over"]:
        return IllegalAction("The game is over.", "game_over")
    if type(seat) is not int or not 0 <= seat < len(state["players"]):
        return IllegalAction("There is no such seat in this game.", "bad_seat")
    prompts = [pr for pr in pending(state) if pr["seat"] == seat]
    if not prompts:
        waiting = ", ".join(sorted({name(state, pr["seat"]) for pr in pending(state)}))
        return IllegalAction(
            f"It is not your decision now; waiting for {waiting}.", "not_your_turn"
        )
    t = action.get("type")
    kind = prompts[0]["kind"]
    p = player(state, seat)
    expected = {
        "vote": {"vote"},
        "request": {"waive_tie", "diplo", "answer_offer", "verdict", "offer"},
        "defend": {"defend", "decline"},
        "diplomacy": {"diplo", "offer", "renounce"},
        "initiative": {"choose_slot"},
        "advisor": {"endeavour", "petition", "dismiss", "play"},
        "turn": {
            "draw",
            "tax",
            "plunder",
            "recruit",
            "play",
            "call_parley",
            "remove_tie",
            "reduce_fort",
            "buy_off",
            "end_turn",
            "offer",
            "readmission",
        },
    }[kind]
    if t not in expected:
        return IllegalAction(
            f"You must answer the {kind} prompt first ({', '.join(sorted(expected))}).",
            "wrong_prompt",
        )
    if t in grand.ACTION_TYPES:
        return grand.diagnose(state, seat, action, kind)
    if t == "draw" and p["years_left"] <= 0:
        return IllegalAction("You have no years left this round.", "no_years")
    if t == "petition":
        cost = petition_cost(state, seat)
        if p["influence"] < cost:
            return IllegalAction(
                f"A petition now costs {cost} influence; you have {p['influence']}.", "no_influence"
            )
        return IllegalAction("Your deck has no card left to draw.", "empty_deck")
    if t in ("tax", "plunder"):
        if p["tax_state"] == "closed":
            return IllegalAction(
                "Your taxation segment is over: all taxes are raised at once (16.14).", "tax_closed"
            )
        if action.get("area") in p["taxed"]:
            return IllegalAction("That area was already taxed this turn (16.15).", "taxed")
        return IllegalAction(
            "You may tax only your own connected areas, up to their social state (16.11-16.13).",
            "bad_tax",
        )
    if t == "recruit":
        if p["recruited"]:
            return IllegalAction("You have already recruited this turn (6.6).", "recruited")
        return IllegalAction(
            "You cannot afford that card, or there is no such slot.", "cannot_afford"
        )
    if t == "endeavour":
        card = p["deck"]["hand"]
        k = action.get("kind")
        from app.engine.endeavours import kinds_for

        if k not in kinds_for(card):
            return IllegalAction(f"{card_name(card)} cannot undertake {k!r}.", "wrong_advisor")
        if not isinstance(action.get("talents"), int) or action["talents"] < 0:
            return IllegalAction("Talents must be a whole number, 0 or more.", "bad_talents")
        try:
            cost, _ = base_cost(
                state,
                seat,
                str(k),
                str(action.get("base")),
                str(action.get("target")),
                action.get("option"),
            )
        except (KeyError, TypeError):
            return IllegalAction(
                "That base or target is not valid for this endeavour.", "bad_target"
            )
        if cost + action["talents"] > p["talents"]:
            return IllegalAction(
                f"That costs {cost + action['talents']} talents; you have {p['talents']}.",
                "cannot_afford",
            )
        return IllegalAction("That base or target is not valid for this endeavour.", "bad_target")
    return IllegalAction("That action is not allowed now.", "illegal")


def _check(state: State, seat: int, action: Any) -> dict[str, Any]:
    """The action as `apply` works on it, or the `IllegalAction` that refuses it."""
    act = _norm(action)
    if state.get("over"):
        raise IllegalAction("The game is over.", "game_over")
    legal = legal_actions(state, seat)
    if act["type"] == "offer":  # 20.14: any offer that fits a listed template
        return grand.check_offer(state, seat, act, legal)
    key = json.dumps(act, sort_keys=True)  # type-exact: True is not 1
    if not any(a == act and json.dumps(a, sort_keys=True) == key for a in legal):
        raise diagnose(state, seat, act)
    return act


def apply(state: State, seat: int, action: Any) -> tuple[State, list[dict[str, Any]]]:
    act = _check(state, seat, action)
    st = copy_state(state)
    events: list[dict[str, Any]] = []
    with memo.scope():
        HANDLERS[act["type"]](st, seat, act, events)
        advance(st, events)
    return st, events


def apply_in_place(
    state: State, seat: int, action: Any, *, undoable: bool = True
) -> tuple[memo.Undo | None, list[dict[str, Any]]]:
    """`apply` on the state itself, for bots and search (docs/engine-contract.md,
    "In place"). Returns ``(token, events)``: ``undo(state, token)`` puts the
    state back exactly as it was; with ``undoable=False`` the token is ``None``
    and nothing is kept (a bot playing on, a playout from a `clone`). The
    action is checked exactly as `apply` checks it; an illegal one raises
    `IllegalAction` and leaves the state untouched. The events are detached
    copies: later moves never change them."""
    act = _check(state, seat, action)
    entry = memo.track(state)
    token = memo.Undo(state, entry) if undoable else None
    entry.moved()
    if token is not None:
        token.stamp_after = entry.stamp
    events: list[dict[str, Any]] = []
    try:
        entry.moving = True
        with memo.scope():
            HANDLERS[act["type"]](state, seat, act, events)
            advance(state, events)
        entry.moving = False
    except BaseException:
        entry.moving = False
        if token is not None:
            memo.restore(state, token)
        else:
            memo.forget(state)  # half applied: no memo may trust it now
        raise
    return token, memo.detach(events)


def undo(state: State, token: memo.Undo) -> None:
    """Take back the `apply_in_place` that gave ``token``: the state is again,
    key for key, what it was before (the same `state_hash`). Tokens are taken
    back last first, each once; anything else raises `EngineError`."""
    memo.restore(state, token)


# ---------------------------------------------------------------- handlers


def _close_tax(state: State, seat: int) -> None:
    p = player(state, seat)
    if p["tax_state"] == "taxing":
        p["tax_state"] = "closed"  # 16.14


def h_draw(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """5.4: spend a year and draw the top advisor."""
    _close_tax(state, seat)
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
            f"{name(state, seat)} draws a burden: strike {p['strikes']}.",
            "5.6",
            "strike",
        )
    elif p["petitions"] and card_type(card) in p.get("passed", []):
        # 5.6: on a petition, an advisor of a type already sent away this turn will not
        # be passed over twice: the petition fails at once (two strikes).
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
            f"Two strikes: {name(state, seat)}'s petition fails; popularity -1 and the year is spent.",
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
    _close_tax(state, seat)
    recruit(state, seat, action["slot"], action["pay"], events)


def h_play(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    if state["step"] == "start":
        _close_tax(state, seat)
    play_holding(state, seat, action, events)


def h_call_parley(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    _close_tax(state, seat)
    player(state, seat)["parleys"].append(action["area"])  # 20.53
    start_parley(state, seat, "claim", action["area"], events)


def h_vote(state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    pa = state["parley"]
    pa["votes"][str(seat)] = action["choice"]
    emit(state, events, f"{name(state, seat)} has voted.", "20.5", "vote")
    if all(str(s) in pa["votes"] for s in pa["eligible"]):
        resolve_parley(state, events)


def h_remove_tie(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    _close_tax(state, seat)
    state["areas"][action["area"]]["ties"].remove(seat)
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
    _close_tax(state, seat)
    area = state["areas"][action["area"]]
    area["fort"] = 2 if area["fort"] == 3 else 0
    emit(
        state,
        events,
        f"{name(state, seat)} slights the fortifications of {geo().areas[action['area']]['name']}.",
        "14.43",
        "fort",
    )


def h_end_turn(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    end_player_turn(state, seat, events)


def h_buy_off(
    state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """17.56 / 21.31: buy off a usurper."""
    _close_tax(state, seat)
    usurpers.buy_off(state, seat, action, events)


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
            for foe in seats(state):  # 3.53: the partner's own wars give way to the hegemon's
                if foe != pr["from"] and relation(state, pr["from"], foe)["status"] == "war":
                    relation(state, pr["from"], foe).update(status="neutral", since=state["turn"])
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
            rels["coalitions"].pop(str(seat), None)
            for foe in seats(state):
                if foe != seat and relation(state, seat, foe)["status"] == "war":
                    relation(state, seat, foe).update(status="neutral", since=state["turn"])
            p = player(state, seat)
            p["popularity"] -= 1
            clamp_popularity(p)
            emit(
                state,
                events,
                f"{name(state, seat)} relinquishes the hegemony: its coalition dissolves and its wars end; popularity -1.",
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


HANDLERS = {
    "draw": h_draw,
    "petition": h_petition,
    "dismiss": h_dismiss,
    "endeavour": h_endeavour,
    "defend": h_defend,
    "decline": h_defend,
    "tax": h_tax,
    "plunder": h_tax,
    "waive_tie": h_waive,
    "recruit": h_recruit,
    "play": h_play,
    "call_parley": h_call_parley,
    "vote": h_vote,
    "remove_tie": h_remove_tie,
    "reduce_fort": h_reduce_fort,
    "end_turn": h_end_turn,
    "buy_off": h_buy_off,
    "choose_slot": h_choose_slot,
    "diplo": h_diplo,
    **grand.HANDLERS,
}

__all__ = [
    "new_game",
    "pending",
    "legal_actions",
    "apply",
    "apply_in_place",
    "undo",
    "default_action",
]
