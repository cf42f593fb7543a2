"""8 Architects, artists, philosophers and agents; 14 fortification; 22.2 conversion;
7.52 / 21 courts and exile; 26 victory
(24 nomads and 17.5 usurpers: test_nomads_24.py, test_usurpers_17.py)."""

from __future__ import annotations

from app import engine

from .helpers import HAN, KUSHAN, counters, dice, endeavour, game, rating_of, terms, turn_of, war


def test_14_2_fortify_builds_then_raises_to_three():
    s = turn_of(game(), KUSHAN, hand="architecture")
    counters(s, 3)
    s2, _ = endeavour(s, KUSHAN, "fortify", "gandhara", "gandhara")  # 1+2+3 = 6 -> F
    assert s2["areas"]["gandhara"]["fort"] == 2
    s3 = turn_of(s2, KUSHAN, hand="architecture")
    counters(s3, 3)
    s4, _ = endeavour(s3, KUSHAN, "fortify", "gandhara", "gandhara")
    assert s4["areas"]["gandhara"]["fort"] == 3
    s5 = turn_of(s4, KUSHAN, hand="architecture")
    assert not any(
        a.get("kind") == "fortify" and a["target"] == "gandhara"
        for a in engine.legal_actions(s5, KUSHAN)
    )


def test_14_43_an_owner_may_slight_his_fortifications():
    s = turn_of(game(), KUSHAN)
    s["areas"]["gandhara"]["fort"] = 3
    s2, _ = engine.apply(s, KUSHAN, {"type": "reduce_fort", "area": "gandhara"})
    assert s2["areas"]["gandhara"]["fort"] == 2


def test_8_1_building_a_monument_scores_and_pleases():
    s = turn_of(game(), KUSHAN, hand="architecture")
    s["players"][KUSHAN]["talents"] = 20
    counters(s, 3)
    pop = s["players"][KUSHAN]["popularity"]
    before = engine.score(s)[KUSHAN]["monuments"]
    s2, _ = endeavour(s, KUSHAN, "build", "gandhara", "gandhara", option="monument")
    assert s2["areas"]["gandhara"]["buildings"] == ["monument"]
    assert s2["players"][KUSHAN]["popularity"] == pop + 1
    assert engine.score(s2)[KUSHAN]["monuments"] == before + 2
    assert s2["players"][KUSHAN]["talents"] == 16
    s3 = turn_of(s2, KUSHAN, hand="architecture")
    assert not any(
        a.get("option") == "monument" and a["target"] == "gandhara"
        for a in engine.legal_actions(s3, KUSHAN)
    )


def test_8_2_a_road_removes_sea_costs():
    s = turn_of(game(), KUSHAN, hand="administration")
    s["areas"]["henan"]["owner"] = KUSHAN
    assert rating_of(s, KUSHAN, "ruling", "henan", "henan")["cost"] == 2
    s["areas"]["henan"]["buildings"] = ["road"]
    assert rating_of(s, KUSHAN, "ruling", "henan", "henan")["cost"] == 0


def test_8_3_8_4_festival_and_patronage():
    s = turn_of(game(), KUSHAN, hand="arts")
    counters(s, 3)
    s2, _ = endeavour(s, KUSHAN, "festival", "bactria", "bactria", talents=2)  # 2+2+2+3 = 9 -> P+2
    assert s2["players"][KUSHAN]["popularity"] == s["players"][KUSHAN]["popularity"] + 2
    s3 = turn_of(s2, KUSHAN, hand="arts")
    counters(s3, 0)
    s4, _ = endeavour(s3, KUSHAN, "patronage", "bactria", "bactria")  # 4 -> I+1
    assert s4["players"][KUSHAN]["influence"] == s3["players"][KUSHAN]["influence"] + 1


def test_8_5_assimilation_changes_the_language():
    s = turn_of(game(), KUSHAN, hand="arts")
    counters(s, 3)
    s2, _ = endeavour(
        s, KUSHAN, "assimilate", "gandhara", "gandhara", talents=2
    )  # 2+2+2-2+3 = 7 -> A
    assert s2["areas"]["gandhara"]["language"] == "bactrian"


