"""10.x Conquest, partial conquest by population and counter-conquest."""

from __future__ import annotations

import pytest

from app import engine
from app.engine import IllegalAction
from app.engine.endeavours import counter_words

from .helpers import HAN, KUSHAN, counters, endeavour, game, rating_of, terms, turn_of, war


def conquests(s, seat):
    return {
        (a["base"], a["target"])
        for a in engine.legal_actions(s, seat)
        if a.get("kind") == "conquest"
    }


@pytest.fixture
def s():
    s = turn_of(game(), KUSHAN, hand="military")
    s["players"][KUSHAN]["talents"] = 40
    s["players"][HAN]["talents"] = 40
    return s


def test_2_5_another_players_area_needs_war(s):
    s["areas"]["tarim"]["owner"] = KUSHAN
    s["areas"]["ferghana"]["owner"] = KUSHAN
    assert ("tarim", "hexi") not in conquests(s, KUSHAN)
    assert ("tarim", "wusun") in conquests(s, KUSHAN)  # independents always
    war(s)
    assert ("tarim", "hexi") in conquests(s, KUSHAN)


def test_10_12_conquest_across_a_sea_pays_sea_costs(s):
    war(s)
    assert ("gandhara", "henan") in conquests(s, KUSHAN)
    ex = rating_of(s, KUSHAN, "conquest", "gandhara", "henan")
    assert ex["cost"] == 2 + 2 and any(
        t["rule"] == "9.17" and t["value"] == 2 for t in ex["cost_terms"]
    )


def test_10_2_a_low_result_costs_the_base_a_social_level(s):
    counters(s, -3)
    s["players"][KUSHAN]["emperor"]["statures"]["military"] = 0
    s2, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir")  # 0+2-2-1 = -1, -3 -> -1B
    assert s2["areas"]["gandhara"]["social"] == 1
    assert s2["players"][KUSHAN]["talents"] == 38


def test_9_5_the_chronicle_tells_the_draw_in_a_sentence(s):
    """Issue 26: "counter -2 (-2 drawn), final 3: gold" was jargon; the line now says
    what was drawn and what it made of the rating, in the chronicle's third person."""
    counters(s, -3)
    s["players"][KUSHAN]["emperor"]["statures"]["military"] = 0
    _, ev = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir")
    line = next(e for e in ev if e["kind"] == "endeavour")
    assert line["text"] == (
        "Kushan's conquest against Kashmir: rating -1, the counter drawn is -3, so the final "
        "rating is -4. Result: their own base area loses a social level."
    )
    assert line["data"]["drawn"] == [-3] and line["data"]["final"] == -4
    assert counter_words([-2, 1, 0], 1) == (
        "the counters drawn are -2, +1 and +0; the best, +1, counts"
    )


def test_10_3_partial_conquest_by_population(s):
    counters(s, 3)
    s2, ev = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir")  # 5+2-2-1+3 = 7 -> C
    k = s2["areas"]["kashmir"]
    assert k["owner"] is None and k["partial"] == {"0": {"gandhara": 1}}
    s3 = turn_of(s2, KUSHAN, hand="military")
    counters(s3, 3)
    s4, _ = endeavour(s3, KUSHAN, "conquest", "gandhara", "kashmir")
    k = s4["areas"]["kashmir"]
    assert k["owner"] == KUSHAN and k["unrest"] and k["partial"] == {}


def test_10_31_partial_conquest_may_stay_indefinitely(s):
    counters(s, 3)
    s2, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir")
    s3, _ = engine.apply(s2, KUSHAN, {"type": "end_turn"})
    while s3["active"] == HAN or s3["phase"] != "turn":
        prompt = engine.pending(s3)[0]
        s3, _ = engine.apply(s3, prompt["seat"], engine.default_action(s3, prompt))
    assert s3["areas"]["kashmir"]["partial"] == {"0": {"gandhara": 1}}


