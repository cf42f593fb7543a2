"""12.x Diplomacy: every numbered case."""

from __future__ import annotations

import pytest

from app import engine
from app.engine import IllegalAction

from .helpers import HAN, KUSHAN, counters, endeavour, game, rating_of, terms, turn_of


@pytest.fixture
def s():
    return turn_of(game(), KUSHAN, hand="diplomacy")


def diplo_targets(s, seat=KUSHAN):
    return {
        (a["base"], a["target"])
        for a in engine.legal_actions(s, seat)
        if a["type"] == "endeavour" and a["kind"] == "diplomacy"
    }


def test_12_11_diplomacy_base_is_the_court(s):
    bases = {b for b, _ in diplo_targets(s)}
    assert bases == {"bactria"}
    with pytest.raises(IllegalAction):
        endeavour(s, KUSHAN, "diplomacy", "gandhara", "tarim")


def test_12_12_any_distance_and_no_sea_cost(s):
    targets = {t for _, t in diplo_targets(s)}
    assert {"latium", "syria", "mongolia"} <= targets  # far away, across seas
    ex = rating_of(s, KUSHAN, "diplomacy", "bactria", "latium")
    assert ex["cost"] == 1 and not any(t["rule"] == "9.17" for t in ex["cost_terms"])


def test_12_13_tie_with_an_area_inside_or_outside_the_empire(s):
    counters(s, 0)
    s2, _ = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "sogdia", talents=2
    )  # own area: 3+2+2-1(lang)-2(rel)=4 -> T
    assert KUSHAN in s2["areas"]["sogdia"]["ties"]
    s3 = turn_of(s2, KUSHAN, hand="diplomacy")
    counters(s3, 2)
    s4, _ = endeavour(
        s3, KUSHAN, "diplomacy", "bactria", "tarim", talents=2
    )  # 3+2+2-2-0-3=2 +2 = 4 -> T
    assert KUSHAN in s4["areas"]["tarim"]["ties"]


def test_12_14_one_tie_only_extra_t_ignored_but_c_still_possible(s):
    s["areas"]["tarim"]["ties"] = [KUSHAN]
    counters(s, 2)
    s2, ev = endeavour(s, KUSHAN, "diplomacy", "bactria", "tarim", talents=2)
    assert s2["areas"]["tarim"]["ties"] == [KUSHAN]
    assert any(e["rule"] == "12.14" for e in ev)
    s3 = turn_of(s2, KUSHAN, hand="diplomacy")
    counters(s3, 3)
    s3["players"][KUSHAN]["talents"] = 20
    s4, _ = endeavour(
        s3, KUSHAN, "diplomacy", "bactria", "tarim", talents=5
    )  # 3+2+5-2-3=5 +3 = 8 -> C
    assert s4["areas"]["tarim"]["owner"] == KUSHAN


def test_12_14_own_area_with_tie_is_not_offered(s):
    assert KUSHAN in s["areas"]["gandhara"]["ties"]
    assert ("bactria", "gandhara") not in diplo_targets(s)


def test_12_15_several_players_may_hold_ties_to_one_area(s):
    s["areas"]["tarim"]["ties"] = [HAN]
    counters(s, 2)
    s2, _ = endeavour(s, KUSHAN, "diplomacy", "bactria", "tarim", talents=2)
    assert s2["areas"]["tarim"]["ties"] == [KUSHAN, HAN]


def test_12_16_never_against_another_players_court(s):
    targets = {t for _, t in diplo_targets(s)}
    assert "guanzhong" not in targets and "henan" in targets
    with pytest.raises(IllegalAction):
        endeavour(s, KUSHAN, "diplomacy", "bactria", "guanzhong")


def test_12_17_rival_diplomacy_is_subtracted(s):
    ex = rating_of(s, KUSHAN, "diplomacy", "bactria", "henan")
    assert terms(ex)["12.17"] == -3  # Guangwu's Diplomacy


def test_12_18_independent_area_minus_three(s):
    assert terms(rating_of(s, KUSHAN, "diplomacy", "bactria", "tarim"))["12.18"] == -3


