"""Bots answer an offer with a reason or a counter (docs/rules.md 20.14-20.15, issue 40):
a refusal says in one line what the bot would need, or which record it will not deal
with, from its own evaluation; an offer that nothing near it trades gets the bundle the
bot would offer itself, when one is sized. The reason travels in the action, so the
engine checks it and a replay plays the same."""

from __future__ import annotations

import random
import re
from typing import Any

from app import engine
from app.bots import choose_action
from app.bots.answers import offer_reason
from app.bots.grand import Grand
from app.bots.politics import Politics
from app.bots.simulate import scenario_catalogue

FOUR = scenario_catalogue()["four_empires"]


def _offered(seed: int, to: int, body: dict[str, Any]) -> dict[str, Any]:
    """Four Empires, Rome (seat 0) to move in the diplomatic phase, its offer to ``to``."""
    state = engine.new_game("four_empires", FOUR, seed)
    state["diplo"]["pos"] = 0
    power = state["players"][to]["power"]
    action = {"type": "offer", "power": power, "give": {}, "get": {}, "terms": [], "turns": 0}
    state, _ = engine.apply(state, 0, {**action, **body})
    return state


def _answer(state: dict[str, Any], seat: int) -> dict[str, Any]:
    legal = engine.legal_actions(state, seat)
    return choose_action("standard", engine.view(state, seat), legal, random.Random(0))


def test_a_refusal_says_how_many_talents_would_have_done() -> None:
    refusals = []
    for to in range(1, 6):
        state = _offered(1, to, {"get": {"talents": 3}})  # three talents for nothing
        action = _answer(state, to)
        if action.get("answer") != "refuse":
            continue
        refusals.append(action)
        reason = action["reason"]
        found = re.match(r"it would need (\d+) talents? more to give up 3 talents", reason)
        assert found, reason
        assert "\n" not in reason and len(reason) <= 200
        # The figure is the bot's own: that many more talents and it takes the offer.
        more = int(found.group(1))
        if "more than the offerer holds" not in reason:
            better = _offered(1, to, {"get": {"talents": 3}, "give": {"talents": more}})
            off = engine.view(better, to)["me"]["offer"]
            assert Grand(Politics(engine.view(better, to))).answer_worth(off) is not None
        # The engine takes the reason and tells it to the two parties only (20.14).
        after, events = engine.apply(state, to, action)
        told = [e for e in events if e["data"].get("reason") == reason]
        assert len(told) == 1 and sorted(told[0]["to"]) == [0, to], events
        assert reason in told[0]["text"]
        public = [e for e in events if e["data"].get("answer") == "refuse" and e["to"] is None]
        assert public and reason not in public[0]["text"]
        again, _ = engine.apply(state, to, action)  # the same action replays the same
        assert engine.state_hash(again) == engine.state_hash(after)
    assert refusals, "no bot refused three talents for nothing"


def test_a_breaker_is_told_which_agreement_it_broke() -> None:
    state = _offered(1, 3, {"get": {"talents": 1}, "terms": ["non_aggression"], "turns": 2})
    view = engine.view(state, 3)
    view["agreements"] = [
        {"id": 7, "parties": [0, 3], "status": "broken", "breaker": 0, "ended": view["turn"]}
    ]
    grand = Grand(Politics(view))
    assert grand.pol.trust.breaker(0) and grand.pol.trust.of(0) < 0.6
    assert "broke agreement 7" in offer_reason(grand, view["me"]["offer"])


def test_a_lopsided_offer_gets_a_counter_when_one_is_sized() -> None:
    """Asking an area for nothing: when no counter near the offer trades, the bot answers
    with the bundle it would offer that power itself, if it sizes one (20.15)."""
    countered = 0
    for to in range(1, 6):
        state = engine.new_game("four_empires", FOUR, 1)
        state["diplo"]["pos"] = 0
        power = state["players"][to]["power"]
        tpl = next(
            a
            for a in engine.legal_actions(state, 0)
            if a["type"] == "offer" and a["power"] == power
        )
        wanted = tpl["template"]["get"]["areas"][:1]
        state, _ = engine.apply(
            state,
            0,
            {"type": "offer", "power": power, "give": {}, "get": {"areas": wanted}, "terms": []},
        )
        action = _answer(state, to)
        listed = next(a for a in engine.legal_actions(state, to) if a["type"] == "offer")
        sized, value = Grand(Politics(engine.view(state, to))).counter(listed)
        if value > 0:
            assert action["type"] == "offer", action  # a sized counter is made, not a refusal
            engine.check(state, to, action)
            countered += 1
        else:
            assert action.get("answer") == "refuse" and action["reason"], action
    assert countered, "no bot countered a request for an area"


def test_the_engine_refuses_a_reason_that_is_not_one_line_of_a_refusal() -> None:
    state = _offered(1, 2, {"get": {"talents": 1}})
    bad = [
        {"type": "answer_offer", "answer": "refuse", "reason": "two\nlines"},
        {"type": "answer_offer", "answer": "refuse", "reason": "x" * 201},
        {"type": "answer_offer", "answer": "refuse", "reason": 5},
        {"type": "answer_offer", "answer": "refuse", "reason": " "},
        {"type": "answer_offer", "answer": "accept", "reason": "gladly"},
    ]
    for action in bad:
        try:
            engine.check(state, 2, action)
        except engine.IllegalAction as err:
            assert err.code == "bad_reason", (action, err.code)
        else:
            raise AssertionError(f"{action!r} was taken")
    engine.check(state, 2, {"type": "answer_offer", "answer": "refuse", "reason": "no."})
