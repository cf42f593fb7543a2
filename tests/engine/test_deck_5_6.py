"""5 The advisor deck and petitions, 6 the Court market."""

from __future__ import annotations

import pytest

from app import engine
from app.engine.core import STATURES

from .helpers import HAN, KUSHAN, game, turn_of


def card(i, kind="advisor", ref="military"):
    return {"id": f"k{8000 + i}", "kind": kind, "ref": ref}


def test_5_1_the_deck_matches_the_statures():
    s = game()
    p = s["players"][KUSHAN]
    cards = p["deck"]["draw"]
    assert len(cards) == sum(p["emperor"]["statures"].values())
    for st in STATURES:
        assert sum(1 for c in cards if c["ref"] == st) == p["emperor"]["statures"][st]


def test_5_4_drawing_spends_a_year_and_the_card_is_private():
    s = turn_of(game(), KUSHAN)
    top = s["players"][KUSHAN]["deck"]["draw"][0]
    s2, ev = engine.apply(s, KUSHAN, {"type": "draw"})
    assert s2["players"][KUSHAN]["years_left"] == 4 and s2["players"][KUSHAN]["deck"]["hand"] == top
    private = [e for e in ev if e["to"] == [KUSHAN]]
    public = [e for e in ev if e["to"] is None]
    assert private and all(top["id"] not in str(e) for e in public)


def test_5_5_petitions_cost_one_then_two_then_three():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["influence"] = 10
    refs = ["military", "administration", "diplomacy", "architecture", "arts", "philosophy"]
    p["deck"]["draw"] = [card(i, ref=ref) for i, ref in enumerate(refs)]
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})
    costs = []
    for _ in range(3):
        before = s["players"][KUSHAN]["influence"]
        s, _ = engine.apply(s, KUSHAN, {"type": "petition"})
        costs.append(before - s["players"][KUSHAN]["influence"])
    assert costs == [1, 2, 3]
    assert s["players"][KUSHAN]["years_left"] == 4


def test_5_5_a_petition_needs_the_influence():
    s = turn_of(game(), KUSHAN)
    s["players"][KUSHAN]["influence"] = 0
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})
    if s["step"] == "drawn":
        assert {"type": "petition"} not in engine.legal_actions(s, KUSHAN)
        with pytest.raises(engine.IllegalAction) as err:
            engine.apply(s, KUSHAN, {"type": "petition"})
        assert err.value.code == "no_influence"


def test_5_6_a_burden_drawn_by_a_petition_fails_it():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["influence"] = 10
    p["popularity"] = 5
    p["deck"]["draw"] = [card(1, "burden", "corruption"), card(2, "burden", "plot"), card(3)]
    s, ev = engine.apply(s, KUSHAN, {"type": "draw"})
    # The year's first card: a dead draw, no failure yet.
    assert s["step"] == "drawn" and not any(e["kind"] == "bust" for e in ev)
    assert not any(a["type"] == "endeavour" for a in engine.legal_actions(s, KUSHAN))
    assert engine.explain(s, KUSHAN, {"type": "petition"})["bust_odds"] == 0.5
    s, ev = engine.apply(s, KUSHAN, {"type": "petition"})
    q = s["players"][KUSHAN]
    assert (
        q["popularity"] == 4
        and q["influence"] == 9
        and s["step"] == "start"
        and q["deck"]["hand"] is None
    )
    assert any(e["kind"] == "bust" for e in ev)
    assert q["turn_record"]["fail"] == 1


def test_5_6_one_strike_fails_even_the_first_petition():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["influence"] = 10
    p["deck"]["draw"] = [card(1), card(2, "burden", "plot"), card(3)]
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})  # a General
    s, ev = engine.apply(s, KUSHAN, {"type": "petition"})  # a burden
    assert any(e["kind"] == "bust" for e in ev) and s["step"] == "start"


