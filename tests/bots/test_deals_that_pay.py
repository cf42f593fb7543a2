"""Deals that favour the dealer (issue 42): a bot answers and sizes a bundle by what it
does to its own chance of winning (``Grand.gain``), refuses what does not pay, accepts
what does, and counters at its own price: a counter asks more than the offer it answers.
Games with negotiating and silent seats replay the same from the same seed."""

from __future__ import annotations

import random
from typing import Any

from app import engine
from app.bots import choose_action
from app.bots.bundles import ACCEPT
from app.bots.grand import Grand, _side
from app.bots.politics import Politics
from app.bots.runner import play_game
from app.bots.simulate import scenario_catalogue
from app.bots.strong import Budget

FOUR = scenario_catalogue()["four_empires"]


def _offered(to: int, body: dict[str, Any], seed: int = 1) -> dict[str, Any]:
    """Four Empires, Rome (seat 0) in the diplomatic phase, its offer to ``to`` made."""
    state = engine.new_game("four_empires", FOUR, seed)
    state["diplo"]["pos"] = 0
    power = state["players"][to]["power"]
    action = {"type": "offer", "power": power, "give": {}, "get": {}, "terms": [], "turns": 0}
    state, _ = engine.apply(state, 0, {**action, **body})
    return state


def _gain(state: dict[str, Any], seat: int) -> float:
    """The offer pending to ``seat`` as its own evaluator scores it (``Grand.gain``)."""
    view = engine.view(state, seat)
    off = view["me"]["offer"]
    return Grand(Politics(view)).gain(
        _side(off["get"]), _side(off["give"]), list(off["terms"]), off["turns"], off["from"]
    )


def _answer(state: dict[str, Any], seat: int, level: str = "standard") -> dict[str, Any]:
    legal = engine.legal_actions(state, seat)
    return choose_action(level, engine.view(state, seat), legal, random.Random(0))


def test_same_seed_same_game_with_negotiating_and_silent_seats() -> None:
    levels = ["standard", "silent"] * 3
    one = play_game("four_empires", FOUR, 9_000_001, levels, {"end_turn": 2})
    two = play_game("four_empires", FOUR, 9_000_001, levels, {"end_turn": 2})
    assert not one.errors and not two.errors
    assert one.log == two.log and one.final_hash == two.final_hash
    assert one.politics["offers_made"] > 0  # the negotiating seats did negotiate


def test_a_bot_refuses_an_offer_its_evaluator_scores_below_zero() -> None:
    for to in range(1, 6):
        state = _offered(to, {"get": {"talents": 2}})  # two talents for nothing
        assert _gain(state, to) < 0
        action = _answer(state, to)
        assert action.get("answer") == "refuse" or action["type"] == "offer", action
        assert action.get("answer") != "accept"


def test_a_bot_accepts_an_offer_above_its_threshold() -> None:
    for to in range(1, 6):
        state = _offered(to, {"give": {"talents": 3}})  # three talents, asking nothing
        gain = _gain(state, to)
        assert gain > ACCEPT
        view = engine.view(state, to)
        assert Grand(Politics(view)).answer_worth(view["me"]["offer"]) == gain
        # Without counters (the silent ablation answers by the same evaluation) it takes
        # it; the Standard bot takes it or counters at a price worth more to it.
        assert _answer(state, to, "silent") == {"type": "answer_offer", "answer": "accept"}
        action = _answer(state, to)
        assert action.get("answer") == "accept" or action["type"] == "offer", action


def test_a_bot_weighs_who_a_deal_feeds() -> None:
    """The same bundle gains a bot less when the partner is closer to winning: the
    partner's worth counts against it by the partner's chance (``rival_weight``)."""
    state = engine.new_game("four_empires", FOUR, 1)
    view = engine.view(state, 1)
    grand = Grand(Politics(view))
    odds = grand.win_odds()
    assert abs(sum(odds) - 1.0) < 1e-9 and all(p > 0 for p in odds)
    # Late in the game the standings say more: the leader's odds grow.
    view["turn"] = view["end_turn"]
    late = Grand(Politics(view)).win_odds()
    assert max(late) > max(odds)
    leader = late.index(max(late))
    last = late.index(min(late))
    if 1 not in (leader, last):
        late_grand = Grand(Politics(view))
        assert late_grand.rival_weight(leader) > late_grand.rival_weight(last)


