"""6.4: every notable ability op of the contract works while the notable is in the deck."""

from __future__ import annotations

from app import engine
from app.engine.core import ability_sum
from app.engine.deck import petition_cost
from app.engine.market import price

from .helpers import HAN, KUSHAN, counters, endeavour, game, rating_of, terms, turn_of, war


def with_notable(s, seat, ref):
    s["players"][seat]["deck"]["discard"].append(
        {"id": f"k77{len(ref)}{seat}", "kind": "notable", "ref": ref}
    )
    return s


def test_rating_bonus():
    s = with_notable(turn_of(game(), KUSHAN, hand="military"), KUSHAN, "ban_chao")
    assert terms(rating_of(s, KUSHAN, "conquest", "gandhara", "kashmir"))["6.4"] == 1


def test_free_petition():
    s = turn_of(game(), KUSHAN)
    assert petition_cost(s, KUSHAN) == 1
    with_notable(s, KUSHAN, "nagarjuna")
    assert petition_cost(s, KUSHAN) == 0
    s["players"][KUSHAN]["petitions"] = 1
    assert petition_cost(s, KUSHAN) == 2


def test_ignore_sea_cost():
    s = turn_of(game(), KUSHAN, hand="military")
    war(s)
    assert rating_of(s, KUSHAN, "conquest", "gandhara", "henan")["cost"] == 4
    with_notable(s, KUSHAN, "zhang_qian")
    assert rating_of(s, KUSHAN, "conquest", "gandhara", "henan")["cost"] == 2


def test_counter_plus_when_the_notable_acts():
    s = turn_of(game(), KUSHAN)
    s["players"][KUSHAN]["deck"]["hand"] = {"id": "k7001", "kind": "notable", "ref": "vitruvius"}
    s["step"] = "drawn"
    counters(s, -3, 3)
    s2, ev = endeavour(s, KUSHAN, "fortify", "gandhara", "gandhara")
    data = [e for e in ev if e["kind"] == "endeavour"][0]["data"]
    assert sorted(data["drawn"]) == [-3, 3] and data["counter"] == 3


def test_tax_bonus():
    s = with_notable(turn_of(game(), KUSHAN), KUSHAN, "dou_xian")
    s2, _ = engine.apply(s, KUSHAN, {"type": "tax", "area": "bactria", "amount": 1})
    assert s2["players"][KUSHAN]["talents"] == s["players"][KUSHAN]["talents"] + 2


def test_popularity_and_influence_per_turn():
    s = with_notable(with_notable(turn_of(game(), KUSHAN), KUSHAN, "maecenas"), KUSHAN, "cai_lun")
    s["players"][KUSHAN]["popularity"] = 5
    s["fate"]["deck"].insert(0, {"id": "k7100", "kind": "fate", "ref": "hidden_treasury"})
    s2, _ = engine.apply(s, KUSHAN, {"type": "end_turn"})
    assert (
        s2["players"][KUSHAN]["popularity"] == 6
        and s2["players"][KUSHAN]["influence"] == s["players"][KUSHAN]["influence"] + 1
    )


def test_defense_bonus():
    s = with_notable(game(), HAN, "agrippa")
    from app.engine.endeavours import defense_terms

    assert sum(t["value"] for t in defense_terms(s, HAN, 0)) == -(
        s["players"][HAN]["emperor"]["statures"]["military"] + 1
    )


def test_parley_votes():
    s = with_notable(game(), KUSHAN, "ashvaghosha")
    from app.engine.flow import parley_weight

    assert parley_weight(s, KUSHAN) == s["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] + 2


def test_rebellion_modifier():
    s = turn_of(game(), KUSHAN)
    before = engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})[
        "rebellion_value"
    ]
    with_notable(s, KUSHAN, "wang_chong")
    assert (
        engine.explain(s, KUSHAN, {"type": "tax", "area": "gandhara", "amount": 1})[
            "rebellion_value"
        ]
        == before - 1
    )


def test_cheaper_market():
    s = turn_of(game(), KUSHAN)
    p0 = price(s, KUSHAN, 0)
    with_notable(s, KUSHAN, "kanishka_banker")
    assert price(s, KUSHAN, 0) == max(0, p0 - 1)


def test_extra_year():
    s = with_notable(game(), KUSHAN, "zhang_heng")
    from app.engine.flow import start_round

    start_round(s, [])
    assert s["players"][KUSHAN]["years_left"] == 6 and s["players"][HAN]["years_left"] == 5


def test_burden_shield_is_counted_as_an_ability():
    s = with_notable(game(), KUSHAN, "sejanus")
    assert ability_sum(s, KUSHAN, "burden_shield") == 1
