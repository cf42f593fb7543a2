"""3 diplomatic phase, 4 rounds and upkeep, 5.10 bad turns, 6.8 market upkeep, 16.18, 19.2."""

from __future__ import annotations

import pytest

from app import engine
from app.engine.fate import resolve_event
from app.engine.flow import end_round, upkeep

from .helpers import HAN, KUSHAN, dice, game, turn_of


def test_3_4_the_phase_ends_when_all_pass_in_a_row():
    s = game()
    first = engine.pending(s)[0]["seat"]
    s, _ = engine.apply(s, first, {"type": "diplo", "move": "pass"})
    assert s["phase"] == "diplomacy"
    second = engine.pending(s)[0]["seat"]
    s2, _ = engine.apply(
        s, second, {"type": "diplo", "move": "declare_war", "power": s["players"][first]["power"]}
    )
    assert s2["phase"] == "diplomacy"  # a move resets the count
    s3, _ = engine.apply(s, second, {"type": "diplo", "move": "pass"})
    assert s3["phase"] in ("initiative", "turn")


def test_3_2_at_most_two_moves_each_phase():
    s = game()
    s["diplo"]["moves"] = {"0": 2, "1": 0}
    s["diplo"]["pos"] = 0
    assert engine.legal_actions(s, 0) == [{"type": "diplo", "move": "pass"}]


def test_4_6_emperors_age_five_years_a_round():
    s = turn_of(game(), KUSHAN)
    s["round"] = 1
    age = s["players"][KUSHAN]["emperor"]["age"]
    end_round(s, [])
    assert s["players"][KUSHAN]["emperor"]["age"] == age + 5 and s["round"] == 2
    assert s["year"] == s["start_year"] + 5


def test_4_7_upkeep_moves_the_market_and_opens_the_next_turn():
    s = turn_of(game(), KUSHAN)
    left = s["market"]["row"][0]["card"]
    upkeep(s, [])
    assert left in s["market"]["discard"] and s["turn"] == 2 and s["phase"] == "diplomacy"


def test_26_2_the_last_upkeep_ends_the_game():
    s = turn_of(game(), KUSHAN)
    s["turn"] = s["end_turn"]
    upkeep(s, [])
    assert s["over"] and s["phase"] == "over" and engine.outcome(s)["winner"] in (0, 1)


def test_5_10_a_bad_turn_costs_an_advisor_and_popularity():
    s = turn_of(game(), KUSHAN, hand="arts")
    s["counters"]["pool"], s["counters"]["out"] = [-3], []
    s["players"][KUSHAN]["emperor"]["statures"]["arts"] = 0
    s["areas"]["bactria"]["social"] = -2
    s2, _ = engine.apply(
        s,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "festival",
            "base": "bactria",
            "target": "bactria",
            "talents": 0,
        },
    )
    p = s2["players"][KUSHAN]
    arts = sum(1 for c in p["deck"]["draw"] + p["deck"]["discard"] if c["ref"] == "arts")
    s2["fate"]["deck"].insert(
        0, {"id": "k9800", "kind": "fate", "ref": "hidden_treasury"}
    )  # a quiet Fate card
    s3, ev = engine.apply(s2, KUSHAN, {"type": "end_turn"})
    q = s3["players"][KUSHAN]
    assert (
        sum(1 for c in q["deck"]["draw"] + q["deck"]["discard"] if c["ref"] == "arts") == arts - 1
    )
    assert q["popularity"] == p["popularity"] - 1 and q["influence"] == p["influence"] - 1


def test_16_18_a_demesne_pays_once_per_segment():
    s = turn_of(game(), KUSHAN)
    s["players"][KUSHAN]["in_play"] = ["royal_demesne"]
    s2, _ = engine.apply(s, KUSHAN, {"type": "tax", "area": "bactria", "amount": 1})
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"] + 1 + 1
    dice(s2, 1, 1)
    s3, _ = engine.apply(s2, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})
    assert s3["players"][KUSHAN]["talents"] == s2["players"][KUSHAN]["talents"] + 1


def test_16_12_taxation_is_voluntary():
    s = turn_of(game(), KUSHAN)
    s2, _ = engine.apply(s, KUSHAN, {"type": "end_turn"})
    assert s2["active"] == HAN or s2["phase"] != "turn" or s2["active"] != KUSHAN


def test_19_2_plague_lowers_areas_and_adds_a_burden():
    s = game()
    before = sum(a["social"] for a in s["areas"].values() if a["owner"] == HAN)
    resolve_event(s, HAN, {"op": "plague", "areas": 2}, [])
    assert sum(a["social"] for a in s["areas"].values() if a["owner"] == HAN) == before - 2
    assert any(c["ref"] == "plague" for c in s["players"][HAN]["deck"]["discard"])


