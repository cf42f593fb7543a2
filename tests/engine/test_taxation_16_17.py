"""16 Taxation and plunder, 17 unrest and rebellion."""

from __future__ import annotations

import pytest

from app import engine
from app.engine import IllegalAction
from app.engine.economy import rebellion_odds

from .helpers import HAN, KUSHAN, dice, game, turn_of


@pytest.fixture
def s():
    return turn_of(game(), KUSHAN)


def levies(s, seat=KUSHAN):
    return [a for a in engine.legal_actions(s, seat) if a["type"] in ("tax", "plunder")]


def test_16_11_tax_up_to_the_social_state_and_plunder_below(s):
    lv = levies(s)
    assert {a["amount"] for a in lv if a["type"] == "tax" and a["area"] == "gandhara"} == {1, 2}
    assert {a["amount"] for a in lv if a["type"] == "tax" and a["area"] == "sogdia"} == {1}
    s["areas"]["sogdia"]["social"] = 0
    lv = levies(s)
    assert not any(a["type"] == "tax" and a["area"] == "sogdia" for a in lv)
    assert {"type": "plunder", "area": "sogdia"} in lv


def test_16_11_an_aqueduct_yields_one_more(s):
    s["areas"]["gandhara"]["buildings"] = ["aqueduct"]
    assert {a["amount"] for a in levies(s) if a["type"] == "tax" and a["area"] == "gandhara"} == {
        1,
        2,
        3,
    }


def test_16_13_only_connected_areas(s):
    s["areas"]["wusun"].update(owner=KUSHAN, social=2)
    assert not any(a["area"] == "wusun" for a in levies(s))


def test_16_14_all_levies_at_once(s):
    dice(s, 1, 1)
    s2, _ = engine.apply(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})
    assert levies(s2)
    s3, _ = engine.apply(s2, KUSHAN, {"type": "draw"})
    s3["step"] = "start"
    s3["players"][KUSHAN]["deck"]["hand"] = None
    assert levies(s3) == []
    with pytest.raises(IllegalAction) as err:
        engine.apply(s3, KUSHAN, {"type": "tax", "area": "bactria", "amount": 1})
    assert err.value.code == "tax_closed"


def test_16_14_drawing_before_any_levy_keeps_the_segment_open(s):
    s2, _ = engine.apply(s, KUSHAN, {"type": "draw"})
    if s2["step"] == "drawn":
        s2, _ = engine.apply(s2, KUSHAN, {"type": "dismiss"})
    assert levies(s2)


def test_16_15_each_area_once_per_turn(s):
    dice(s, 1, 1)
    s2, _ = engine.apply(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})
    assert not any(a["area"] == "gandhara" for a in levies(s2))
    with pytest.raises(IllegalAction) as err:
        engine.apply(s2, KUSHAN, {"type": "plunder", "area": "gandhara"})
    assert err.value.code == "taxed"


def test_16_16_each_talent_demanded_adds_one(s):
    one = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})
    two = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 2})
    assert two["rebellion_value"] == one["rebellion_value"] + 1


def test_16_17_the_court_is_taxed_without_a_check(s):
    s2, ev = engine.apply(s, KUSHAN, {"type": "tax", "area": "bactria", "amount": 2})
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"] + 2
    assert not any(e["kind"] == "rebellion" for e in ev)
    assert (
        engine.explain(s, KUSHAN, {"type": "tax", "area": "bactria", "amount": 2})["check"] is False
    )


def test_16_1_a_successful_levy_pays(s):
    dice(s, 1, 1)
    s2, ev = engine.apply(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 2})
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"] + 2
    check = [e for e in ev if e["kind"] == "rebellion"][0]
    assert check["data"]["result"] == "none"
    # 17.3 read out as a sentence (issue 26), the value signed in words
    value = sum(t["value"] for t in check["data"]["terms"])
    sign = "plus" if value >= 0 else "minus"
    assert check["text"] == (
        f"Rebellion check in Gandhara: the dice show 1 and 1, {sign} {abs(value)} for the "
        f"area's rebellion value, {2 + value} in all: it stays loyal."
    )


def test_16_22_16_23_plunder_lowers_the_area_and_puts_it_in_unrest(s):
    dice(s, 6)
    s2, ev = engine.apply(s, KUSHAN, {"type": "plunder", "area": "gandhara"})
    g = s2["areas"]["gandhara"]
    assert g["social"] == 1 and g["unrest"]
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"] + 3  # die 6 -> 3
    assert not any(e["kind"] == "rebellion" for e in ev)


