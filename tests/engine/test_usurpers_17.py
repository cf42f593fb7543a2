"""17.5 usurpers: raised by a crushing rebellion (17.5) with a court and a rating
(17.51); they act at each round's end (17.52), stirring rebellion (17.53) or swaying and
conquering (17.54); they defend (17.55), can be bought off (17.56) and fall with their
court (17.57). Diplomacy: 12.16 (never their court) and 12.20 (-5 elsewhere). An exile
may take a usurper's area (21.31). An heirless death stirs unrest (19.34)."""

from __future__ import annotations

from typing import Any

from app import engine
from app.engine import usurpers
from app.engine.economy import revolt
from app.engine.endeavours import change_owner
from app.engine.fate import die

from .helpers import HAN, KUSHAN, dice, game, rating_of, terms, turn_of, war


def with_usurper(
    s: dict[str, Any], court: str = "ferghana", rating: int = 3, more: tuple[str, ...] = ()
) -> str:
    """A usurper holding `court` (and `more`), made by hand."""
    area = s["areas"][court]
    uid = f"u{s['world']['next_usurper']}"
    s["world"]["next_usurper"] += 1
    s["world"]["usurpers"][uid] = {
        "id": uid,
        "name": f"the usurper of {court}",
        "court": court,
        "areas": [court, *more],
        "rating": rating,
        "language": area["language"],
        "religion": area["religion"],
        "rebel_of": None,
        "since": 1,
    }
    for a in (court, *more):
        s["areas"][a]["owner"] = None
        s["areas"][a]["usurper"] = uid
    return uid


def test_17_5_a_crushing_rebellion_raises_a_usurper_with_a_court_and_a_rating():
    s = turn_of(game(), KUSHAN)
    s["areas"]["sogdia"]["unrest"] = True
    dice(s, 6, 6)  # 1 + 5 + 1 + 2 + 12 = 21: three above the line and more
    s2, ev = engine.apply(s, KUSHAN, {"type": "tax", "area": "sogdia", "amount": 1})
    uid = s2["areas"]["sogdia"]["usurper"]
    u = s2["world"]["usurpers"][uid]
    assert u["court"] == "sogdia" and u["areas"] == ["sogdia"] and 2 <= u["rating"] <= 4
    assert u["rebel_of"] == KUSHAN and s2["areas"]["sogdia"]["owner"] is None
    assert any(e["rule"] == "17.5" and e["data"]["event"] == "raised" for e in ev)
    [row] = engine.view(s2, None)["world"]["usurpers"]
    assert row["court"] == "sogdia" and row["rating"] == u["rating"]
    assert row["price"] == 2 * u["rating"] + 2 * 1  # 17.56


def test_12_16_never_a_usurpers_court_12_20_minus_five_against_his_other_areas():
    s = turn_of(game(), KUSHAN, hand="diplomacy")
    with_usurper(s, "ferghana", more=("tarim",))
    targets = {a["target"] for a in engine.legal_actions(s, KUSHAN) if a.get("kind") == "diplomacy"}
    assert "ferghana" not in targets and "tarim" in targets
    t = terms(rating_of(s, KUSHAN, "diplomacy", "bactria", "tarim"))
    assert t["12.20"] == -5 and "12.18" not in t


def test_17_52_usurpers_act_once_at_each_rounds_end():
    s = game()
    with_usurper(s, "ferghana")
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    acted = len(events)
    assert acted and all(e["rule"] in ("17.53", "17.54", "17.3", "17.4", "10.3") for e in events)
    usurpers.act(s, events)  # the same round's end again (after a raid's answer): nothing
    assert len(events) == acted


def test_17_52_the_round_end_makes_them_act():
    s = turn_of(game(), HAN)
    s["order"] = [KUSHAN, HAN]
    s["fate"] = {"deck": [], "discard": []}
    with_usurper(s, "ferghana")
    s2, ev = engine.apply(s, HAN, {"type": "end_turn"})
    assert any(e["kind"] == "usurper" for e in ev)


def test_17_53_he_stirs_rebellion_in_an_area_of_his_culture_and_it_joins_him():
    s = game()
    uid = with_usurper(s, "ferghana")  # Sogdian and Mazdean, like Kushan's Sogdia
    dice(s, 1, 6, 6)  # 1: stir first; 2d6 = 12 with his agitation: rebellion
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    stir = next(e for e in events if e["rule"] == "17.53")
    assert stir["data"]["area"] == "sogdia" and stir["data"]["event"] == "stir"
    check = next(e for e in events if e["kind"] == "rebellion" and e["rule"] == "17.53")
    assert {"term": "the usurper's agitation", "value": 2, "rule": "17.53"} in check["data"][
        "terms"
    ]
    assert s["areas"]["sogdia"]["usurper"] == uid and s["areas"]["sogdia"]["owner"] is None
    assert s["world"]["usurpers"][uid]["areas"] == ["ferghana", "sogdia"]
    assert s["areas"]["sogdia"]["rebel_of"] == KUSHAN  # 10.5: Kushan may suppress it
    deck = s["players"][KUSHAN]["deck"]
    assert any(c["ref"] == "unrest" for c in deck["discard"])


def test_17_54_he_attacks_a_neighbour_of_another_culture():
    s = game()
    uid = with_usurper(s, "ferghana", rating=3)
    dice(s, 4, 4)  # 4: expand first; 4 + 3 = 7: Tarim (Tocharian, Buddhist) is taken
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    [move] = [e for e in events if e["rule"] == "17.54"]
    assert move["data"]["event"] == "conquest" and move["data"]["result"] == "taken"
    assert s["areas"]["tarim"]["usurper"] == uid and s["areas"]["tarim"]["unrest"]