def test_6_8_notables_out_of_era_leave_at_upkeep():
    s = turn_of(game(), KUSHAN)
    s["year"] = 1000
    upkeep(s, [])
    assert all(e["card"] not in ("ban_chao",) for e in s["market"]["row"])


def test_4_8_the_trailing_power_gains_influence_at_upkeep():
    s = turn_of(game(), KUSHAN)
    s["areas"]["henan"]["owner"] = None  # Han falls behind
    s["areas"]["guanzhong"]["claims"] = []
    inf = [p["influence"] for p in s["players"]]
    upkeep(s, [])
    assert (
        s["players"][HAN]["influence"] == inf[HAN] + 1
        and s["players"][KUSHAN]["influence"] == inf[KUSHAN]
    )


def _to(s, seat):
    s["phase"] = "diplomacy"
    s["diplo"] = {
        "pos": seat,
        "passes": 0,
        "moves": {str(i): 0 for i in range(len(s["players"]))},
        "proposal": None,
    }
    return s


def four():
    return engine.new_game("four_empires", ["rome", "parthia", "kushan", "han"], 1)


def test_3_51_3_53_claim_hegemony_and_join_with_permission():
    s = _to(four(), 0)
    s, _ = engine.apply(s, 0, {"type": "diplo", "move": "claim_hegemony"})
    assert s["relations"]["hegemons"] == [0]
    assert {"type": "diplo", "move": "join", "power": "rome"} in engine.legal_actions(s, 1)
    s, _ = engine.apply(s, 1, {"type": "diplo", "move": "join", "power": "rome"})
    prompt = engine.pending(s)[0]
    assert prompt["seat"] == 0 and prompt["request"] == "join"
    assert engine.default_action(s, prompt) == {
        "type": "diplo",
        "move": "reject_join",
        "power": "parthia",
    }
    s, _ = engine.apply(s, 0, {"type": "diplo", "move": "accept_join", "power": "parthia"})
    assert s["relations"]["coalitions"] == {"0": [1]}
    assert engine.score(s)[0]["hegemony"] == 1


def test_3_55_a_coalition_shares_its_heads_wars_and_never_fights_itself():
    s = _to(four(), 0)
    s["relations"]["hegemons"] = [0]
    s["relations"]["coalitions"] = {"0": [1]}
    s["relations"]["pairs"]["0|2"]["status"] = "war"
    from app.engine.core import at_war

    assert at_war(s, 1, 2) and at_war(s, 2, 1) and not at_war(s, 0, 1) and not at_war(s, 1, 3)
    s["diplo"]["pos"] = 1
    legal = engine.legal_actions(s, 1)
    assert not any(a.get("move") == "declare_war" for a in legal)  # juniors follow their head
    assert {"type": "diplo", "move": "leave"} in legal
    s2, _ = engine.apply(s, 1, {"type": "diplo", "move": "leave"})
    assert s2["relations"]["coalitions"] == {} and not at_war(s2, 1, 2)


def test_3_52_relinquishing_dissolves_the_coalition_but_its_wars_go_on():
    s = _to(four(), 0)
    s["relations"]["hegemons"] = [0]
    s["relations"]["coalitions"] = {"0": [1]}
    s["relations"]["pairs"]["0|2"]["status"] = "war"
    pop = s["players"][0]["popularity"]
    s2, _ = engine.apply(s, 0, {"type": "diplo", "move": "relinquish_hegemony"})
    assert s2["relations"]["hegemons"] == [] and s2["relations"]["coalitions"] == {}
    from app.engine.core import at_war

    # Peace needs the enemy's consent (3.22): the war goes on; the partner is out of it.
    assert s2["relations"]["pairs"]["0|2"]["status"] == "war" and not at_war(s2, 1, 2)
    assert s2["players"][0]["popularity"] == pop - 1


def test_3_53_a_power_at_war_with_a_third_cannot_join_to_escape_it():
    s = _to(four(), 0)
    s, _ = engine.apply(s, 0, {"type": "diplo", "move": "claim_hegemony"})
    s["relations"]["pairs"]["1|2"]["status"] = "war"
    join = {"type": "diplo", "move": "join", "power": "rome"}
    assert join not in engine.legal_actions(s, 1)
    with pytest.raises(engine.IllegalAction):
        engine.apply(s, 1, join)
    # At war with the hegemon itself, it may: accepting is the hegemon's peace.
    s["relations"]["pairs"]["1|2"]["status"] = "neutral"
    s["relations"]["pairs"]["0|1"]["status"] = "war"
    assert join in engine.legal_actions(s, 1)
    s, _ = engine.apply(s, 1, join)
    s, _ = engine.apply(s, 0, {"type": "diplo", "move": "accept_join", "power": "parthia"})
    assert s["relations"]["pairs"]["0|1"]["status"] == "peace"
