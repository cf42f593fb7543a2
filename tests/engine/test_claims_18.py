"""18.x Claims: every numbered case."""

from __future__ import annotations

import pytest

from app import engine
from app.engine import IllegalAction

from .helpers import HAN, KUSHAN, counters, endeavour, game, turn_of, war


def holding(s, seat, ref, cid="k7000"):
    s["players"][seat]["holdings"].append({"id": cid, "kind": "fate", "ref": ref})
    return cid


def test_18_11_one_claim_per_player_but_many_players_may_claim():
    s = turn_of(game(), KUSHAN)
    s["areas"]["sogdia"]["claims"] = [HAN]
    s["areas"]["sogdia"]["ties"] = [KUSHAN]
    s["areas"]["sogdia"]["religion"] = "buddhist"
    cid = holding(s, KUSHAN, "recognition_of_claim")
    s2, _ = engine.apply(s, KUSHAN, {"type": "play", "card": cid, "target": "sogdia"})
    assert sorted(s2["areas"]["sogdia"]["claims"]) == [KUSHAN, HAN]
    cid2 = holding(s2, KUSHAN, "recognition_of_claim", "k7001")
    assert {"type": "play", "card": cid2, "target": "sogdia"} not in engine.legal_actions(
        s2, KUSHAN
    )


def test_18_12_a_claim_needs_the_emperors_religion():
    s = turn_of(game(), KUSHAN)
    cid = holding(s, KUSHAN, "recognition_of_claim")
    legal = engine.legal_actions(s, KUSHAN)
    assert {"type": "play", "card": cid, "target": "sogdia"} not in legal  # mazdean, not buddhist
    assert {"type": "play", "card": cid, "target": "gandhara"} in legal  # buddhist


def test_18_12_the_same_religion_family_is_enough():
    """Seed 18.12: "not necessarily the same Church"; the family counts, as in 9.35."""
    s = turn_of(game(), KUSHAN)
    cid = holding(s, KUSHAN, "recognition_of_claim")
    s["areas"]["gandhara"]["religion"] = "vedic"  # Indic, like the Buddhist emperor
    legal = engine.legal_actions(s, KUSHAN)
    assert {"type": "play", "card": cid, "target": "gandhara"} in legal
    s["areas"]["gandhara"]["religion"] = "mazdean"  # Iranian: another family
    legal = engine.legal_actions(s, KUSHAN)
    assert {"type": "play", "card": cid, "target": "gandhara"} not in legal


def test_18_13_scenario_claims_are_given_at_the_start():
    s = game()
    assert s["areas"]["bactria"]["claims"] == [KUSHAN]
    assert s["areas"]["guanzhong"]["claims"] == [HAN] and s["areas"]["henan"]["claims"] == [HAN]


def test_18_21_taking_an_unclaimed_area_with_a_tie_gives_a_claim():
    s = turn_of(game(), KUSHAN, hand="military")
    s["areas"]["tarim"]["ties"] = [KUSHAN]
    counters(s, 3)
    s["players"][KUSHAN]["talents"] = 20
    s2, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir", talents=5)
    s["areas"]["kashmir"]["religion"] = "buddhist"
    s["areas"]["kashmir"]["ties"] = [KUSHAN]
    s3, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir", talents=5)
    assert s2["areas"]["kashmir"]["claims"] == []  # no tie, no claim
    assert s3["areas"]["kashmir"]["partial"] or s3["areas"]["kashmir"]["owner"] == KUSHAN
    s3["areas"]["kashmir"]["partial"] = {str(KUSHAN): {"gandhara": 1}}
    s4 = turn_of(s3, KUSHAN, hand="military")
    counters(s4, 3)
    s5, _ = endeavour(s4, KUSHAN, "conquest", "gandhara", "kashmir", talents=5)
    assert s5["areas"]["kashmir"]["owner"] == KUSHAN and s5["areas"]["kashmir"]["claims"] == [
        KUSHAN
    ]


def test_18_21_no_claim_when_another_player_already_claims():
    s = turn_of(game(), KUSHAN, hand="military")
    s["areas"]["kashmir"].update(
        religion="buddhist", ties=[KUSHAN], claims=[HAN], partial={str(KUSHAN): {"gandhara": 1}}
    )
    counters(s, 3)
    s["players"][KUSHAN]["talents"] = 20
    s2, _ = endeavour(s, KUSHAN, "conquest", "gandhara", "kashmir", talents=5)
    assert s2["areas"]["kashmir"]["owner"] == KUSHAN and s2["areas"]["kashmir"]["claims"] == [HAN]