def test_17_54_he_sways_a_neighbour_of_his_culture_less_the_difference():
    s = game()
    s["areas"]["tarim"]["language"] = "sogdian"  # same language; religion of another family
    with_usurper(s, "ferghana", rating=3)
    dice(s, 4, 6)  # 6 + 3 - 2 (religion) = 7: swayed
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    [move] = [e for e in events if e["rule"] == "17.54"]
    assert move["data"]["event"] == "sway" and move["data"]["total"] == 7
    assert s["areas"]["tarim"]["usurper"] and not s["areas"]["tarim"]["unrest"]


def test_17_55_a_conquest_against_his_area_subtracts_his_rating():
    s = turn_of(game(), KUSHAN, hand="military")
    with_usurper(s, "ferghana", rating=4)
    assert terms(rating_of(s, KUSHAN, "conquest", "sogdia", "ferghana"))["17.55"] == -4


def test_17_56_a_neighbour_buys_him_off_and_takes_his_areas():
    s = turn_of(game(), KUSHAN)
    uid = with_usurper(s, "ferghana", rating=3)
    s["areas"]["ferghana"]["fort"] = 2
    s["players"][KUSHAN]["talents"] = 20
    s["players"][HAN]["talents"] = 20
    assert {"type": "buy_off", "usurper": uid} in engine.legal_actions(s, KUSHAN)
    s["players"][KUSHAN]["talents"] = 7  # the price is 2 x 3 + 2 x 1 = 8
    assert not any(a["type"] == "buy_off" for a in engine.legal_actions(s, KUSHAN))
    s["players"][KUSHAN]["talents"] = 20
    s2, ev = engine.apply(s, KUSHAN, {"type": "buy_off", "usurper": uid})
    assert s2["areas"]["ferghana"]["owner"] == KUSHAN and s2["areas"]["ferghana"]["fort"] == 2
    assert not s2["areas"]["ferghana"]["unrest"] and s2["areas"]["ferghana"]["usurper"] is None
    assert s2["players"][KUSHAN]["talents"] == 12 and s2["world"]["usurpers"] == {}
    assert any(e["rule"] == "17.56" for e in ev)
    s3 = turn_of(game(), HAN)  # Han has no area near Ferghana
    with_usurper(s3, "ferghana")
    s3["players"][HAN]["talents"] = 20
    assert not any(a["type"] == "buy_off" for a in engine.legal_actions(s3, HAN))


def test_17_57_taking_his_court_brings_him_down():
    s = game()
    uid = with_usurper(s, "ferghana", more=("tarim",))
    events: list[dict[str, Any]] = []
    change_owner(s, "tarim", HAN, events, "test")
    assert s["world"]["usurpers"][uid]["areas"] == ["ferghana"]
    change_owner(s, "ferghana", KUSHAN, events, "test")
    assert s["world"]["usurpers"] == {} and s["areas"]["ferghana"]["usurper"] is None
    assert [e["data"]["event"] for e in events if e["rule"] == "17.57"] == ["lost", "fell"]


def test_17_57_a_war_and_a_conquest_of_his_court():
    s = turn_of(game(), KUSHAN, hand="military")
    war(s)
    with_usurper(s, "ferghana", rating=2)
    s["areas"]["ferghana"]["partial"] = {}
    assert any(
        a.get("kind") == "conquest" and a["target"] == "ferghana"
        for a in engine.legal_actions(s, KUSHAN)
    )


def test_21_31_an_exile_takes_the_area_where_a_usurper_would_rise():
    s = game()
    for a in ("guanzhong", "henan", "hexi"):
        s["areas"][a]["owner"] = None
    s["players"][HAN].update(exiled=True, court=None)
    s["areas"]["henan"]["owner"] = KUSHAN  # Chinese and Confucian, like Han's emperor
    events: list[dict[str, Any]] = []
    revolt(s, KUSHAN, "henan", events, usurper=True)
    assert s["areas"]["henan"]["owner"] == HAN and s["areas"]["henan"]["usurper"] is None
    assert not s["players"][HAN]["exiled"] and s["players"][HAN]["court"] == "henan"
    assert any(e["rule"] == "21.31" for e in events) and s["world"]["usurpers"] == {}


def test_21_31_an_exile_buys_off_a_usurper_of_his_culture_and_returns():
    s = turn_of(game(), HAN)
    for a in ("guanzhong", "henan"):
        s["areas"][a]["owner"] = None
    s["players"][HAN].update(exiled=True, court=None, talents=20)
    uid = with_usurper(s, "hexi", rating=2)
    s["areas"]["hexi"]["owner"] = None
    s2, ev = engine.apply(s, HAN, {"type": "buy_off", "usurper": uid})
    assert not s2["players"][HAN]["exiled"] and s2["players"][HAN]["court"] == "hexi"
    assert any(e["rule"] == "21.31" and e["data"]["exile"] for e in ev)


def test_19_34_an_heirless_death_brings_unrest_and_rebellion_checks():
    s = game()
    events: list[dict[str, Any]] = []
    die(s, KUSHAN, events, "test", heirless=True)
    waver = next(e for e in events if e["rule"] == "19.34" and e["kind"] == "unrest")
    assert sorted(waver["data"]["areas"]) == ["gandhara", "sogdia"]  # all but the court
    checks = [e for e in events if e["rule"] == "19.34" and e["kind"] == "rebellion"]
    assert sorted(e["data"]["area"] for e in checks) == ["gandhara", "sogdia"]
    assert all(any(t["rule"] == "17.21" for t in e["data"]["terms"]) for e in checks)