def test_10_32_several_bases_add_up_but_are_recorded_apart(s):
    for a in ("tarim", "ferghana"):
        s["areas"][a]["owner"] = KUSHAN
    counters(s, 3)
    s2, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir")
    assert s2["areas"]["kashmir"]["partial"] == {"0": {"gandhara": 1}}
    s3 = turn_of(s2, KUSHAN, hand="military")
    counters(s3, 3)
    s4, _ = endeavour(s3, KUSHAN, "conquest", "tarim", "kashmir", talents=2)
    assert s4["areas"]["kashmir"]["owner"] == KUSHAN


@pytest.fixture
def besieged(s):
    """Han holds tarim and kashmir and has one C result against Kushan's gandhara from kashmir."""
    war(s)
    for a in ("tarim", "kashmir"):
        s["areas"][a]["owner"] = HAN
    s["areas"]["gandhara"]["partial"] = {"1": {"kashmir": 1}}
    return s


def test_10_33_owner_of_a_partially_conquered_area_acts_from_it_at_a_penalty(besieged):
    ex = rating_of(besieged, KUSHAN, "conquest", "gandhara", "kashmir")
    assert terms(ex)["10.33"] == -1
    turn_of(besieged, KUSHAN, hand="administration")
    ex = rating_of(besieged, KUSHAN, "ruling", "gandhara", "gandhara")
    assert terms(ex)["10.33"] == -1


def test_10_33_diplomacy_from_a_partially_conquered_court_takes_the_penalty(besieged):
    """12.1 and 12.11: diplomacy is a foreign endeavour based in the court."""
    court = besieged["players"][KUSHAN]["court"]
    besieged["areas"][court]["partial"] = {"1": {"kashmir": 2}}
    turn_of(besieged, KUSHAN, hand="diplomacy")
    ex = rating_of(besieged, KUSHAN, "diplomacy", court, "tarim")
    assert terms(ex)["10.33"] == -2
    besieged["areas"][court]["partial"] = {}
    ex = rating_of(besieged, KUSHAN, "diplomacy", court, "tarim")
    assert "10.33" not in terms(ex)


def test_10_34_owner_taxes_a_partially_conquered_area_normally(besieged):
    turn_of(besieged, KUSHAN)
    legal = engine.legal_actions(besieged, KUSHAN)
    assert {"type": "tax", "area": "gandhara", "amount": 2} in legal
    ex = engine.explain(besieged, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 2})
    assert {t["rule"]: t["value"] for t in ex["terms"]}["17.27"] == 1


def test_10_35_a_partial_conqueror_may_not_use_the_area(besieged):
    turn_of(besieged, HAN, hand="military")
    assert not any(b == "gandhara" for b, _ in conquests(besieged, HAN))
    turn_of(besieged, HAN, hand="administration")
    assert not any(a.get("target") == "gandhara" for a in engine.legal_actions(besieged, HAN))


def test_10_36_counter_conquest_removes_one_c_result(besieged):
    besieged["areas"]["gandhara"]["partial"] = {"1": {"kashmir": 2}}
    besieged["players"][HAN]["years_left"] = 0
    counters(besieged, 3)
    s2, ev = endeavour(besieged, KUSHAN, "conquest", "gandhara", "kashmir", talents=3)
    assert s2["areas"]["gandhara"]["partial"] == {"1": {"kashmir": 1}}
    assert s2["areas"]["kashmir"]["partial"] == {} and any(e["rule"] == "10.36" for e in ev)
    s3 = turn_of(s2, KUSHAN, hand="military")
    s3["players"][HAN]["years_left"] = 0
    counters(s3, 3)
    s4, _ = endeavour(s3, KUSHAN, "conquest", "gandhara", "kashmir", talents=3)
    assert s4["areas"]["gandhara"]["partial"] == {}
    s5 = turn_of(s4, KUSHAN, hand="military")
    s5["players"][HAN]["years_left"] = 0
    counters(s5, 3)
    s6, _ = endeavour(s5, KUSHAN, "conquest", "gandhara", "kashmir", talents=3)
    assert s6["areas"]["kashmir"]["partial"] == {"0": {"gandhara": 1}}  # now it counts as conquest


