"""24 nomads: hordes with a homeland, a strength and a reach (24.1, 24.11); the threat
picked by wealth (24.12); the raid at the end of the game turn, answered by a defense
(24.13, 24.14); Fate raids (24.15); tribute priced against the threat (24.2).

The synthetic pack's hordes: the Xiongnu of Mongolia (strength 4; Han's Hexi is in
their reach) and the Wusun (strength 2; nobody's area is in theirs at the start)."""

from __future__ import annotations

from typing import Any

from app import engine
from app.engine import nomads
from app.engine.fate import raid

from .helpers import HAN, KUSHAN, counters, dice, endeavour, game, rating_of, turn_of


def last_turn_of_han(s: dict[str, Any], target: str | None = "hexi") -> dict[str, Any]:
    """Han plays last in the game turn's last round; no Fate card waits."""
    s = turn_of(s, HAN)
    s["round"] = s["rounds"]
    s["order"] = [KUSHAN, HAN]
    s["fate"] = {"deck": [], "discard": []}
    s["players"][KUSHAN]["years_left"] = 0
    s["world"]["hordes"]["xiongnu"]["target"] = target
    s["world"]["hordes"]["wusun"]["target"] = None
    return s


def test_24_1_hordes_have_strength_and_the_name_of_their_era():
    s = game()
    assert s["world"]["hordes"]["xiongnu"]["strength"] == 4
    assert nomads.horde_name(s, "xiongnu") == "Xiongnu"
    s["year"] = 120
    assert nomads.horde_name(s, "xiongnu") == "Xianbei"


def test_24_11_han_has_a_frontier_even_when_a_steppe_power_holds_the_homeland():
    s = game()
    assert nomads.frontier(s, HAN) == ["hexi"]
    assert nomads.frontier(s, KUSHAN) == []
    s["areas"]["mongolia"]["owner"] = KUSHAN  # a seated steppe power holds the homeland
    assert nomads.frontier(s, HAN) == ["hexi"]
    assert nomads.frontier(s, KUSHAN) == ["mongolia"]  # and is raided there itself


def test_24_12_each_horde_picks_the_richest_area_in_its_reach():
    s = game()
    s["areas"]["tarim"]["owner"] = HAN
    s["areas"]["mongolia"]["owner"] = KUSHAN
    s["areas"]["hexi"]["social"] = 2  # 1 + 2 beats Mongolia's 2 - 1
    events: list[dict[str, Any]] = []
    nomads.choose_targets(s, events)
    assert s["world"]["hordes"]["xiongnu"]["target"] == "hexi"
    assert s["world"]["hordes"]["wusun"]["target"] == "tarim"
    assert [e["rule"] for e in events] == ["24.12", "24.12"]
    hordes = {h["id"]: h for h in engine.view(s, None)["world"]["hordes"]}
    assert hordes["xiongnu"]["owner"] == HAN and hordes["xiongnu"]["rating"] == 4
    assert abs(sum(hordes["xiongnu"]["odds"].values()) - 1) < 1e-9


def test_24_12_targets_are_chosen_at_each_game_turn_start():
    s = game()
    assert s["world"]["hordes"]["xiongnu"]["target"] == "hexi"  # turn 1, at set-up


def test_24_13_a_raid_waits_for_its_defender_and_a_defense_throws_it_back():
    s = last_turn_of_han(game())
    talents = s["players"][HAN]["talents"]
    pop = s["players"][HAN]["popularity"]
    s2, ev = engine.apply(s, HAN, {"type": "end_turn"})
    [prompt] = engine.pending(s2)
    assert prompt["kind"] == "defend" and prompt["horde"] == "xiongnu" and prompt["seat"] == HAN
    assert prompt["attacker"] is None and prompt["endeavour"] == "raid"
    legal = engine.legal_actions(s2, HAN)
    assert {"type": "decline"} in legal and {"type": "defend", "talents": 2} in legal
    it = engine.view(s2, KUSHAN)["interrupt"]
    assert it["kind"] == "raid" and it["target"] == "hexi" and it["rating"] == 4
    explained = engine.explain(s2, HAN, {"type": "defend", "talents": 2})
    assert explained["rating"] == 4 - 4 - 2  # Guangwu's Military 4 and two talents (13.21)
    assert explained["odds"] == {"none": 1.0, "raid": 0.0, "sack": 0.0}
    s3, ev = engine.apply(s2, HAN, {"type": "defend", "talents": 2})
    rules = [e["rule"] for e in ev]
    assert "13.21" in rules and "24.14" in rules
    assert s3["world"]["hordes"]["xiongnu"]["strength"] == 2  # thrown back two (24.14)
    assert s3["areas"]["hexi"]["social"] == 0
    assert s3["players"][HAN]["talents"] == talents - 3
    assert s3["players"][HAN]["popularity"] == min(10, pop + 1)
    assert s3["world"]["raid"] is None and s3["turn"] == 2  # the round's end went on