def test_8_6_science_adopts_an_innovation():
    s = turn_of(game(), KUSHAN, hand="philosophy")
    s["players"][KUSHAN]["talents"] = 10
    counters(s, 3)
    s2, _ = endeavour(s, KUSHAN, "science", "bactria", "limes")  # 2+2+3 = 7 -> N
    assert (
        s2["players"][KUSHAN]["innovations"] == ["limes"] and s2["players"][KUSHAN]["talents"] == 7
    )


def test_8_7_a_palace_coup_breaks_a_rival_tie_against_counter_plots():
    s = turn_of(game(), KUSHAN, hand="intrigue")
    s["areas"]["tarim"]["ties"] = [HAN]
    ex = rating_of(s, KUSHAN, "plot_coup", "bactria", "tarim", option="han")
    assert terms(ex)["8.7"] == -2  # Guangwu's Intrigue
    counters(s, 3)
    s2, _ = endeavour(
        s, KUSHAN, "plot_coup", "bactria", "tarim", talents=3, option="han"
    )  # 3+2+3-2+3 = 9
    assert s2["areas"]["tarim"]["ties"] == []


def test_8_8_bribery_buys_an_areas_loyalty():
    s = turn_of(game(), KUSHAN, hand="intrigue")
    s["players"][KUSHAN]["talents"] = 20
    targets = {
        a["target"] for a in engine.legal_actions(s, KUSHAN) if a.get("kind") == "plot_bribe"
    }
    assert targets == {"henan", "hexi"}  # Han's areas but not its court
    s["areas"]["henan"]["fort"] = 2
    ex = rating_of(s, KUSHAN, "plot_bribe", "bactria", "henan", talents=5)
    assert terms(ex)["8.7"] == -2 and terms(ex)["14.31"] == -2  # 3+2+5-2-2 = 6
    counters(s, 2)
    s2, _ = endeavour(s, KUSHAN, "plot_bribe", "bactria", "henan", talents=5)
    h = s2["areas"]["henan"]
    assert h["owner"] is None and h["rebel_of"] == HAN
    assert any(c["ref"] == "unrest" for c in s2["players"][HAN]["deck"]["discard"])
    assert s2["players"][KUSHAN]["talents"] == 20 - 2 - 5


def test_8_9_assassination_forces_a_mortality_check():
    s = turn_of(game(), KUSHAN, hand="intrigue")
    s["players"][KUSHAN]["talents"] = 20
    counters(s, 3)
    s2, ev = endeavour(
        s, KUSHAN, "plot_assassinate", "bactria", "han", talents=5
    )  # 3+2+5-2+3 = 11 -> M
    assert any(e["kind"] == "mortality" and "+2" in e["text"] for e in ev)


def test_8_10_spying_is_reported_to_the_spy_only():
    s = turn_of(game(), KUSHAN, hand="intrigue")
    s["players"][HAN]["holdings"] = [{"id": "k9100", "kind": "fate", "ref": "hidden_treasury"}]
    counters(s, 0)
    s2, ev = endeavour(s, KUSHAN, "spy", "bactria", "han")
    report = [e for e in ev if e["kind"] == "spy"]
    assert report and report[0]["to"] == [KUSHAN] and "A Hidden Treasury" in report[0]["text"]


def test_8_10_the_public_line_names_the_spied_ruler_in_the_third_person():
    """The chronicle is read by every seat: it named the rival by its id ("spy against
    han") and told everyone the hand was "revealed to you"."""
    s = turn_of(game(), KUSHAN, hand="intrigue")
    counters(s, 0)
    _, ev = endeavour(s, KUSHAN, "spy", "bactria", "han")
    line = next(e for e in ev if e["kind"] == "endeavour")
    assert line["text"].startswith("Kushan's spy against Han: rating ")
    assert line["text"].endswith(
        "Result: intelligence: they see the rival's holding cards (his hand) and treasury."
    )


