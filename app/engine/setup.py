"""Setting up a game (docs/rules.md 2): the scenario's powers, areas, relations,
decks, market, result counters and Fate deck; then the first game turn opens
(`sequence`)."""

from __future__ import annotations

from typing import Any

from app.engine import grand, rng
from app.engine.core import State, cx, geo, rel_key
from app.engine.deck import common_advisors, new_card
from app.engine.errors import BadSetup, UnknownScenario
from app.engine.fate import new_fate_deck, ruler_emperor
from app.engine.market import new_market
from app.engine.rules import ROUNDS_PER_TURN, YEARS_PER_ROUND
from app.engine.scoring import score
from app.engine.sequence import advance, start_game_turn
from app.engine.world import new_world

SCHEMA = 1


def new_game(
    scenario_id: str, seat_powers: list[str], seed: int, options: dict[str, Any] | None = None
) -> State:
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
    # 2: a scenario may play fewer turns than it spans unless the table asks for them all
    end_turn = int(options.get("end_turn", sc.get("default_turns", turns)))
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
    for seat, sc_row in score(state).items():
        state["players"][seat]["start_score"] = sc_row["total"]
    events: list[dict[str, Any]] = []
    start_game_turn(state, events)
    advance(state, events)
    return state


def geo_counters() -> dict[str, Any]:
    c: dict[str, Any] = cx().get("counters") or {}
    return c