def test_24_13_an_undefended_raid_can_sack_and_the_horde_grows():
    s = last_turn_of_han(game())
    s["players"][HAN]["years_left"] = 0  # 13.14: no year, no defense
    dice(s, 6)  # 4 + 6 = 10: sacked
    s2, ev = engine.apply(s, HAN, {"type": "end_turn"})
    raid_event = next(e for e in ev if e["rule"] == "24.13" and e["kind"] == "nomads")
    assert raid_event["data"]["result"] == "sack" and raid_event["data"]["final"] == 10
    assert s2["areas"]["hexi"]["social"] == -1 and s2["areas"]["hexi"]["unrest"]
    assert s2["world"]["hordes"]["xiongnu"]["strength"] == 5  # 24.14


def test_24_13_fortifications_lower_the_raid():
    s = game()
    s["areas"]["hexi"]["fort"] = 2
    assert nomads.raid_terms(s, "xiongnu", "hexi")[-1] == {
        "term": "fortifications",
        "value": -2,
        "rule": "14.31",
    }
    odds = nomads.raid_odds(4 - 2)  # a 5 or a 6 still reaches 7
    assert abs(odds["raid"] - 1 / 3) < 1e-9 and odds["sack"] == 0.0


def test_24_2_tribute_is_priced_against_the_threat_and_keeps_the_horde_away():
    s = turn_of(game(), HAN, hand="diplomacy")
    assert nomads.tribute_price(s, HAN) == 2  # half of strength 4
    s["world"]["hordes"]["xiongnu"]["strength"] = 5
    assert nomads.tribute_price(s, HAN) == 3  # rounded up
    assert rating_of(s, HAN, "tribute", "guanzhong", "guanzhong")["cost"] == 3
    s["world"]["hordes"]["xiongnu"]["target"] = None
    assert nomads.tribute_price(s, HAN) == 1  # a frontier, no threat: the minimum
    s["world"]["hordes"]["xiongnu"]["target"] = "hexi"
    s["world"]["hordes"]["xiongnu"]["strength"] = 4
    talents = s["players"][HAN]["talents"]
    counters(s, 3)
    s2, _ = endeavour(s, HAN, "tribute", "guanzhong", "guanzhong")
    assert s2["players"][HAN]["tribute_turn"] == s2["turn"]
    assert s2["players"][HAN]["talents"] == talents - 2
    s3 = last_turn_of_han(s2)
    s4, ev = engine.apply(s3, HAN, {"type": "end_turn"})
    assert any(e["rule"] == "24.2" and e["kind"] == "nomads" for e in ev)
    assert s4["areas"]["hexi"]["social"] == 0


def test_24_2_tribute_is_offered_only_on_a_frontier_and_once_a_game_turn():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    assert not any(a.get("kind") == "tribute" for a in engine.legal_actions(s, KUSHAN))
    s = turn_of(game(), HAN, hand="diplomacy")
    assert any(a.get("kind") == "tribute" for a in engine.legal_actions(s, HAN))
    s["players"][HAN]["tribute_turn"] = s["turn"]
    assert not any(a.get("kind") == "tribute" for a in engine.legal_actions(s, HAN))


def test_24_15_a_fate_raid_falls_on_the_richest_frontier_area_unless_tribute_was_paid():
    s = game()
    dice(s, 4)  # 4 + 4 = 8: raided
    events: list[dict[str, Any]] = []
    raid(s, HAN, 1, events)
    assert s["areas"]["hexi"]["social"] == -1
    assert events[0]["rule"] == "24.15" and events[0]["data"]["result"] == "raid"
    s = game()
    s["players"][HAN]["tribute_turn"] = s["turn"]
    events = []
    raid(s, HAN, 2, events)
    assert s["areas"]["hexi"]["social"] == 0 and events[0]["rule"] == "24.2"
    events = []
    raid(s, KUSHAN, 1, events)  # no horde reaches Kushan
    assert events[0]["rule"] == "24.15" and "No horde" in events[0]["text"]