def test_16_231_plundering_an_area_in_unrest_checks_at_plus_three(s):
    s["areas"]["sogdia"]["unrest"] = True
    ex = engine.explain(s, KUSHAN, {"type": "plunder", "area": "sogdia"})
    t = {x["rule"]: x["value"] for x in ex["terms"]}
    assert t["16.16"] == 3 and t["17.21"] == 5 and ex["check"]
    dice(s, 6, 6)
    s2, ev = engine.apply(s, KUSHAN, {"type": "plunder", "area": "sogdia"})
    assert s2["areas"]["sogdia"]["owner"] is None  # rebellion: nothing gained
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"]


def test_17_3_the_table_odds():
    assert rebellion_odds(0) == {"none": 1.0 - 3 / 36, "unrest": 3 / 36, "rebellion": 0.0}
    odds = rebellion_odds(5)
    assert odds["rebellion"] == pytest.approx(10 / 36) and odds["unrest"] == pytest.approx(16 / 36)


def test_17_3_unrest_result_marks_the_area_but_the_tax_is_paid(s):
    dice(s, 5, 5)  # gandhara: 2 demanded - 2 tie + 2 language = 2 -> 12: unrest
    s2, ev = engine.apply(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 2})
    assert [e for e in ev if e["kind"] == "rebellion"][0]["data"]["result"] == "unrest"
    assert (
        s2["areas"]["gandhara"]["unrest"]
        and s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"] + 2
    )


def test_17_4_rebellion_frees_the_area_and_brings_an_unrest_burden(s):
    s["areas"]["sogdia"]["unrest"] = True
    dice(s, 4, 4)  # 1 + 5 + 1 (language) + 2 (religion) + 8 = 17
    s2, ev = engine.apply(s, KUSHAN, {"type": "tax", "area": "sogdia", "amount": 1})
    a = s2["areas"]["sogdia"]
    assert a["owner"] is None and a["rebel_of"] == KUSHAN and not a["unrest"]
    assert any(c["ref"] == "unrest" for c in s2["players"][KUSHAN]["deck"]["discard"])
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"]


def test_17_25_popularity_moves_the_rebellion_value(s):
    s["players"][KUSHAN]["popularity"] = 1
    low = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})[
        "rebellion_value"
    ]
    s["players"][KUSHAN]["popularity"] = 9
    high = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})[
        "rebellion_value"
    ]
    assert low - high == 2


def test_17_24_14_32_claims_and_fortifications_lower_it(s):
    base = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})[
        "rebellion_value"
    ]
    s["areas"]["gandhara"]["claims"] = [KUSHAN]
    s["areas"]["gandhara"]["fort"] = 2
    s["areas"]["gandhara"]["buildings"] = ["temple"]
    assert (
        engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})[
            "rebellion_value"
        ]
        == base - 1 - 2 - 2
    )


def test_16_3_census_taxes_without_a_check(s):
    turn_of(s, KUSHAN, hand="administration")
    s["counters"]["pool"] = [3]
    s["counters"]["out"] = []
    s2, ev = engine.apply(
        s,
        KUSHAN,
        {
            "type": "endeavour",
            "kind": "census",
            "base": "gandhara",
            "target": "gandhara",
            "talents": 0,
        },
    )
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"] + 2
    assert not any(e["kind"] == "rebellion" for e in ev)


def test_15_ruling_raises_the_social_state_and_quells_unrest(s):
    turn_of(s, KUSHAN, hand="administration")
    s["areas"]["sogdia"]["unrest"] = True
    s["counters"]["pool"] = [3]
    s["counters"]["out"] = []
    s2, _ = engine.apply(
        s,
        KUSHAN,
        {"type": "endeavour", "kind": "ruling", "base": "sogdia", "target": "sogdia", "talents": 3},
    )
    a = s2["areas"]["sogdia"]  # 2+1+3-1-2 = 3 +3 = 6 -> +1
    assert a["social"] == 2 and not a["unrest"]


def test_12_42_han_is_not_asked_when_no_check_is_needed(s):
    s["areas"]["bactria"]["ties"] = [HAN]
    s2, _ = engine.apply(s, KUSHAN, {"type": "tax", "area": "bactria", "amount": 1})
    assert s2["request"] is None