def test_8_7_an_exposed_plot_costs_influence():
    s = turn_of(game(), KUSHAN, hand="intrigue")
    s["players"][KUSHAN]["emperor"]["statures"]["intrigue"] = 0
    s["areas"]["bactria"]["social"] = -2
    counters(s, -3)
    s2, _ = endeavour(s, KUSHAN, "plot_bribe", "bactria", "henan")
    assert s2["players"][KUSHAN]["influence"] == s["players"][KUSHAN]["influence"] - 1


def test_22_2_conversion_by_repeated_results():
    s = turn_of(game(), KUSHAN, hand="philosophy")
    # sogdia: mazdean conviction 3 - buddhist proselytism 3 -> at least 1
    counters(s, 3)
    s2, ev = endeavour(s, KUSHAN, "convert", "sogdia", "sogdia", talents=3)  # 2+1+3-1-2+3 = 6 -> CV
    assert s2["areas"]["sogdia"]["religion"] == "buddhist"
    assert s2["players"][KUSHAN]["vp"] == 3 and any(e["rule"] == "22.28" for e in ev)


def test_22_24_a_tie_halves_the_differential():
    from app.engine.endeavours import conversion_differential

    s = game()
    s["areas"]["hexi"]["owner"] = KUSHAN
    s["areas"]["hexi"]["religion"] = "vedic"  # conviction 4 - 3 = 1
    s["players"][KUSHAN]["emperor"]["religion"] = "mazdean"  # proselytism 1: 4 - 1 = 3
    assert conversion_differential(s, KUSHAN, "hexi") == 3
    s["areas"]["hexi"]["buildings"] = ["temple"]
    assert conversion_differential(s, KUSHAN, "hexi") == 2
    s["areas"]["hexi"]["ties"] = [KUSHAN]
    assert conversion_differential(s, KUSHAN, "hexi") == 1


def test_22_2_a_failed_conversion_brings_unrest_and_a_check():
    s = turn_of(game(), KUSHAN, hand="philosophy")
    s["players"][KUSHAN]["emperor"]["statures"]["philosophy"] = 0
    counters(s, -3)
    dice(s, 1, 1, skip=1)
    s2, ev = endeavour(s, KUSHAN, "convert", "sogdia", "sogdia")
    assert s2["areas"]["sogdia"]["unrest"] and s2["areas"]["sogdia"]["social"] == 0
    assert any(e["kind"] == "rebellion" for e in ev)


def test_12_42_a_failed_conversion_asks_the_rival_tie_holder_before_the_dice():
    s = turn_of(game(), KUSHAN, hand="philosophy")
    s["players"][KUSHAN]["emperor"]["statures"]["philosophy"] = 0
    s["areas"]["sogdia"]["ties"] = [HAN]
    counters(s, -3)
    dice(s, 1, 1, skip=1)
    s2, ev = endeavour(s, KUSHAN, "convert", "sogdia", "sogdia")
    assert s2["areas"]["sogdia"]["unrest"] and not any(e["kind"] == "rebellion" for e in ev)
    assert [(p["seat"], p["request"]) for p in engine.pending(s2)] == [(HAN, "waive_tie")]
    kept, ev = engine.apply(s2, HAN, {"type": "waive_tie", "area": "sogdia", "waive": False})
    check = [e for e in ev if e["kind"] == "rebellion"][0]
    assert any(t["rule"] == "12.42" and t["value"] == 2 for t in check["data"]["terms"])
    waived, ev = engine.apply(s2, HAN, {"type": "waive_tie", "area": "sogdia", "waive": True})
    check = [e for e in ev if e["kind"] == "rebellion"][0]
    assert not any(t["rule"] == "12.42" and t["value"] == 2 for t in check["data"]["terms"])
    assert waived["request"] is None and engine.pending(waived)[0]["seat"] == KUSHAN


