"""Endeavours (docs/rules.md 9-15, 8, 22.2): targets, effectiveness ratings,
result counters and results."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from app.engine import rng
from app.engine.core import (
    State,
    ability_sum,
    card_type,
    clamp_popularity,
    emit,
    geo,
    has_ability,
    leader,
    loc_costs,
    may_attack,
    name,
    own_area,
    owned,
    player,
    seat_of_power,
)
from app.engine.defense import defender_for as defender_for  # re-exported (13)
from app.engine.defense import defense_cost as defense_cost
from app.engine.defense import defense_terms as defense_terms
from app.engine.economy import check_after_waivers, revolt
from app.engine.endeavour_results import conquer as conquer  # re-exported
from app.engine.endeavour_results import conversion_differential as conversion_differential
from app.engine.endeavour_results import (
    convert_result,
    diplomacy_result,
    partial_conquest,
    remove_one_burden,
    social_change,
    yield_bonus,
)
from app.engine.fate import mortality_check
from app.engine.grand import religion_gap
from app.engine.nomads import tribute_open, tribute_price
from app.engine.ownership import change_owner, claim_possible
from app.engine.rules import (
    MAX_EXTRA_TALENTS,
    NEGATIVE,
    PLUNDER_TABLE,
    RESULT_TEXT,
    SPECS,
    result_for,
)
from app.engine.usurper_records import courts as usurper_courts
from app.engine.usurper_records import of_area as usurper_of

Term = dict[str, Any]


# ---------------------------------------------------------------- counters (9.4)


def draw_counter(state: State) -> int:
    """9.4: draw one result counter at random; it is set aside face up until the
    pool is empty, then every counter returns."""
    c = state["counters"]
    if not c["pool"]:
        c["pool"] = sorted(c["pool"] + c["out"])
        c["out"] = []
    i = rng.below(state, len(c["pool"]))
    value = int(c["pool"].pop(i))
    c["out"].append(value)
    return value


# counter_distribution memo: (pool, out, draws) -> distribution. A pure function
# of its key, asked again for every endeavour `explain`ed on one state.
_DIST_MEMO: dict[tuple[Any, ...], dict[int, Fraction]] = {}
_DIST_MEMO_MAX = 4096


def counter_distribution(state: State, draws: int = 1) -> dict[int, Fraction]:
    """Exact distribution of the counter used (the best of ``draws``) from the pool now."""
    key = (tuple(state["counters"]["pool"]), tuple(state["counters"]["out"]), draws)
    dist = _DIST_MEMO.get(key)
    if dist is None:
        if len(_DIST_MEMO) >= _DIST_MEMO_MAX:
            _DIST_MEMO.clear()
        dist = _DIST_MEMO[key] = _counter_distribution(list(key[0]), list(key[1]), draws)
    return dict(dist)


def _counter_distribution(pool: list[int], out: list[int], draws: int) -> dict[int, Fraction]:
    dist: dict[int, Fraction] = {}

    def rec(pool: list[int], out: list[int], left: int, best: int | None, p: Fraction) -> None:
        if left == 0:
            assert best is not None
            dist[best] = dist.get(best, Fraction(0)) + p
            return
        if not pool:
            pool, out = sorted(pool + out), []
        n = len(pool)
        seen: dict[int, int] = {}
        for v in pool:
            seen[v] = seen.get(v, 0) + 1
        for v, k in seen.items():
            rest = list(pool)
            rest.remove(v)
            rec(rest, out + [v], left - 1, v if best is None else max(best, v), p * Fraction(k, n))

    rec(pool, out, max(1, draws), None, Fraction(1))
    return dist


# ---------------------------------------------------------------- targets


def partial_against(area: dict[str, Any]) -> int:
    """10.33: the number of enemy C results standing against an area."""
    return sum(sum(bases.values()) for bases in area["partial"].values())


def own_areas_reached(state: State, seat: int, costs: dict[str, int]) -> list[str]:
    return [a for a in owned(state, seat) if a in costs]


def burden_targets(state: State, seat: int, kind: str) -> list[str]:
    g = geo()
    refs = set()
    deck = player(state, seat)["deck"]
    for card in deck["draw"] + deck["discard"]:
        if card["kind"] == "burden" and kind in g.burdens.get(card["ref"], {}).get(
            "removed_by", []
        ):
            refs.add(card["ref"])
    return sorted(refs)


def targets(
    state: State, seat: int, kind: str, costs: dict[str, int] | None = None
) -> list[tuple[str, str, str | None]]:
    """Every (base, target, option) a seat may choose for an endeavour kind."""
    g = geo()
    p = player(state, seat)
    court = p["court"]
    areas = state["areas"]
    spec = SPECS[kind]
    out: list[tuple[str, str, str | None]] = []
    if p["exiled"] or court is None:
        if kind != "diplomacy" or p["asylum"] is None:
            return out  # 21.1: an exile undertakes no endeavours ...
        court = state["players"][p["asylum"]][
            "court"
        ]  # 21.2: ... but diplomacy from a host's court
        if court is None:
            return out
    if costs is None:
        costs = loc_costs(state, seat)
    t = spec["target"]
    if t == "area_adjacent":
        for base in own_areas_reached(state, seat, costs):
            cands = g.land.get(base, set()) | g.sea_near.get(base, set())
            for target in sorted(cands):
                ta = areas[target]
                if ta["owner"] == seat or target not in costs:
                    continue
                if not may_attack(state, seat, ta["owner"]):
                    continue
                if kind == "pillage" and ta["social"] <= -3:
                    continue  # 11.0
                out.append((base, target, None))
    elif t == "own_area":
        for a in own_areas_reached(state, seat, costs):
            if kind == "fortify" and areas[a]["fort"] >= 3:
                continue  # 14.0
            if kind == "ruling" and areas[a]["social"] >= 3 and not areas[a]["unrest"]:
                continue
            if kind == "census" and areas[a]["social"] <= 0:
                continue
            if kind == "build":
                for b_id, b in sorted(g.buildings.items()):
                    have = areas[a]["buildings"].count(b_id)
                    if (
                        have < int(b.get("max_per_area", 1))
                        and p["talents"] >= int(b["cost"]) + costs[a]
                    ):
                        out.append((a, a, b_id))
                continue
            out.append((a, a, None))
    elif t == "own_unrest":
        for a in own_areas_reached(state, seat, costs):
            if areas[a]["unrest"]:
                out.append((a, a, None))
        for a, s in sorted(areas.items()):
            if s["owner"] is None and s.get("rebel_of") == seat and a in costs:
                out.append((a, a, None))
    elif t == "own_foreign_tongue":
        lang = leader(state, seat)["language"]
        for a in own_areas_reached(state, seat, costs):
            if areas[a]["language"] != lang:
                out.append((a, a, None))
    elif t == "own_foreign_faith":
        rel = leader(state, seat)["religion"]
        for a in own_areas_reached(state, seat, costs):
            if areas[a]["religion"] != rel:
                out.append((a, a, None))
    elif t == "any_area":
        courts = {q["court"] for i, q in enumerate(state["players"]) if i != seat}
        courts |= usurper_courts(state)
        for a, s in sorted(areas.items()):
            if a in courts:
                continue  # 12.16: no rival's court, no usurper's court
            if s["owner"] == seat and seat in s["ties"]:
                continue  # 12.14: nothing left to gain
            out.append((court, a, None))
    elif t == "claim_area":
        for a in owned(state, seat):
            if claim_possible(state, seat, a):
                out.append((court, a, None))
    elif t == "court":
        if kind != "tribute" or tribute_open(state, seat):  # 24.2
            out.append((court, court, None))
    elif t == "burden":
        for ref in burden_targets(state, seat, kind):
            out.append((court, ref, None))
    elif t == "rival":
        for i, q in enumerate(state["players"]):
            if i != seat:
                out.append((court, q["power"], None))
    elif t == "rival_area":
        courts = {q["court"] for q in state["players"]}
        for a, s_ in sorted(areas.items()):
            if s_["owner"] is not None and s_["owner"] != seat and a not in courts:
                out.append((court, a, None))
    elif t == "innovation":
        for inn_id, inn in sorted(g.innovations.items()):
            if inn_id not in p["innovations"] and p["talents"] >= int(inn["cost"]):
                out.append((court, inn_id, None))
    elif t == "tie_area":
        for a, s in sorted(areas.items()):
            for other in s["ties"]:
                if other != seat:
                    out.append((court, a, state["players"][other]["power"]))
    return out


def kinds_for(card: dict[str, Any]) -> list[str]:
    t = card_type(card)
    if t is None:
        return []
    return list(geo().endeavours.get(t, []))


# ---------------------------------------------------------------- cost and rating


def base_cost(
    state: State,
    seat: int,
    kind: str,
    base: str,
    target: str,
    option: str | None,
    costs: dict[str, int] | None = None,
) -> tuple[int, list[Term]]:
    """9.2 and 9.17: the talents an endeavour costs before any extra talents."""
    g = geo()
    spec = SPECS[kind]
    terms: list[Term] = []
    cost = int(spec["cost"])
    if kind == "build" and option:
        cost = int(g.buildings[option]["cost"])
    if kind == "science":
        cost = int(g.innovations[target]["cost"])
    if kind == "tribute":
        cost = tribute_price(state, seat)  # 24.2: priced against the hordes' threat
    terms.append({"term": f"{kind} cost", "value": cost, "rule": spec["rule"]})
    if spec["where"] in ("foreign", "domestic") and target in state["areas"]:
        sea = (loc_costs(state, seat) if costs is None else costs).get(target, 0)
        if sea and has_ability(state, seat, "ignore_sea_cost"):
            sea = 0
        if sea:
            terms.append(
                {"term": "sea zones on the line of communications", "value": sea, "rule": "9.17"}
            )
            cost += sea
    return cost, terms


def max_talents(state: State, seat: int, cost: int) -> int:
    return max(-1, min(MAX_EXTRA_TALENTS, player(state, seat)["talents"] - cost))


def rating(
    state: State,
    seat: int,
    card: dict[str, Any],
    kind: str,
    base: str,
    target: str,
    option: str | None,
    talents: int,
) -> tuple[int, list[Term]]:
    """9.3: the effectiveness rating, term by term."""
    g = geo()
    spec = SPECS[kind]
    areas = state["areas"]
    p = player(state, seat)
    lead = p["emperor"]
    stature = card_type(card) or "military"
    terms: list[Term] = [
        {
            "term": f"{lead['name']}'s {stature} stature",
            "value": int(lead["statures"].get(stature, 0)),
            "rule": "9.31",
        }
    ]
    if card["kind"] == "notable":
        bonus = int(g.notables.get(card["ref"], {}).get("bonus", 0))
        if bonus:
            terms.append(
                {
                    "term": f"{g.notables[card['ref']]['name']}'s bonus",
                    "value": bonus,
                    "rule": "6.3",
                }
            )
    where = spec["where"]
    social_area = base if where in ("foreign", "court") else target  # 9.32 (an exile's base: 21.2)
    if social_area in areas:
        terms.append(
            {
                "term": f"social state of {g.areas[social_area]['name']}",
                "value": int(areas[social_area]["social"]),
                "rule": "9.32",
            }
        )
    if talents:
        terms.append({"term": "extra talents", "value": talents, "rule": "9.33"})
    tarea = areas.get(target)
    if spec["culture"] and tarea is not None:
        ld = g.language_diff(lead["language"], tarea["language"])
        rd, cursed = religion_gap(state, seat, g.religion_diff(lead["religion"], tarea["religion"]))
        if ld:
            terms.append({"term": "language difference", "value": -ld, "rule": "9.34"})
        if rd:
            terms.append(
                {
                    "term": "religion difference" + (" (accursed)" if cursed else ""),
                    "value": -rd,
                    "rule": cursed or "9.35",
                }
            )
    if (
        kind in ("conquest", "pillage", "convert", "plot_bribe")
        and tarea is not None
        and tarea["fort"]
    ):
        terms.append({"term": "fortifications", "value": -int(tarea["fort"]), "rule": "14.31"})
    # 10.33: the owner of a partially conquered area acting from or in it
    # Diplomacy is a foreign endeavour based in the court (12.1, 12.11), so its base counts too.
    abroad = where == "foreign" or spec.get("based_in_court", False)
    penal_area = base if abroad else (target if where == "domestic" else None)
    if penal_area in areas and areas[penal_area]["owner"] == seat:
        pen = partial_against(areas[penal_area])
        if pen:
            terms.append(
                {"term": "enemy C results against the area", "value": -pen, "rule": "10.33"}
            )
    if kind in ("conquest", "pillage") and tarea is not None and tarea["usurper"]:
        u = usurper_of(state, target)
        if u is not None:
            terms.append(
                {"term": f"{u['name']} defends", "value": -int(u["rating"]), "rule": "17.55"}
            )
    if kind == "diplomacy" and tarea is not None:
        owner = tarea["owner"]
        if owner is None:
            if tarea.get("usurper"):
                terms.append({"term": "usurper's area", "value": -5, "rule": "12.20"})
            else:
                terms.append({"term": "independent area", "value": -3, "rule": "12.18"})
        elif owner != seat:
            rival = state["players"][owner]["emperor"]
            terms.append(
                {
                    "term": f"{rival['name']}'s diplomacy stature",
                    "value": -int(rival["statures"].get("diplomacy", 0)),
                    "rule": "12.17",
                }
            )
    if spec["target"] in ("rival", "tie_area", "rival_area"):
        if spec["target"] == "rival_area":
            other = areas[target]["owner"]
        elif spec["target"] == "tie_area":
            other = seat_of_power(state, option or "")
        else:
            other = seat_of_power(state, target)
        if other is not None:
            rival = state["players"][other]["emperor"]
            terms.append(
                {
                    "term": f"{rival['name']}'s counter-plots (intrigue)",
                    "value": -int(rival["statures"].get("intrigue", 0)),
                    "rule": "8.7",
                }
            )
    bonus = ability_sum(state, seat, "rating_bonus", kind)
    if kind == "science":
        bonus += sum(
            int(g.buildings[b]["effect"].get("amount", 1))
            for a in owned(state, seat)
            for b in areas[a]["buildings"]
            if g.buildings.get(b, {}).get("effect", {}).get("op") == "rating_bonus"
        )
    if bonus:
        terms.append({"term": "innovations and notables", "value": bonus, "rule": "6.4"})
    if kind in ("conquest", "pillage"):
        mil = ability_sum(state, seat, "military_innovation")
        if mil:
            terms.append({"term": "military innovations", "value": mil, "rule": "19.41"})
    if kind == "fortify":
        fb = ability_sum(state, seat, "fort_bonus")
        if fb:
            terms.append({"term": "building techniques", "value": fb, "rule": "6.7"})
    return sum(int(t["value"]) for t in terms), terms


def counter_draws(state: State, seat: int, card: dict[str, Any], kind: str) -> int:
    """6.4: counter_plus abilities let the acting advisor draw extra counters."""
    g = geo()
    extra = 0
    if card["kind"] == "notable":
        ab = g.notables.get(card["ref"], {}).get("ability") or {}
        if ab.get("op") == "counter_plus":
            extra += int(ab.get("amount", 1))
    for inn in player(state, seat)["innovations"]:
        eff = g.innovations.get(inn, {}).get("effect", {})
        if eff.get("op") == "counter_plus" and eff.get("endeavour") in (None, kind):
            extra += int(eff.get("amount", 1))
    if player(state, seat).get("redraw"):
        extra += 1
    return 1 + extra


# ---------------------------------------------------------------- odds


# result_odds memo: (pool, out, draws, kind, final rating) -> odds. The odds
# depend on nothing else; bots and the UI ask for the same few ratings again and
# again while the pool stands still. A pure memo: it changes no result.
_ODDS_MEMO: dict[tuple[Any, ...], dict[str, float]] = {}
_ODDS_MEMO_MAX = 8192


def result_odds(
    state: State, seat: int, card: dict[str, Any], kind: str, total: int
) -> dict[str, float]:
    draws = counter_draws(state, seat, card, kind)
    counters = state["counters"]
    key = (tuple(counters["pool"]), tuple(counters["out"]), draws, kind, total)
    hit = _ODDS_MEMO.get(key)
    if hit is None:
        dist = counter_distribution(state, draws)
        odds: dict[str, Fraction] = {}
        for v, pr in dist.items():
            code = result_for(kind, total + v)
            odds[code] = odds.get(code, Fraction(0)) + pr
        if len(_ODDS_MEMO) >= _ODDS_MEMO_MAX:
            _ODDS_MEMO.clear()
        hit = _ODDS_MEMO[key] = {code: float(pr) for code, pr in sorted(odds.items())}
    return dict(hit)


# ---------------------------------------------------------------- resolution

#: 9.5's results in the chronicle's third person, where RESULT_TEXT speaks to the
#: player who tries the endeavour ("your base area")
LOG_RESULT = {
    "-1B": "their own base area loses a social level",
    "-1T+G": "the target loses a social level and they take plunder",
    "G": "they carry off gold",
    "A": "the area adopts their language",
    "I": "intelligence: they see the rival's holding cards (his hand) and treasury",
    "none": "nothing happens",
}


def counter_words(drawn: list[int], counter: int) -> str:
    """9.4-9.5 in words: "the counter drawn is -2", or with more than one draw
    "the counters drawn are -2 and +1; the best, +1, counts"."""
    if len(drawn) == 1:
        return f"the counter drawn is {counter:+d}"
    shown = [f"{d:+d}" for d in drawn]
    listed = ", ".join(shown[:-1]) + f" and {shown[-1]}"
    return f"the counters drawn are {listed}; the best, {counter:+d}, counts"


def resolve(
    state: State,
    seat: int,
    action: dict[str, Any],
    card: dict[str, Any],
    total: int,
    terms: list[Term],
    events: list[dict[str, Any]],
) -> str:
    """Draw the counter(s), read the result and apply it (9.5)."""
    g = geo()
    kind = action["kind"]
    base, target, option = action["base"], action["target"], action.get("option")
    p = player(state, seat)
    draws = counter_draws(state, seat, card, kind)
    p["redraw"] = False
    drawn = [draw_counter(state) for _ in range(draws)]
    counter = max(drawn)
    final = total + counter
    code = result_for(kind, final)
    areas = state["areas"]
    if target in g.areas:
        aname = g.areas[target]["name"]
    elif (rival := seat_of_power(state, target)) is not None:
        aname = name(state, rival)  # a spy or a plot aims at a ruler, not an area
    else:
        aname = target
    emit(
        state,
        events,
        f"{name(state, seat)}'s {kind.replace('_', ' ')} against {aname}: rating {total}, "
        f"{counter_words(drawn, counter)}, so the final rating is {final}. "
        f"Result: {LOG_RESULT.get(code) or RESULT_TEXT.get(code, code)}.",
        SPECS[kind]["rule"],
        "endeavour",
        data={
            "kind": kind,
            "base": base,
            "target": target,
            "rating": total,
            "counter": counter,
            "drawn": drawn,
            "final": final,
            "result": code,
            "terms": terms,
        },
    )
    if kind == "conquest" and code == "C":
        partial_conquest(state, seat, base, target, events)
    elif code == "-1B":
        social_change(state, base, -1)
        emit(state, events, f"{g.areas[base]['name']} loses a social level.", "10.2", "social")
    elif kind == "pillage" and code in ("-1T+G", "G"):
        if code == "-1T+G":
            social_change(state, target, -1)
        roll = rng.die(state)
        gold = PLUNDER_TABLE[roll]
        p["talents"] += gold
        emit(state, events, f"Pillage yields {gold} talents (die {roll}).", "11.3", "gold")
    elif kind == "suppress" and code == "S":
        area = own_area(state, target)
        if area["owner"] == seat:
            area["unrest"] = False
            emit(state, events, f"Unrest in {aname} is suppressed.", "10.5", "unrest")
        else:
            change_owner(state, target, seat, events, "suppress")
            area["unrest"] = True
            emit(
                state,
                events,
                f"{name(state, seat)} brings rebel {aname} back; it stays in unrest.",
                "10.5",
                "conquest",
            )
    elif code == "-1T":
        social_change(state, target, -1)
        emit(state, events, f"{aname} loses a social level.", SPECS[kind]["rule"], "social")
    elif kind == "ruling":
        if code == "+1":
            social_change(state, target, 1)
        if areas[target]["unrest"]:
            own_area(state, target)["unrest"] = False
            emit(state, events, f"Unrest in {aname} is quelled.", "15.3", "unrest")
    elif kind in ("reform", "purge") and code == "R":
        remove_one_burden(state, seat, target, events)
    elif kind == "census" and code == "G":
        gain = max(0, areas[target]["social"]) + yield_bonus(target, state)
        p["talents"] += gain
        emit(
            state,
            events,
            f"The census of {aname} yields {gain} talents without a rebellion check.",
            "16.3",
            "gold",
        )
    elif kind == "diplomacy":
        diplomacy_result(state, seat, target, code, events)
    elif kind == "claim" and code == "K":
        own_area(state, target)["claims"].append(seat)
        emit(
            state, events, f"{name(state, seat)}'s claim to {aname} is recognised.", "18.4", "claim"
        )
    elif code == "TR":
        p["tribute_turn"] = state["turn"]
        emit(
            state,
            events,
            f"{name(state, seat)} pays tribute to the nomads for this game turn.",
            "24.2",
            "tribute",
        )
    elif kind == "fortify" and code == "F":
        own_area(state, target)["fort"] = 2 if areas[target]["fort"] < 2 else 3
        emit(
            state,
            events,
            f"{aname} is fortified (strength {areas[target]['fort']}).",
            "14.2",
            "fort",
        )
    elif kind == "build" and code == "B" and option:
        own_area(state, target)["buildings"].append(option)
        eff = g.buildings[option]["effect"]
        if eff.get("op") == "monument":
            p["popularity"] += int(eff.get("popularity", 1))
        emit(
            state,
            events,
            f"A {g.buildings[option]['name'].lower()} is completed in {aname}.",
            "8.1",
            "build",
        )
    elif code in ("P+1", "P+2"):
        p["popularity"] += 1 if code == "P+1" else 2
        if code == "P+2":
            remove_one_burden(state, seat, "unrest", events, quiet=True, needs="festival")
    elif code == "P-":
        p["popularity"] -= 1
    elif code in ("I+1", "I+2"):
        p["influence"] += 1 if code == "I+1" else 2
    elif code == "I-":
        p["influence"] -= 1
    elif kind == "assimilate" and code == "A":
        own_area(state, target)["language"] = p["emperor"]["language"]
        emit(state, events, f"{aname} adopts {name(state, seat)}'s language.", "8.5", "culture")
    elif code == "U":
        own_area(state, target)["unrest"] = True
        emit(state, events, f"{aname} enters unrest.", "8.5", "unrest")
    elif kind == "science" and code == "N":
        p["innovations"].append(target)
        emit(
            state,
            events,
            f"{name(state, seat)} adopts {g.innovations[target]['name']}.",
            "8.6",
            "innovation",
        )
        remove_one_burden(state, seat, "plague", events, quiet=True, needs="science")
    elif kind == "convert":
        convert_result(state, seat, target, code, events, check_after_waivers)
    elif code == "X" and option:
        other = seat_of_power(state, option)
        if other is not None and other in areas[target]["ties"]:
            own_area(state, target)["ties"].remove(other)
            emit(
                state,
                events,
                f"{name(state, other)}'s tie with {aname} is broken by a palace coup.",
                "8.7",
                "tie",
            )
    elif code == "$":
        owner = areas[target]["owner"]
        if owner is not None:
            emit(
                state,
                events,
                f"{name(state, seat)}'s gold buys the loyalty of {aname}.",
                "8.8",
                "plot",
            )
            revolt(state, owner, target, events)
    elif code == "M":
        other = seat_of_power(state, target)
        if other is not None:
            mortality_check(state, other, 2, events, "an assassin")
    elif code == "EXP":
        p["influence"] -= 1
        if kind == "plot_assassinate":
            p["popularity"] -= 1
        emit(state, events, f"{name(state, seat)}'s plot is exposed.", "8.7", "plot")
    elif code == "I":
        other = seat_of_power(state, target)
        if other is not None:
            q = player(state, other)
            held = [g.fate.get(h["ref"], {}).get("name", h["ref"]) for h in q["holdings"]]
            emit(
                state,
                events,
                f"Your spies report: {name(state, other)} holds {', '.join(held) or 'no cards'}; talents {q['talents']}.",
                "8.10",
                "spy",
                to=[seat],
                data={"holdings": held},
            )
    clamp_popularity(p)
    rec = p["turn_record"]
    if code in NEGATIVE:
        rec["fail"] += 1
        rec["last_fail"] = card_type(card)
    elif code != "none":
        rec["success"] += 1
        rec["last_success"] = card_type(card)
    return code


def endeavour_is_open(state: State, seat: int, action: dict[str, Any]) -> bool:
    """The same test `endeavour_actions` applies, for one action (cheap, for `explain`)."""
    card = player(state, seat)["deck"]["hand"]
    kind = action.get("kind")
    if (
        card is None
        or state.get("step") != "drawn"
        or state.get("active") != seat
        or kind not in kinds_for(card)
    ):
        return False
    option = action.get("option")
    costs = loc_costs(state, seat)
    if (action.get("base"), action.get("target"), option) not in targets(
        state, seat, str(kind), costs
    ):
        return False
    cost, _ = base_cost(state, seat, str(kind), action["base"], action["target"], option, costs)
    t = action.get("talents")
    expected = {"type", "kind", "base", "target", "talents"} | (
        {"option"} if option is not None else set()
    )
    return type(t) is int and 0 <= t <= max_talents(state, seat, cost) and set(action) == expected


def endeavour_actions(state: State, seat: int, only: str | None = None) -> list[dict[str, Any]]:
    """Every endeavour the drawn advisor may undertake now (9.1); with ``only``,
    those of that kind alone (`gate.check`, checking one endeavour)."""
    p = player(state, seat)
    card = p["deck"]["hand"]
    if card is None:
        return []
    out: list[dict[str, Any]] = []
    costs = loc_costs(state, seat)
    for kind in kinds_for(card):
        if only is not None and kind != only:
            continue
        for base, target, option in targets(state, seat, kind, costs):
            cost, _ = base_cost(state, seat, kind, base, target, option, costs)
            top = max_talents(state, seat, cost)
            for t in range(0, top + 1):
                act: dict[str, Any] = {
                    "type": "endeavour",
                    "kind": kind,
                    "base": base,
                    "target": target,
                    "talents": t,
                }
                if option is not None:
                    act["option"] = option
                out.append(act)
    return out