def test_18_22_forming_a_tie_with_an_owned_unclaimed_area_gives_a_claim():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    s["areas"]["sogdia"]["religion"] = "buddhist"
    counters(s, 1)
    s2, _ = endeavour(
        s, KUSHAN, "diplomacy", "bactria", "sogdia", talents=2
    )  # 3+2+2-1 = 6, +1 -> T
    assert s2["areas"]["sogdia"]["ties"] == [KUSHAN] and s2["areas"]["sogdia"]["claims"] == [KUSHAN]


def test_18_23_recognition_of_claim_on_an_owned_unclaimed_area_without_a_tie():
    s = turn_of(game(), KUSHAN)
    assert s["areas"]["gandhara"]["claims"] == []
    s["areas"]["gandhara"]["ties"] = []
    cid = holding(s, KUSHAN, "recognition_of_claim")
    s2, _ = engine.apply(s, KUSHAN, {"type": "play", "card": cid, "target": "gandhara"})
    assert s2["areas"]["gandhara"]["claims"] == [KUSHAN]
    assert s2["fate"]["discard"][-1]["ref"] == "recognition_of_claim"


def test_18_24_tc_gives_tie_possession_and_claim():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    s["players"][KUSHAN]["talents"] = 20
    s["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] = 4
    counters(s, 3)
    s2, _ = endeavour(s, KUSHAN, "diplomacy", "bactria", "tarim", talents=5)
    t = s2["areas"]["tarim"]
    assert t["owner"] == KUSHAN and t["ties"] == [KUSHAN] and t["claims"] == [KUSHAN]


def test_18_24_a_plain_c_gives_no_claim_without_a_tie():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    s["players"][KUSHAN]["talents"] = 20
    counters(s, 3)
    s2, _ = endeavour(s, KUSHAN, "diplomacy", "bactria", "tarim", talents=5)  # 8 -> C
    assert s2["areas"]["tarim"]["owner"] == KUSHAN and s2["areas"]["tarim"]["claims"] == []


def test_18_25_dynastic_inheritance_with_a_tie_regardless_of_other_claims():
    s = turn_of(game(), KUSHAN)
    s["areas"]["tarim"].update(ties=[KUSHAN, HAN], claims=[HAN])
    cid = holding(s, KUSHAN, "dynastic_inheritance")
    assert {"type": "play", "card": cid, "target": "kashmir"} not in engine.legal_actions(s, KUSHAN)
    s2, _ = engine.apply(s, KUSHAN, {"type": "play", "card": cid, "target": "tarim"})
    assert sorted(s2["areas"]["tarim"]["claims"]) == [KUSHAN, HAN]


def test_18_31_recognition_against_a_competing_claim_needs_a_tie():
    s = turn_of(game(), KUSHAN)
    s["areas"]["gandhara"].update(claims=[HAN], ties=[])
    cid = holding(s, KUSHAN, "recognition_of_claim")
    assert {"type": "play", "card": cid, "target": "gandhara"} not in engine.legal_actions(
        s, KUSHAN
    )
    s["areas"]["gandhara"]["ties"] = [KUSHAN]
    s2, _ = engine.apply(s, KUSHAN, {"type": "play", "card": cid, "target": "gandhara"})
    assert sorted(s2["areas"]["gandhara"]["claims"]) == [KUSHAN, HAN]


def test_18_32_claim_parley_granted_on_a_majority_or_a_tie_once_per_round():
    s = turn_of(game(), KUSHAN)
    s["areas"]["gandhara"].update(claims=[HAN], ties=[KUSHAN])
    assert {"type": "call_parley", "area": "gandhara"} in engine.legal_actions(s, KUSHAN)
    s2, _ = engine.apply(s, KUSHAN, {"type": "call_parley", "area": "gandhara"})
    assert {p["seat"] for p in engine.pending(s2)} == {KUSHAN, HAN}
    # Kujula 3 votes, Guangwu 3 votes: a tie grants the claim (20.42)
    s3, _ = engine.apply(s2, HAN, {"type": "vote", "choice": "no"})
    assert engine.view(s3, KUSHAN)["parley"]["votes"] is None  # hidden until all are in
    s4, _ = engine.apply(s3, KUSHAN, {"type": "vote", "choice": "yes"})
    assert sorted(s4["areas"]["gandhara"]["claims"]) == [KUSHAN, HAN]
    s5 = json_copy(s2)
    s5["players"][HAN]["emperor"]["statures"]["diplomacy"] = 4
    s5["parley"]["weights"]["1"] = 4
    s6, _ = engine.apply(s5, HAN, {"type": "vote", "choice": "no"})
    s7, _ = engine.apply(s6, KUSHAN, {"type": "vote", "choice": "yes"})
    assert s7["areas"]["gandhara"]["claims"] == [HAN]
    assert {"type": "call_parley", "area": "gandhara"} not in engine.legal_actions(
        s7, KUSHAN
    )  # 20.53
    with pytest.raises(IllegalAction):
        engine.apply(s7, KUSHAN, {"type": "call_parley", "area": "gandhara"})


def json_copy(s):
    return engine.loads(engine.dumps(s))


def test_18_4_claim_endeavour_acts_as_recognition():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    s["areas"]["gandhara"]["ties"] = []
    claims = {a["target"] for a in engine.legal_actions(s, KUSHAN) if a.get("kind") == "claim"}
    assert claims == {"gandhara"}  # sogdia is mazdean (18.12), bactria already claimed
    counters(s, 0)
    s2, _ = endeavour(
        s, KUSHAN, "claim", "bactria", "gandhara", talents=1
    )  # 3+2+1-2 = 4 -> nothing
    assert s2["areas"]["gandhara"]["claims"] == []
    s = turn_of(s2, KUSHAN, hand="diplomacy")
    counters(s, 1)
    s2, _ = endeavour(s, KUSHAN, "claim", "bactria", "gandhara", talents=1)  # 4 + 1 = 5 -> K
    assert s2["areas"]["gandhara"]["claims"] == [KUSHAN]


def test_18_4_failed_claim_costs_influence():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    counters(s, -3)
    s["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] = 0
    s["areas"]["bactria"]["social"] = -2
    s["areas"]["gandhara"]["ties"] = []
    before = s["players"][KUSHAN]["influence"]
    s2, _ = endeavour(s, KUSHAN, "claim", "bactria", "gandhara")  # 0-2-1-3 = -6 -> I-
    assert s2["players"][KUSHAN]["influence"] == before - 1


def test_18_5_no_limit_to_claims_and_claims_survive_losing_the_area():
    s = turn_of(game(), HAN, hand="military")
    war(s)
    s["areas"]["sogdia"]["claims"] = [KUSHAN]
    s["areas"]["sogdia"]["partial"] = {}
    s["players"][HAN]["talents"] = 30
    s["areas"]["ferghana"]["owner"] = HAN
    s["areas"]["tarim"]["owner"] = HAN
    counters(s, 3)
    s["players"][KUSHAN]["years_left"] = 0
    s2, _ = endeavour(s, HAN, "conquest", "ferghana", "sogdia", talents=5)
    assert s2["areas"]["sogdia"]["owner"] == HAN and s2["areas"]["sogdia"]["claims"] == [KUSHAN]


def test_18_12_the_claim_parley_reads_the_religion_family_as_every_other_claim_does():
    """18.12 "the same Religion (but not necessarily the same Christian Church)": a
    Zoroastrian Parthia may call a 20.42 parley on its Armenian-Mazdean Armenia, as it
    could play Recognition of Claim there; a Buddhist one may not."""
    from app.engine.content import load_content, using
    from app.engine.core import faith_allows_claim

    with using(load_content()):  # the shipped map: its religions and their families
        _parthia_calls_a_parley_on_armenia(faith_allows_claim)


def _parthia_calls_a_parley_on_armenia(faith_allows_claim):
    s = game("four_empires", ("parthia", "rome"))
    parthia, rome = 0, 1
    s = turn_of(s, parthia)
    armenia = s["areas"]["armenia"]
    assert s["players"][parthia]["emperor"]["religion"] == "zoroastrian"
    assert armenia["religion"] == "armenian_mazdean"
    armenia.update(owner=parthia, ties=[parthia], claims=[rome])
    call = {"type": "call_parley", "area": "armenia"}
    assert faith_allows_claim(s, parthia, "armenia")
    assert call in engine.legal_actions(s, parthia)
    s2, ev = engine.apply(s, parthia, call)
    assert s2["parley"]["question"] == "claim" and s2["parley"]["area"] == "armenia"
    s["players"][parthia]["emperor"]["religion"] = "buddhist"  # another family: no claim
    assert not faith_allows_claim(s, parthia, "armenia")
    assert call not in engine.legal_actions(s, parthia)
