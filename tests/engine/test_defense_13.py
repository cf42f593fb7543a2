"""13 Defense: an interrupt from a saved year."""

from __future__ import annotations

import pytest

from app import engine

from .helpers import HAN, KUSHAN, counters, endeavour, game, turn_of, war


@pytest.fixture
def s():
    s = turn_of(game(), KUSHAN, hand="military")
    war(s)
    for a in ("tarim", "ferghana"):
        s["areas"][a]["owner"] = KUSHAN
    s["players"][KUSHAN]["talents"] = 20
    s["players"][HAN]["talents"] = 10
    return s


def test_13_0_the_attack_waits_for_the_defenders_answer(s):
    counters(s, 0)
    s2, ev = endeavour(s, KUSHAN, "conquest", "tarim", "hexi", talents=1)
    assert s2["interrupt"] is not None and s2["step"] == "interrupt"
    prompts = engine.pending(s2)
    assert prompts == [
        {
            "seat": HAN,
            "kind": "defend",
            "label": prompts[0]["label"],
            "attacker": KUSHAN,
            "area": "hexi",
            "endeavour": "conquest",
            "rating": prompts[0]["rating"],
        }
    ]
    assert engine.legal_actions(s2, KUSHAN) == []
    assert {"type": "decline"} in engine.legal_actions(s2, HAN)
    assert s2["counters"]["pool"] == [0]  # no counter drawn yet
    assert s2["players"][KUSHAN]["talents"] == 20 - 2 - 1  # paid on announcing


def test_13_21_defense_lowers_the_rating_by_military_and_talents(s):
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi", talents=1)
    rating = s2["interrupt"]["rating"]  # 5 + 0 (tarim) + 1 - 2 - 2 = 2
    s3, ev = engine.apply(s2, HAN, {"type": "defend", "talents": 2})
    res = [e for e in ev if e["kind"] == "endeavour"][0]["data"]
    assert res["rating"] == rating - 4 - 2  # Guangwu's Military 4, 2 talents
    assert s3["players"][HAN]["talents"] == 10 - 1 - 2 and s3["players"][HAN]["years_left"] == 4
    assert s3["interrupt"] is None and s3["step"] == "start" and s3["active"] == KUSHAN


def test_13_22_declining_resolves_at_the_announced_rating_and_the_defender_draws_nothing(s):
    counters(s, 3, 3)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi", talents=3)
    s3, ev = engine.apply(s2, HAN, {"type": "decline"})
    assert [e for e in ev if e["kind"] == "endeavour"][0]["data"]["rating"] == s2["interrupt"][
        "rating"
    ]
    assert len(s3["counters"]["pool"]) == 1
    assert s3["areas"]["hexi"]["owner"] == KUSHAN  # 5+0+3-2-2 = 4 +3 = 7 -> C, population 1


def test_13_13_a_player_keeps_a_year_for_his_own_turn(s):
    s["players"][HAN].update(had_turn=False, years_left=1)
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi")
    assert s2["interrupt"] is None
    s["players"][HAN].update(had_turn=False, years_left=2)
    s3, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi")
    assert s3["interrupt"] is not None


def test_13_13_at_most_four_defenses_a_round(s):
    s["players"][HAN]["defenses"] = 4
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi")
    assert s2["interrupt"] is None


def test_13_14_no_year_left_no_defense(s):
    s["players"][HAN]["years_left"] = 0
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi")
    assert s2["interrupt"] is None


def test_13_11_defense_needs_a_talent(s):
    s["players"][HAN]["talents"] = 0
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi")
    assert s2["interrupt"] is None


def test_13_independents_never_defend(s):
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "wusun")
    assert s2["interrupt"] is None


def test_13_default_action_declines(s):
    counters(s, 0)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi")
    assert engine.default_action(s2, engine.pending(s2)[0]) == {"type": "decline"}


def test_13_explain_shows_the_rating_if_defended(s):
    ex = engine.explain(
        s,
        KUSHAN,
        {"type": "endeavour", "kind": "conquest", "base": "tarim", "target": "hexi", "talents": 0},
    )
    assert ex["if_defended"]["rating"] == ex["rating"] - 4
    assert abs(sum(ex["odds"].values()) - 1) < 1e-9


def test_13_explain_a_defense_shows_the_attackers_odds(s):
    counters(s, 0, 3)
    s2, _ = endeavour(s, KUSHAN, "conquest", "tarim", "hexi", talents=3)
    none = engine.explain(s2, HAN, {"type": "decline"})
    two = engine.explain(s2, HAN, {"type": "defend", "talents": 2})
    assert none["rating"] == s2["interrupt"]["rating"] and two["rating"] == none["rating"] - 6
    assert two["cost"] == 3 and none["odds"].get("C", 0) > two["odds"].get("C", 0)