def test_5_6_a_burden_shield_cancels_the_first_burden_of_a_year():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["influence"] = 10
    p["deck"]["draw"] = [
        card(1),
        card(2, "burden", "plot"),
        card(3, ref="arts"),
        card(4, "burden", "corruption"),
        card(5, "notable", "sejanus"),  # 6.4: his burden_shield
    ]
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})  # a General
    ex = engine.explain(s, KUSHAN, {"type": "petition"})
    assert ex["bust_odds"] == 0.0  # no General is left, and the next burden is shielded
    s, ev = engine.apply(s, KUSHAN, {"type": "petition"})  # the plot: shielded
    assert s["step"] == "drawn" and not any(e["kind"] == "bust" for e in ev)
    assert s["players"][KUSHAN]["shield_used"]
    # The shield is spent: the corruption now counts (1 of 3 left).
    assert engine.explain(s, KUSHAN, {"type": "petition"})["bust_odds"] == 1 / 3
    s, _ = engine.apply(s, KUSHAN, {"type": "petition"})  # an Artist
    s, ev = engine.apply(s, KUSHAN, {"type": "petition"})  # corruption: fails now
    assert any(e["kind"] == "bust" for e in ev)


def test_5_6_an_advisor_of_a_type_sent_away_fails_the_petition():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["influence"] = 10
    p["deck"]["draw"] = [card(1), card(2, ref="arts"), card(3), card(4, ref="arts"), card(5)]
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})  # a General
    ex = engine.explain(s, KUSHAN, {"type": "petition"})
    # Sending the General away: the next draw fails on a General (2 of 4 left).
    assert ex["strike_types"] == ["military"] and ex["strike_odds"] == 0.5
    assert ex["bust_odds"] == 0.5
    s, _ = engine.apply(s, KUSHAN, {"type": "petition"})  # an Artist: no strike
    q = s["players"][KUSHAN]
    assert q["strikes"] == 0 and q["passed"] == ["military"]
    assert engine.view(s, KUSHAN)["me"]["passed"] == ["military"]
    assert "passed" not in str(engine.view(s, HAN)["players"][KUSHAN])
    ex = engine.explain(s, KUSHAN, {"type": "petition"})
    # The odds grow as you press: now an Artist or a General fails it.
    assert ex["strike_types"] == ["arts", "military"] and ex["bust_odds"] == 1.0
    s, ev = engine.apply(s, KUSHAN, {"type": "petition"})  # a General again: it fails
    assert any(e["kind"] == "bust" for e in ev) and s["step"] == "start"
    assert s["players"][KUSHAN]["turn_record"]["fail"] == 1


def test_5_6_the_types_sent_away_stay_offended_for_the_turn():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["influence"] = 10
    p["deck"]["draw"] = [card(1), card(2, ref="arts"), card(3), card(4, ref="arts"), card(5)]
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})  # a General
    s, _ = engine.apply(s, KUSHAN, {"type": "petition"})  # an Artist
    s, _ = engine.apply(s, KUSHAN, {"type": "dismiss"})
    s, ev = engine.apply(s, KUSHAN, {"type": "draw"})  # a General in a new year
    # A year's first draw is never a strike, whatever was sent away before.
    q = s["players"][KUSHAN]
    assert s["step"] == "drawn" and q["strikes"] == 0 and q["passed"] == ["military"]
    assert engine.explain(s, KUSHAN, {"type": "draw"})["bust_odds"] == 0.0
    # But a petition this year fails on an Artist as on a General.
    ex = engine.explain(s, KUSHAN, {"type": "petition"})
    assert ex["strike_types"] == ["military"]  # the Artist was dismissed, not sent away


def test_5_6_a_new_turn_forgets_the_advisors_sent_away():
    from app.engine.flow import begin_player_turn

    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["influence"] = 10
    p["deck"]["draw"] = [card(1), card(2, ref="arts"), card(3), card(4)]
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})
    s, _ = engine.apply(s, KUSHAN, {"type": "petition"})
    assert s["players"][KUSHAN]["passed"] == ["military"]
    begin_player_turn(s, KUSHAN, [])
    assert s["players"][KUSHAN]["passed"] == [] and s["players"][KUSHAN]["strikes"] == 0


def test_5_3_an_empty_draw_pile_is_reshuffled_from_the_discard():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["deck"]["discard"] = p["deck"]["draw"]
    p["deck"]["draw"] = []
    n = len(p["deck"]["discard"])
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})
    d = s["players"][KUSHAN]["deck"]
    assert len(d["draw"]) == n - 1 and d["hand"] is not None


def test_5_9_the_view_shows_exact_draw_odds():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["deck"]["draw"] = [card(1), card(2), card(3, "burden", "plot"), card(4, ref="arts")]
    odds = engine.view(s, KUSHAN)["me"]["draw_odds"]
    assert odds["burden"] == 0.25 and odds["by_type"] == {"arts": 0.25, "military": 0.5}
    ex = engine.explain(s, KUSHAN, {"type": "draw"})
    assert ex["strike_odds"] == 0.25 and ex["bust_odds"] == 0.0


