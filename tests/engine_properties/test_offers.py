"""Property: any concrete offer that fits a listed template (rules 20.14) is accepted,
played the same by ``apply`` and ``apply_in_place`` and taken back by ``undo``; once
accepted it is carried out whole (20.2) with the invariants intact; one item out of its
range is refused with a reason.

Random games (whose random players send only the listed default bundles) are walked,
and at states with an offer template a random bundle is built from the template's
ranges: talents, tribute, areas, claims, votes, terms and duration.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from app import engine

from .catalogue import seats_of
from .invariants import check_all


def random_bundle(listed: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    tpl = listed["template"]

    def side(lim: dict[str, Any]) -> dict[str, Any]:
        return {
            "talents": rng.randint(0, min(lim["talents"], 6)),
            "per_turn": rng.choice([0, 0, rng.randint(0, lim["per_turn"])]),
            "areas": rng.sample(lim["areas"], k=min(len(lim["areas"]), rng.choice([0, 0, 1, 2]))),
            "claims": rng.sample(lim["claims"], k=min(len(lim["claims"]), rng.choice([0, 1]))),
            "votes": lim["votes"] and rng.random() < 0.3,
        }

    give, get = side(tpl["give"]), side(tpl["get"])
    terms = [t for t in tpl["terms"] if rng.random() < 0.3]
    lasting = (
        give["per_turn"]
        or get["per_turn"]
        or give["votes"]
        or get["votes"]
        or {"non_aggression", "alliance"} & set(terms)
    )
    lo, hi = tpl["turns"]
    action = {
        "type": "offer",
        "power": listed["power"],
        "give": give,
        "get": get,
        "terms": terms,
        "turns": rng.randint(lo, hi) if lasting else 0,
    }
    if not (terms or any(give.values()) or any(get.values())):
        action["give"]["votes"] = True
        action["turns"] = lo
    return action


def out_of_range(action: dict[str, Any], listed: dict[str, Any], rng: random.Random) -> Any:
    bad = copy.deepcopy(action)
    tpl = listed["template"]
    how = rng.randrange(4)
    if how == 0:
        bad["give"]["talents"] = tpl["give"]["talents"] + 1
    elif how == 1:
        bad["get"]["per_turn"] = tpl["get"]["per_turn"] + 1
    elif how == 2:
        bad["give"]["areas"] = [*bad["give"]["areas"], "atlantis"]
    else:
        bad["turns"] = tpl["turns"][1] + 1
        bad["terms"] = [t for t in tpl["terms"] if t != "peace"][:1] or bad["terms"]
        if not bad["terms"]:
            bad["give"]["votes"] = True
    return bad


def walk(scenario: str, seed: int, tries: int) -> int:
    rng = random.Random(seed)
    seats = seats_of(scenario)
    state = engine.new_game(scenario, seats, seed, {"end_turn": 2})
    first = state
    done = 0
    steps = 0
    while engine.outcome(state) is None and done < tries and steps < 4000:
        steps += 1
        seat = int(engine.pending(state)[0]["seat"])
        legal = engine.legal_actions(state, seat)
        offers = [a for a in legal if a["type"] == "offer"]
        if offers and rng.random() < 0.25:
            listed = rng.choice(offers)
            action = random_bundle(listed, rng)
            assert engine.offer_fits(legal, action), action
            bad = out_of_range(action, listed, rng)
            try:
                engine.apply(state, seat, bad)
            except engine.IllegalAction as exc:
                assert exc.reason and exc.code
            else:
                raise AssertionError(f"an offer out of range was accepted: {bad}")
            after, _ = engine.apply(state, seat, action)
            twin = engine.clone(state)
            token, _ = engine.apply_in_place(twin, seat, action)
            assert engine.state_hash(twin) == engine.state_hash(after)
            engine.undo(twin, token)
            assert engine.state_hash(twin) == engine.state_hash(state)
            # the recipient accepts: the bundle is carried out whole (20.2)
            to = int(engine.pending(after)[0]["seat"])
            accepted, _ = engine.apply(after, to, {"type": "answer_offer", "answer": "accept"})
            check_all(accepted, first)
            ag = accepted["relations"]["agreements"][-1]
            assert ag["exchange"] == {
                "give": after["grand"]["offer"]["give"],
                "get": after["grand"]["offer"]["get"],
            }
            for area in action["give"]["areas"]:
                assert accepted["areas"][area]["owner"] == to
            for area in action["get"]["areas"]:
                assert accepted["areas"][area]["owner"] == seat
            for area in action["give"]["claims"]:
                assert to in accepted["areas"][area]["claims"]
                assert seat not in accepted["areas"][area]["claims"]
            state = accepted
            done += 1
            continue
        state, _ = engine.apply(state, seat, legal[rng.randrange(len(legal))])
    return done


def test_fitting_offers_are_accepted_played_alike_in_place_and_carried_out_whole() -> None:
    done = walk("teaching", 3, 12) + walk("four_empires", 5, 12)
    assert done >= 12
