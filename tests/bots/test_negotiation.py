"""The standard bot's negotiation (docs/bots.md): seeded temperaments and draws among
near-equal choices (same seed, same game), trust from the public record, no new
offer after a refusal in the same game turn, sanctions on breakers, and bundles
that trade (rules 20.11-20.15, 20.44-20.45)."""

from __future__ import annotations

import random
from typing import Any

from app import engine
from app.bots import choose_action
from app.bots import temperament as temperaments
from app.bots.bundles import ACCEPT
from app.bots.grand import Grand
from app.bots.politics import Politics
from app.bots.runner import play_game
from app.bots.simulate import scenario_catalogue
from app.bots.trust import Trust

FOUR = scenario_catalogue()["four_empires"]
EMPTY = {"talents": 0, "per_turn": 0, "areas": [], "claims": [], "votes": False}


def fresh(seed: int = 1) -> dict[str, Any]:
    state = engine.new_game("four_empires", FOUR, seed)
    assert state["phase"] == "diplomacy"
    return state


def test_same_seed_same_game_and_the_temperaments_are_the_seeds() -> None:
    one = play_game("four_empires", FOUR, 41, "standard", {"end_turn": 2})
    two = play_game("four_empires", FOUR, 41, "standard", {"end_turn": 2})
    assert not one.errors and not two.errors
    assert one.log == two.log and one.final_hash == two.final_hash
    assert one.temperaments == two.temperaments
    assert one.temperaments == [temperaments.temperament_for(41, s) for s in range(6)]
    other = play_game("four_empires", FOUR, 42, "standard", {"end_turn": 2})
    assert other.log != one.log


def test_every_temperament_is_dealt_and_weights_the_choices() -> None:
    dealt = {temperaments.temperament_for(seed, seat) for seed in range(8) for seat in range(6)}
    assert dealt == set(temperaments.TEMPERAMENTS)
    assert temperaments.temperament_for(7, 3) == temperaments.temperament_for(7, 3)
    # An ambitious ruler claims the hegemony with less of an edge than a cautious one.
    state = fresh()
    for seat in range(6):
        view = engine.view(state, seat)
        bold = Politics(view, temperament="ambitious")._hegemony()
        shy = Politics(view, temperament="cautious")._hegemony()
        assert bold >= shy


def _refused(state: dict[str, Any], by: int, to: int) -> dict[str, Any]:
    """``by`` offers ``to`` a peace and ``to`` refuses it (20.14)."""
    listed = next(
        a
        for a in engine.legal_actions(state, by)
        if a["type"] == "offer" and a["power"] == FOUR[to]
    )
    state, _ = engine.apply(state, by, listed)
    state, _ = engine.apply(state, to, {"type": "answer_offer", "answer": "refuse"})
    return state


def test_no_new_offer_to_a_power_that_refused_one_this_game_turn() -> None:
    state = fresh()
    state["diplo"]["pos"] = 0
    state = _refused(state, 0, 3)
    state["diplo"]["pos"] = 0  # Rome to act again in this diplomatic phase
    view = engine.view(state, 0)
    trust = Trust(view, 0)
    assert trust.refused_now(3) and not trust.refused_now(2)
    assert trust.of(3) < 1.0  # a refusal costs a little trust
    listed = [a for a in engine.legal_actions(state, 0) if a["type"] == "offer"]
    grand = Grand(Politics(view))
    to_three = next(a for a in listed if a["power"] == FOUR[3])
    assert grand.compose(to_three)[1] < 0
    for seed in range(6):
        legal = engine.legal_actions(state, 0)
        chosen = choose_action(
            "standard", view, legal, random.Random(seed), temperament="ambitious"
        )
        assert not (chosen["type"] == "offer" and chosen["power"] == FOUR[3])
    # The next game turn the record is old: an offer may be made again.
    view["turn"] = view["turn"] + 1
    assert not Trust(view, 0).refused_now(3)


def _broken(state: dict[str, Any], breaker: int, injured: int, turn: int) -> None:
    state["relations"].setdefault("agreements", []).append(
        {
            "id": 1,
            "parties": [injured, breaker],
            "signed": turn,
            "year": 0,
            "expires": turn + 1,
            "status": "broken",
            "terms": ["non_aggression"],
            "tribute": [],
            "votes": [],
            "exchange": {"give": dict(EMPTY), "get": dict(EMPTY)},
            "breaker": breaker,
            "ended": turn,
            "why": "war declared",
        }
    )