def test_12_19_own_area_yields_only_a_tie(s):
    counters(s, 3)
    s["players"][KUSHAN]["talents"] = 20
    s2, _ = endeavour(s, KUSHAN, "diplomacy", "bactria", "sogdia", talents=5)  # final >= 9 -> T/C
    assert s2["areas"]["sogdia"]["owner"] == KUSHAN and KUSHAN in s2["areas"]["sogdia"]["ties"]


def test_12_20_usurper_area_minus_five(s):
    s["areas"]["tarim"]["usurper"] = "a usurper"
    t = terms(rating_of(s, KUSHAN, "diplomacy", "bactria", "tarim"))
    assert t["12.20"] == -5 and "12.18" not in t


def test_12_2_costs_one_talent_plus_extra(s):
    counters(s, 0)
    before = s["players"][KUSHAN]["talents"]
    s2, _ = endeavour(s, KUSHAN, "diplomacy", "bactria", "latium", talents=2)
    assert s2["players"][KUSHAN]["talents"] == before - 3


def test_12_3_t_result_forms_a_tie(s):
    counters(s, 1)
    s2, ev = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "kashmir", talents=2
    )  # 3+2+2-2-1-3=1 +1 = 2 -> none
    assert KUSHAN not in s2["areas"]["kashmir"]["ties"]
    s3 = turn_of(s2, KUSHAN, hand="diplomacy")
    counters(s3, 2)
    s4, ev = endeavour(s3, KUSHAN, "diplomacy", "bactria", "kashmir", talents=2)  # 1 + 2 = 3 -> T
    assert KUSHAN in s4["areas"]["kashmir"]["ties"] and s4["areas"]["kashmir"]["owner"] is None
    assert [e for e in ev if e["kind"] == "endeavour"][0]["data"]["result"] == "T"


def test_12_3_c_result_conquers_without_forming_a_tie(s):
    counters(s, 3)
    s["players"][KUSHAN]["talents"] = 20
    s2, _ = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "kashmir", talents=5
    )  # 3+2+5-2-1-3=4 +3 = 7 -> C
    assert s2["areas"]["kashmir"]["owner"] == KUSHAN
    assert KUSHAN not in s2["areas"]["kashmir"]["ties"]


def test_12_3_tc_result_tie_and_conquest(s):
    counters(s, 3)
    s["players"][KUSHAN]["talents"] = 20
    s2, _ = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "tarim", talents=5
    )  # 3+2+5-2-0-3=5 +3 = 8 -> C
    assert s2["areas"]["tarim"]["owner"] == KUSHAN
    s3 = turn_of(game(), KUSHAN, hand="diplomacy")
    s3["players"][KUSHAN]["talents"] = 20
    s3["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] = 4
    counters(s3, 3)
    s4, _ = endeavour(s3, KUSHAN, "diplomacy", "bactria", "tarim", talents=5)  # 9 -> T/C
    assert s4["areas"]["tarim"]["owner"] == KUSHAN and KUSHAN in s4["areas"]["tarim"]["ties"]


def test_12_31_diplomatic_conquest_is_total_no_unrest_forts_kept(s):
    s["areas"]["kashmir"]["fort"] = 3
    counters(s, 3)
    s["players"][KUSHAN]["talents"] = 20
    s2, _ = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "kashmir", talents=5
    )  # population 2, one C is enough
    k = s2["areas"]["kashmir"]
    assert k["owner"] == KUSHAN and not k["unrest"] and k["fort"] == 3 and k["partial"] == {}