def test_5_8_reform_removes_a_burden():
    s = turn_of(game(), KUSHAN, hand="administration")
    s["players"][KUSHAN]["deck"]["discard"].append(card(9, "burden", "corruption"))
    s["counters"]["pool"], s["counters"]["out"] = [0], []
    legal = [a for a in engine.legal_actions(s, KUSHAN) if a.get("kind") == "reform"]
    assert {a["target"] for a in legal} == {"corruption"}
    s2, _ = engine.apply(
        s,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "reform",
            "base": "bactria",
            "target": "corruption",
            "talents": 0,
        },
    )
    d = s2["players"][KUSHAN]["deck"]
    assert not any(c["ref"] == "corruption" for c in d["draw"] + d["discard"])
    assert any(c["ref"] == "corruption" for c in d["removed"])


def test_5_10_a_good_turn_adds_an_advisor_and_popularity():
    s = turn_of(game(), KUSHAN, hand="arts")
    s["counters"]["pool"], s["counters"]["out"] = [3], []
    before = len(s["players"][KUSHAN]["deck"]["draw"]) + len(
        s["players"][KUSHAN]["deck"]["discard"]
    )
    pop = s["players"][KUSHAN]["popularity"]
    s2, _ = engine.apply(
        s,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "patronage",
            "base": "bactria",
            "target": "bactria",
            "talents": 0,
        },
    )
    s3, ev = engine.apply(s2, KUSHAN, {"type": "end_turn"})
    p = s3["players"][KUSHAN]
    assert any(e["rule"] == "5.10" for e in ev)
    assert (
        sum(1 for c in p["deck"]["draw"] + p["deck"]["discard"] if c["kind"] == "advisor")
        == before + 1 + 1
    )  # the arts advisor back, and a new one
    assert p["popularity"] >= pop  # +1, then Fate may move it


def test_5_7_overexpansion_brings_corruption():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    s["players"][KUSHAN]["emperor"]["statures"]["administration"] = 0
    s["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] = 6
    for a in ("tarim", "ferghana"):
        s["areas"][a]["owner"] = KUSHAN
    s["players"][KUSHAN]["talents"] = 20
    s["counters"]["pool"], s["counters"]["out"] = [3], []
    s2, ev = engine.apply(
        s,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "diplomacy",
            "base": "bactria",
            "target": "wusun",
            "talents": 5,
        },
    )
    assert s2["areas"]["wusun"]["owner"] == KUSHAN
    assert any(e["rule"] == "5.7" for e in ev)


def test_6_6_recruiting_pays_skipped_cards_a_coin_and_takes_the_coins():
    s = turn_of(game(), KUSHAN)
    s["players"][KUSHAN]["talents"] = 20
    row = s["market"]["row"]
    row[2]["coins"] = 2
    price = engine.explain(s, KUSHAN, {"type": "recruit", "slot": 2, "pay": "talents"})
    target = row[2]["card"]
    s2, _ = engine.apply(s, KUSHAN, {"type": "recruit", "slot": 2, "pay": "talents"})
    from app.engine.core import geo

    cost = geo().notables[target]["cost"] + 2
    assert s2["players"][KUSHAN]["talents"] == 20 - cost + 2
    assert [e["coins"] for e in s2["market"]["row"][:2]] == [1, 1]
    assert any(c["ref"] == target for c in s2["players"][KUSHAN]["deck"]["discard"])
    assert len(s2["market"]["row"]) == len(row)
    assert not any(a["type"] == "recruit" for a in engine.legal_actions(s2, KUSHAN))
    assert price["type"] == "recruit"


def test_6_4_notable_bonus_and_ability_count():
    s = turn_of(game(), HAN)
    s["players"][HAN]["deck"]["hand"] = {"id": "k8100", "kind": "notable", "ref": "ban_chao"}
    s["step"] = "drawn"
    s["areas"]["tarim"]["owner"] = HAN
    ex = engine.explain(
        s,
        HAN,
        {"type": "endeavour", "kind": "conquest", "base": "tarim", "target": "wusun", "talents": 0},
    )
    t = {x["rule"]: x["value"] for x in ex["terms"]}
    assert t["6.3"] == 2 and t["6.4"] == 1