def test_a_counter_asks_more_than_the_offer_it_answers() -> None:
    countered = 0
    for seed in (1, 2, 3):
        for to in range(1, 6):
            # A bundle near worth taking: one talent for a pledge of votes for two turns.
            for body in (
                {"get": {"talents": 1}, "terms": []},
                {"give": {"talents": 1}, "get": {"votes": True}, "turns": 2},
                {"get": {"talents": 4}, "terms": ["non_aggression"], "turns": 2},
            ):
                try:
                    state = _offered(to, body, seed)
                except engine.IllegalAction:
                    continue
                action = _answer(state, to)
                if action["type"] != "offer":
                    continue
                countered += 1
                asked = _gain(state, to)
                view = engine.view(state, to)
                mine = Grand(Politics(view)).gain(
                    _side(action["give"]),
                    _side(action["get"]),
                    list(action["terms"]),
                    action["turns"],
                    0,
                )
                assert mine > asked, (body, action, mine, asked)
                engine.check(state, to, action)  # and it is a counter the engine takes
    assert countered, "no bot countered"


def test_the_silent_ablations_never_offer_where_the_negotiators_do() -> None:
    """``silent`` and ``strong_silent`` are the Standard and Strong bots without offers
    or counters: the levels the ablation measures negotiation against (docs/bots.md)."""
    budget = Budget(iterations=2, seconds=5.0, candidates=3, horizon=4, clock="cpu")
    offered = 0
    for seat in range(6):
        state = engine.new_game("four_empires", FOUR, 3)
        state["diplo"]["pos"] = seat
        if engine.pending(state)[0]["seat"] != seat:
            continue
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        standard = choose_action("standard", view, legal, random.Random(seat))
        offered += standard["type"] == "offer"
        quiet = choose_action("silent", view, legal, random.Random(seat))
        assert quiet["type"] != "offer"
        searched = choose_action(
            "strong_silent", view, legal, random.Random(seat), state=state, budget=budget
        )
        assert searched["type"] != "offer"
    assert offered, "no Standard bot made an offer: the test no longer tests anything"


def test_with_two_powers_a_bot_counters_at_its_price() -> None:
    """Teaching game: a deal is zero-sum to the bot (``rival_weight`` 1), so no bundle
    both sides gain from exists; asked for an area for peace alone, it counters with the
    same area and the talents it would need (``Grand.priced``), a counter that gains it
    more than the offer it answers."""
    powers = scenario_catalogue()["teaching"]
    state = engine.new_game("teaching", powers, 1)
    rng = random.Random(0)
    while not any(a["type"] == "offer" for a in engine.legal_actions(state, 0)):
        seat = engine.pending(state)[0]["seat"]
        legal = engine.legal_actions(state, seat)
        state, _ = engine.apply(
            state, seat, choose_action("standard", engine.view(state, seat), legal, rng)
        )
    areas = engine.view(state, 0)["areas"]
    wanted = sorted(a for a, x in areas.items() if x.get("owner") == 1 and 0 in x["claims"])
    assert wanted, "the teaching map no longer has a claim across the border"
    ask = {"type": "offer", "power": powers[1], "give": {}, "terms": ["peace"], "turns": 0}
    state, _ = engine.apply(state, 0, {**ask, "get": {"areas": wanted[:1]}})
    grand = Grand(Politics(engine.view(state, 1)))
    assert grand.rival_weight(0) == 1.0
    action = _answer(state, 1)
    assert action["type"] == "offer", action
    assert action["give"]["areas"] == wanted[:1] and action["get"]["talents"] > 0
    assert action["terms"] == ["peace"]
    mine = grand.gain(_side(action["give"]), _side(action["get"]), ["peace"], 0, 0)
    assert mine > ACCEPT > _gain(state, 1)
    engine.check(state, 1, action)