def test_12_32_diplomatic_conquest_of_a_players_area_is_contested_in_a_parley(s):
    s["players"][KUSHAN]["talents"] = 30
    s["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] = 6
    counters(s, 3)
    s2, _ = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "hexi", talents=5
    )  # 6+2+5-2-2-3 = 6 +3 = 9 -> T/C
    assert s2["areas"]["hexi"]["owner"] == KUSHAN
    assert s2["parley"]["question"] == "contest" and s2["parley"]["caller"] == HAN
    prompts = engine.pending(s2)
    assert {p["seat"] for p in prompts} == {KUSHAN, HAN} and all(
        p["kind"] == "vote" for p in prompts
    )
    s3, _ = engine.apply(s2, KUSHAN, {"type": "vote", "choice": "no"})  # 6 votes
    s4, _ = engine.apply(s3, HAN, {"type": "vote", "choice": "yes"})  # 3 votes
    assert s4["areas"]["hexi"]["owner"] == KUSHAN and s4["parley"] is None
    s3, _ = engine.apply(s2, KUSHAN, {"type": "vote", "choice": "abstain"})
    s4, _ = engine.apply(s3, HAN, {"type": "vote", "choice": "yes"})
    # 20.41: the parley rules for Han; Kushan returns the area or is accursed
    assert s4["grand"]["verdict"]["seat"] == KUSHAN
    s5, _ = engine.apply(s4, KUSHAN, {"type": "verdict", "comply": True})
    assert s5["areas"]["hexi"]["owner"] == HAN and not s5["players"][KUSHAN]["accursed"]


def test_12_41_a_tie_opens_the_way_to_a_claim(s):
    s["areas"]["tarim"]["ties"] = [KUSHAN]
    s["players"][KUSHAN]["talents"] = 20
    counters(s, 3)
    s2, _ = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "tarim", talents=5
    )  # C with a tie already -> claim (18.21)
    assert s2["areas"]["tarim"]["claims"] == [KUSHAN]


def test_12_42_own_tie_minus_two_rival_tie_plus_two():
    s = turn_of(game(), KUSHAN)
    ex = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})
    assert {t["rule"]: t["value"] for t in ex["terms"]}["12.42"] == -2
    s["areas"]["gandhara"]["ties"] = [KUSHAN, HAN]
    ex = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})
    assert sorted(t["value"] for t in ex["terms"] if t["rule"] == "12.42") == [-2, 2]


def test_12_42_rivals_are_asked_to_waive_before_the_dice_and_all_must_waive():
    s = turn_of(game("four_empires", ("kushan", "han", "rome")), 0)
    s["areas"]["gandhara"]["ties"] = [1, 2]
    s2, _ = engine.apply(s, 0, {"type": "tax", "area": "gandhara", "amount": 2})
    assert s2["request"] is not None and {p["seat"] for p in engine.pending(s2)} == {1, 2}
    s3, _ = engine.apply(s2, 1, {"type": "waive_tie", "area": "gandhara", "waive": True})
    assert s3["request"] is not None
    s4, ev = engine.apply(s3, 2, {"type": "waive_tie", "area": "gandhara", "waive": False})
    check = [e for e in ev if e["kind"] == "rebellion"][0]
    assert any(t["rule"] == "12.42" and t["value"] == 2 for t in check["data"]["terms"])
    s4, ev = engine.apply(s3, 2, {"type": "waive_tie", "area": "gandhara", "waive": True})
    check = [e for e in ev if e["kind"] == "rebellion"][0]
    assert not any(t["rule"] == "12.42" and t["value"] == 2 for t in check["data"]["terms"])


def test_12_43_a_tie_is_removed_by_its_owner_only():
    s = turn_of(game(), KUSHAN)
    s["areas"]["tarim"]["ties"] = [KUSHAN, HAN]
    legal = engine.legal_actions(s, KUSHAN)
    assert {"type": "remove_tie", "area": "tarim"} in legal
    s2, _ = engine.apply(s, KUSHAN, {"type": "remove_tie", "area": "tarim"})
    assert s2["areas"]["tarim"]["ties"] == [HAN]


def test_12_43_diplomatic_coup_breaks_a_rivals_tie():
    s = turn_of(game(), KUSHAN)
    s["areas"]["tarim"]["ties"] = [HAN]
    s["players"][KUSHAN]["holdings"] = [{"id": "k5000", "kind": "fate", "ref": "diplomatic_coup"}]
    s2, _ = engine.apply(
        s, KUSHAN, {"type": "play", "card": "k5000", "target": "tarim", "power": "han"}
    )
    assert s2["areas"]["tarim"]["ties"] == []