def test_breakers_are_sanctioned_by_a_third_party() -> None:
    state = fresh()
    breaker, injured, judge = 2, 1, 5  # Kushan broke its word to Parthia; the Xiongnu judge
    _broken(state, breaker, injured, state["turn"])
    view = engine.view(state, judge)
    grand = Grand(Politics(view))
    assert grand.pol.trust.breaker(breaker) and grand.pol.trust.of(breaker) < 0.5
    # 20.44: guilty; 20.45: not readmitted while the wrong is fresh.
    assert grand.vote({"question": "breach", "caller": injured, "against": breaker}) == "yes"
    state["players"][breaker]["accursed"] = True
    view = engine.view(state, judge)
    grand = Grand(Politics(view))
    assert grand.vote({"question": "readmit", "caller": breaker}) == "no"
    # Its offers are refused, however rich ...
    view["me"]["offer"] = {
        "from": breaker,
        "to": judge,
        "give": {**EMPTY, "talents": 5},
        "get": dict(EMPTY),
        "terms": [],
        "turns": 0,
    }
    assert grand.answer_worth(view["me"]["offer"]) is None
    assert grand.score_answer({"type": "answer_offer", "answer": "refuse"}) > grand.score_answer(
        {"type": "answer_offer", "answer": "accept"}
    )
    # ... it is not taken into a coalition, and no coalition under it is joined.
    assert not grand.pol._accept_join(breaker)
    assert grand.pol._join(breaker) < 0


def test_the_wrong_fades_so_readmission_is_a_real_vote() -> None:
    state = fresh()
    state["turn"] = 4
    _broken(state, 2, 1, 1)  # three game turns ago
    state["players"][2]["accursed"] = True
    votes = {
        Grand(Politics(engine.view(state, judge), temperament=t)).vote(
            {"question": "readmit", "caller": 2}
        )
        for judge in (0, 3, 4, 5)
        for t in ("loyal", "opportunist")
    }
    assert votes & {"yes", "abstain"}, votes


def test_offers_trade_are_sized_to_be_taken_and_never_repeated_after_a_refusal() -> None:
    offers: list[tuple[Any, float]] = []
    refused: set[tuple[int, int, int]] = set()
    repeats = 0

    def on_step(state: dict[str, Any], seat: int, action: Any, events: Any, n: int) -> None:
        nonlocal repeats
        off = state["grand"]["offer"]
        if action["type"] == "offer" and off is not None:
            # Judged by the receiver's own view (neutral), the bundle gains it (issue 42:
            # its worth less the offerer's, weighed by the offerer's chance of winning).
            view = engine.view(state, off["to"])
            mine = view["me"]["offer"]
            worth = Grand(Politics(view)).gain(
                mine["get"], mine["give"], mine["terms"], mine["turns"], off["from"]
            )
            offers.append((off, worth))
            if off["depth"] == 0 and (off["from"], off["to"], state["turn"]) in refused:
                repeats += 1
        for fact in (state["grand"].get("record") or [])[-1:]:
            if fact["fact"] == "refused":
                refused.add((fact["from"], fact["to"], fact["turn"]))

    for seed in (11, 12):
        refused.clear()  # a new game
        record = play_game("four_empires", FOUR, seed, "standard", on_step=on_step, keep_log=False)
        assert not record.errors, record.errors
        assert record.politics["offer_repeats"] == 0
    assert offers
    # Sized by the offerer's reading of the receiver: a receiver judged from its own seat
    # mostly gains enough to take it; the rest is where the offerer's own temperament
    # (peace, faith) weighed its side differently (the refusals issue 42 asks for).
    short = [w for _, w in offers if w <= ACCEPT]
    assert len(short) <= 0.2 * len(offers), short
    ceding = [o for o, _ in offers if o["give"]["areas"] or o["get"]["areas"]]
    ceding += [o for o, _ in offers if o["give"]["claims"] or o["get"]["claims"]]
    assert ceding, "no bundle ceded an area or a claim"
    assert any(o["depth"] > 0 for o, _ in offers), "no counter"
    assert repeats == 0