def test_10_37_conquering_the_enemy_base_removes_its_c_results(besieged):
    turn_of(besieged, KUSHAN, hand="diplomacy")
    besieged["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] = 6
    counters(besieged, 3)
    s2, ev = endeavour(
        besieged, KUSHAN, "diplomacy", "bactria", "kashmir", talents=5
    )  # 6+2+5-2-1-3 = 7 +3 -> T/C
    assert s2["areas"]["kashmir"]["owner"] == KUSHAN
    assert s2["areas"]["gandhara"]["partial"] == {} and any(e["rule"] == "10.37" for e in ev)


def test_10_38_first_to_the_population_takes_it_and_others_markers_go():
    s = turn_of(game(), HAN, hand="military")
    s["areas"]["tarim"]["owner"] = HAN
    s["areas"]["kashmir"]["partial"] = {"0": {"gandhara": 1}, "1": {"tarim": 1}}
    counters(s, 3)
    s["players"][HAN]["talents"] = 20
    s2, _ = endeavour(s, HAN, "conquest", "tarim", "kashmir", talents=5)
    assert s2["areas"]["kashmir"]["owner"] == HAN and s2["areas"]["kashmir"]["partial"] == {}


def test_14_41_full_conquest_destroys_or_reduces_fortifications(s):
    counters(s, 3)
    s["areas"]["sindh"]["fort"] = 3
    s["areas"]["sindh"]["partial"] = {"0": {"gandhara": 1}}
    s2, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "sindh", talents=5)
    assert s2["areas"]["sindh"]["owner"] == KUSHAN and s2["areas"]["sindh"]["fort"] == 2
    s["areas"]["sindh"]["fort"] = 2
    counters(s, 3)
    s3, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "sindh", talents=5)
    assert s3["areas"]["sindh"]["owner"] == KUSHAN and s3["areas"]["sindh"]["fort"] == 0


def test_14_31_fortifications_lower_conquest(s):
    s["areas"]["kashmir"]["fort"] = 2
    assert terms(rating_of(s, KUSHAN, "conquest", "gandhara", "kashmir"))["14.31"] == -2


def test_10_5_suppress_brings_back_a_rebel_area(s):
    s["areas"]["sogdia"].update(owner=None, rebel_of=KUSHAN)
    turn_of(s, KUSHAN, hand="military")
    assert any(
        a.get("kind") == "suppress" and a["target"] == "sogdia"
        for a in engine.legal_actions(s, KUSHAN)
    )
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "suppress", "sogdia", "sogdia", talents=2)  # 5+1+2 = 8 -> S
    assert s2["areas"]["sogdia"]["owner"] == KUSHAN and s2["areas"]["sogdia"]["unrest"]


def test_11_pillage_takes_gold_and_lowers_the_target(s):
    counters(s, 3)
    s2, ev = endeavour(
        s, KUSHAN, "pillage", "gandhara", "kashmir", talents=1
    )  # 5+2+1-3+3 = 8 -> -1T+G
    assert s2["areas"]["kashmir"]["social"] == 0
    assert any(e["rule"] == "11.3" for e in ev)
    s["areas"]["kashmir"]["social"] = -3
    assert not any(
        a.get("kind") == "pillage" and a["target"] == "kashmir"
        for a in engine.legal_actions(s, KUSHAN)
    )


def test_10_conquest_with_a_burden_in_hand_is_refused(s):
    s["players"][KUSHAN]["deck"]["hand"] = {"id": "k1", "kind": "burden", "ref": "corruption"}
    with pytest.raises(IllegalAction) as err:
        endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir")
    assert err.value.code == "wrong_advisor"
