"""19 Fate: death, succession, heirless deaths, holding cards."""

from __future__ import annotations

from app import engine
from app.engine.fate import die, resolve_event

from .helpers import HAN, KUSHAN, dice, game, turn_of


def test_19_32_succession_rebuilds_the_deck_keeping_notables_and_burdens():
    s = game()
    p = s["players"][HAN]
    p["deck"]["discard"] += [
        {"id": "k9001", "kind": "notable", "ref": "ban_chao"},
        {"id": "k9002", "kind": "burden", "ref": "plot"},
    ]
    p["popularity"], p["influence"] = 6, 2
    events: list = []
    dice(s, 6, 6)  # not heirless
    die(s, HAN, events, "test")
    e = p["emperor"]
    assert e["ruler"] == "ming" and p["influence"] == 8 and p["popularity"] == 2
    cards = p["deck"]["draw"]
    assert p["deck"]["discard"] == [] and p["deck"]["hand"] is None
    assert {c["ref"] for c in cards if c["kind"] != "advisor"} == {"ban_chao", "plot"}
    assert sum(1 for c in cards if c["kind"] == "advisor") == sum(e["statures"].values())
    assert any(ev["rule"] == "19.32" for ev in events)


def test_19_33_an_heirless_death_breaks_the_line():
    s = game()
    s["areas"]["tarim"]["ties"] = [KUSHAN, HAN]
    events: list = []
    die(s, HAN, events, "test", heirless=True)
    assert s["areas"]["tarim"]["ties"] == [KUSHAN]
    assert any(
        c["ref"] == "pretender"
        for c in s["players"][HAN]["deck"]["draw"] + s["players"][HAN]["deck"]["discard"]
    )
    assert s["players"][HAN]["usurped"] == 1


def test_19_42_an_heirless_death_discards_the_royal_demesne():
    s = game()
    s["players"][HAN]["in_play"] = ["royal_demesne", "iron_weapons"]
    kept = game()
    kept["players"][HAN]["in_play"] = ["royal_demesne"]
    dice(kept, 6, 6)
    die(kept, HAN, [], "test")  # an heir: the demesne stays
    assert kept["players"][HAN]["in_play"] == ["royal_demesne"]
    events: list = []
    die(s, HAN, events, "test", heirless=True)
    assert s["players"][HAN]["in_play"] == ["iron_weapons"]
    assert [c["ref"] for c in s["fate"]["discard"]][-1] == "royal_demesne"
    assert any(ev["rule"] == "19.42" for ev in events)


def test_19_33_a_dynasty_run_out_brings_a_usurper():
    s = game()
    s["players"][KUSHAN]["dynasty_index"] = 1
    die(s, KUSHAN, [], "test")
    e = s["players"][KUSHAN]["emperor"]
    assert e["ruler"] is None and set(e["statures"].values()) == {2}


def test_19_31_mortality_check_by_age():
    s = game()
    s["players"][KUSHAN]["emperor"]["age"] = 70  # +3
    dice(s, 4, 5, 6, 6)  # 4+5+3 = 12 dies; then the heir roll
    resolve_event(s, KUSHAN, {"op": "mortality", "modifier": 0}, [])
    assert s["players"][KUSHAN]["emperor"]["ruler"] == "vima_takto"
    s = game()
    s["players"][KUSHAN]["emperor"]["age"] = 30
    dice(s, 5, 6)
    resolve_event(s, KUSHAN, {"op": "mortality", "modifier": 0}, [])
    assert s["players"][KUSHAN]["emperor"]["ruler"] == "kujula"


def test_19_1_a_fate_card_each_player_turn_and_holdings_are_secret():
    s = turn_of(game(), KUSHAN)
    s["fate"]["deck"].insert(0, {"id": "k9500", "kind": "fate", "ref": "hidden_treasury"})
    s2, ev = engine.apply(s, KUSHAN, {"type": "end_turn"})
    assert any(h["ref"] == "hidden_treasury" for h in s2["players"][KUSHAN]["holdings"])
    assert all("hidden_treasury" not in str(e) for e in ev if e["to"] is None)
    v = engine.view(s2, HAN)
    assert v["players"][KUSHAN]["holdings_count"] == 1 and "hidden_treasury" not in str(v)


def test_19_41_military_innovation_is_played_for_good():
    s = turn_of(game(), KUSHAN)
    s["players"][KUSHAN]["holdings"] = [{"id": "k9600", "kind": "fate", "ref": "iron_weapons"}]
    s2, _ = engine.apply(s, KUSHAN, {"type": "play", "card": "k9600"})
    assert s2["players"][KUSHAN]["in_play"] == ["iron_weapons"]
    s3 = turn_of(s2, KUSHAN, hand="military")
    ex = engine.explain(
        s3,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "conquest",
            "base": "gandhara",
            "target": "kashmir",
            "talents": 0,
        },
    )
    assert {t["rule"]: t["value"] for t in ex["terms"]}["19.41"] == 3


def test_19_45_second_thoughts_draws_two_counters():
    s = turn_of(game(), KUSHAN, hand="arts")
    s["players"][KUSHAN]["holdings"] = [{"id": "k9700", "kind": "fate", "ref": "second_thoughts"}]
    s["counters"]["pool"], s["counters"]["out"] = [-3, 3, 0], []
    s2, _ = engine.apply(s, KUSHAN, {"type": "play", "card": "k9700"})
    s3, ev = engine.apply(
        s2,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "festival",
            "base": "bactria",
            "target": "bactria",
            "talents": 0,
        },
    )
    data = [e for e in ev if e["kind"] == "endeavour"][0]["data"]
    assert len(data["drawn"]) == 2 and data["counter"] == max(data["drawn"])
    assert len(s3["counters"]["pool"]) == 1


def test_9_4_counters_are_set_aside_until_the_pool_is_empty():
    s = turn_of(game(), KUSHAN, hand="arts")
    s["counters"]["pool"], s["counters"]["out"] = [2], [-1, 0]
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
    assert s2["counters"]["pool"] == [] and sorted(s2["counters"]["out"]) == [-1, 0, 2]
    s3 = turn_of(s2, KUSHAN, hand="arts")
    ex = engine.explain(
        s3,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "festival",
            "base": "bactria",
            "target": "bactria",
            "talents": 0,
        },
    )
    assert abs(sum(ex["odds"].values()) - 1) < 1e-9  # odds over the refilled pool
    s4, _ = engine.apply(
        s3,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "festival",
            "base": "bactria",
            "target": "bactria",
            "talents": 0,
        },
    )
    assert len(s4["counters"]["pool"]) == 2 and len(s4["counters"]["out"]) == 1