def test_7_52_a_lost_court_moves_and_21_1_with_nothing_left_exile():
    s = turn_of(game(), HAN, hand="military")
    war(s)
    s["players"][HAN]["talents"] = 20
    for a in ("sogdia", "ferghana", "tarim"):
        s["areas"][a]["owner"] = HAN
    s["areas"]["bactria"]["partial"] = {"1": {"sogdia": 1}}
    s["players"][KUSHAN]["years_left"] = 0
    counters(s, 3)
    s2, ev = endeavour(s, HAN, "conquest", "sogdia", "bactria", talents=5)
    assert s2["areas"]["bactria"]["owner"] == HAN and s2["players"][KUSHAN]["court"] == "gandhara"
    from app.engine.endeavours import change_owner

    change_owner(s2, "gandhara", None, [], "test")
    assert s2["players"][KUSHAN]["exiled"] and s2["players"][KUSHAN]["court"] is None
    s3 = turn_of(s2, KUSHAN, hand="diplomacy")
    assert not any(
        a["type"] in ("endeavour", "tax", "plunder") for a in engine.legal_actions(s3, KUSHAN)
    )


def test_26_1_score_breakdown():
    s = game()
    sc = engine.score(s)[KUSHAN]
    assert sc["areas"] == 2 + 3 + 1 and sc["claims"] == 2 and sc["popularity"] == 2
    parts = {k: v for k, v in sc.items() if k not in ("total", "level", "standing")}
    assert sc["total"] == sum(parts.values())
    assert sc["standing"] == sc["total"] - sc["level"]  # 26.2


def test_26_3_solitaire_bands():
    from app.engine.rules import solitaire_band

    assert [solitaire_band(g) for g in (15, 9, 5, 2, 0, -5)] == [
        "Excellent",
        "Very Good",
        "Good",
        "Fair",
        "Poor",
        "Very Poor",
    ]


def test_recruit_explain_gives_the_price():
    s = turn_of(game(), KUSHAN)
    ex = engine.explain(s, KUSHAN, {"type": "recruit", "slot": 1, "pay": "talents"})
    assert ex["skipped"] == 1 and ex["price"] >= 1


def test_21_2_asylum_lets_an_exile_act_by_diplomacy_and_21_3_return():
    from app.engine.endeavours import change_owner

    s = game()
    for a in [a for a, v in s["areas"].items() if v["owner"] == KUSHAN]:
        change_owner(s, a, None, [], "test")
    assert s["players"][KUSHAN]["exiled"]
    s["phase"] = "diplomacy"
    s["diplo"] = {"pos": KUSHAN, "passes": 0, "moves": {"0": 0, "1": 0}, "proposal": None}
    assert {"type": "diplo", "move": "ask_asylum", "power": "han"} in engine.legal_actions(
        s, KUSHAN
    )
    s, _ = engine.apply(s, KUSHAN, {"type": "diplo", "move": "ask_asylum", "power": "han"})
    assert engine.pending(s)[0]["request"] == "asylum"
    s, _ = engine.apply(s, HAN, {"type": "diplo", "move": "accept_asylum", "power": "kushan"})
    assert s["players"][KUSHAN]["asylum"] == HAN
    s = turn_of(s, KUSHAN, hand="diplomacy")
    kinds = {
        (a["kind"], a["base"]) for a in engine.legal_actions(s, KUSHAN) if a["type"] == "endeavour"
    }
    assert kinds == {("diplomacy", "guanzhong")}
    s["players"][KUSHAN]["talents"] = 20
    counters(s, 3)
    s2, ev = endeavour(
        s, KUSHAN, "diplomacy", "guanzhong", "bactria", talents=5
    )  # 3+2+5-0-0-3 = 7 +3 -> C
    k = s2["players"][KUSHAN]
    assert (
        s2["areas"]["bactria"]["owner"] == KUSHAN
        and not k["exiled"]
        and k["court"] == "bactria"
        and k["asylum"] is None
    )
    assert any(e["rule"] == "21.3" for e in ev)


def test_21_2_a_host_may_revoke_asylum():
    from app.engine.endeavours import change_owner

    s = game()
    for a in [a for a, v in s["areas"].items() if v["owner"] == KUSHAN]:
        change_owner(s, a, None, [], "test")
    s["players"][KUSHAN]["asylum"] = HAN
    s["phase"] = "diplomacy"
    s["diplo"] = {"pos": HAN, "passes": 0, "moves": {"0": 0, "1": 0}, "proposal": None}
    s2, _ = engine.apply(s, HAN, {"type": "diplo", "move": "revoke_asylum", "power": "kushan"})
    assert s2["players"][KUSHAN]["asylum"] is None
