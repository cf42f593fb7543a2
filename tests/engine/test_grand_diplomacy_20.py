"""20.1-20.3 grand diplomacy and binding agreements, 20.41's verdict, 20.43-20.45
parleys, 22.11-22.14 the accursed, 3.21/3.23 the price of war and peace between
neutral powers: every numbered case."""

from __future__ import annotations

import pytest

from app import engine
from app.engine import IllegalAction

from .helpers import HAN, KUSHAN, dice, game, turn_of

EMPTY = {"talents": 0, "per_turn": 0, "areas": [], "claims": [], "votes": False}


def side(**kw):
    out = dict(EMPTY)
    out.update(kw)
    return out


def offer(power="han", give=None, get=None, terms=None, turns=0):
    return {
        "type": "offer",
        "power": power,
        "give": give or side(),
        "get": get or side(),
        "terms": terms or [],
        "turns": turns,
    }


def templates(s, seat):
    return {a["power"]: a for a in engine.legal_actions(s, seat) if a["type"] == "offer"}


def neutral(s):
    s["relations"]["pairs"]["0|1"] = {"status": "neutral", "since": 0}
    return s


def diplo(s=None):
    """The diplomatic phase of game turn 1, Kushan to act, the two powers neutral."""
    return neutral(s or game())


def sign(s, bundle, by=KUSHAN, to=HAN):
    s2, _ = engine.apply(s, by, bundle)
    s3, ev = engine.apply(s2, to, {"type": "answer_offer", "answer": "accept"})
    return s3, ev


def han_votes(s, n=4):
    s["players"][HAN]["emperor"]["statures"]["diplomacy"] = n  # Kushan has 3
    return s


def vote(s, **votes):
    for seat, choice in votes.items():
        s, _ = engine.apply(
            s, {"kushan": KUSHAN, "han": HAN}[seat], {"type": "vote", "choice": choice}
        )
    return s


# ---------------------------------------------------------------- 20.14 templates and offers


def test_20_14_one_offer_template_per_power_with_item_ranges():
    s = diplo()
    tpl = templates(s, KUSHAN)["han"]
    t = tpl["template"]
    assert t["give"]["talents"] == s["players"][KUSHAN]["talents"]
    assert t["get"]["talents"] == s["players"][HAN]["talents"]
    assert (
        "bactria" not in t["give"]["areas"] and "gandhara" in t["give"]["areas"]
    )  # never the court
    assert "guanzhong" not in t["get"]["areas"] and "hexi" in t["get"]["areas"]
    assert t["terms"] == ["peace", "non_aggression", "alliance"]
    assert t["turns"] == [1, 2]  # teaching has two game turns
    # the listed template is itself a legal offer (its default bundle)
    s2, _ = engine.apply(s, KUSHAN, tpl)
    assert s2["grand"]["offer"]["terms"] == ["peace"]


def test_20_14_a_concrete_offer_fits_the_template_or_is_refused_with_a_reason():
    s = diplo()
    ok = offer(give=side(talents=3), get=side(areas=["hexi"]))
    s2, _ = engine.apply(s, KUSHAN, ok)
    assert s2["grand"]["offer"]["get"]["areas"] == ["hexi"]
    cases = [
        (offer(give=side(talents=99)), "offer_range"),
        (offer(give=side(areas=["bactria"])), "bad_area"),  # a court is never ceded
        (offer(get=side(areas=["gandhara"])), "bad_area"),  # not the other's area
        (offer(give=side(claims=["hexi"])), "bad_claim"),  # no such claim
        (offer(terms=["vassalage"]), "bad_term"),
        (offer(), "empty_offer"),
        (offer(terms=["non_aggression"]), "offer_range"),  # lasting: turns 1..2
        (offer(give=side(talents=1), turns=1), "offer_range"),  # nothing lasts: turns 0
        (offer(power="rome", give=side(talents=1)), "no_offer"),
        ({**ok, "bribe": 1}, "bad_offer"),
        (offer(give={"talents": True}), "bad_offer"),
    ]
    for bad, code in cases:
        with pytest.raises(IllegalAction) as exc:
            engine.apply(s, KUSHAN, bad)
        assert exc.value.code == code, (bad, exc.value.code)
        assert exc.value.reason
    assert engine.offer_fits(engine.legal_actions(s, KUSHAN), ok)
    assert not engine.offer_fits(engine.legal_actions(s, KUSHAN), cases[0][0])


def test_20_14_the_recipient_accepts_refuses_or_counters_and_the_offer_is_private():
    s = diplo()
    s2, ev = engine.apply(s, KUSHAN, offer(give=side(talents=2), terms=["peace"]))
    assert engine.pending(s2) == [
        {
            "seat": HAN,
            "kind": "request",
            "request": "offer",
            "label": "Kushan makes you an offer: accept, refuse or counter.",
            "from": KUSHAN,
        }
    ]
    types = [a["type"] for a in engine.legal_actions(s2, HAN)]
    assert types == ["answer_offer", "answer_offer", "offer"]
    assert engine.view(s2, HAN)["me"]["offer"]["give"]["talents"] == 2
    assert engine.view(s2, KUSHAN)["me"]["offer"]["from"] == KUSHAN
    assert "offer" not in {k for k in engine.view(s2, None)}
    assert engine.view(s2, None)["negotiation"] == {"from": KUSHAN, "to": HAN}
    assert all(e["to"] == [KUSHAN, HAN] for e in ev if "give" in e["data"].get("offer", {}))
    # refuse: nothing changes hands, the phase goes on after the offerer
    s3, _ = engine.apply(s2, HAN, {"type": "answer_offer", "answer": "refuse"})
    assert s3["players"][HAN]["talents"] == s["players"][HAN]["talents"]
    assert s3["grand"]["offer"] is None and s3["diplo"]["pos"] == HAN
    # the refusal is public for the rest of the game turn (a bot does not ask again)
    assert engine.view(s3, None)["refusals"] == [{"from": KUSHAN, "to": HAN}]
    assert engine.seat_view(s3, KUSHAN)["refusals"] == [{"from": KUSHAN, "to": HAN}]
    s3["turn"] += 1
    assert engine.view(s3, None)["refusals"] == []
    # default on a deadline: refuse
    assert engine.default_action(s2, engine.pending(s2)[0]) == {
        "type": "answer_offer",
        "answer": "refuse",
    }


def test_20_15_a_counter_is_an_offer_back_and_counters_are_limited():
    s = diplo()
    s2, _ = engine.apply(s, KUSHAN, offer(get=side(talents=5)))
    s3, ev = engine.apply(s2, HAN, offer(power="kushan", give=side(talents=2)))
    assert any(e["rule"] == "20.15" for e in ev)
    off = s3["grand"]["offer"]
    assert (off["from"], off["to"], off["depth"]) == (HAN, KUSHAN, 1)
    s4, _ = engine.apply(s3, KUSHAN, offer(get=side(talents=3)))
    assert s4["grand"]["offer"]["depth"] == 2
    assert not any(a["type"] == "offer" for a in engine.legal_actions(s4, HAN))  # 20.15
    s5, _ = engine.apply(s4, HAN, {"type": "answer_offer", "answer": "accept"})
    assert s5["players"][HAN]["talents"] == s["players"][HAN]["talents"] - 3
    assert s5["diplo"]["moves"] == {"0": 1, "1": 0}  # the counters cost Han no move


def test_20_11_20_2_an_accepted_bundle_is_carried_out_whole_and_recorded():
    s = diplo()
    t0k, t0h = s["players"][KUSHAN]["talents"], s["players"][HAN]["talents"]
    bundle = offer(
        give=side(talents=4, areas=["gandhara"]),
        get=side(talents=1, areas=["henan"]),
        terms=["non_aggression"],
        turns=2,
    )
    s2, ev = sign(s, bundle)
    a = s2["areas"]
    assert a["gandhara"]["owner"] == HAN and a["henan"]["owner"] == KUSHAN
    assert KUSHAN in a["gandhara"]["ties"]  # 20.11: ties never change hands
    assert s2["players"][KUSHAN]["talents"] == t0k - 4 + 1
    assert s2["players"][HAN]["talents"] == t0h + 4 - 1
    assert s2["relations"]["pairs"]["0|1"]["status"] == "peace"
    (ag,) = s2["relations"]["agreements"]
    assert ag["parties"] == [KUSHAN, HAN] and ag["status"] == "in_force"
    assert ag["terms"] == ["non_aggression"] and ag["expires"] == 2 and ag["signed"] == 1
    assert any(e["rule"] == "20.3" and e["kind"] == "agreement" for e in ev)
    assert engine.view(s2, None)["agreements"] == s2["relations"]["agreements"]  # public


def test_20_11_claims_change_hands_and_a_bundle_without_lasting_items_is_fulfilled():
    s = diplo()
    s["areas"]["hexi"]["claims"] = [KUSHAN]
    s["areas"]["hexi"]["religion"] = s["players"][HAN]["emperor"]["religion"]
    assert "hexi" in templates(s, KUSHAN)["han"]["template"]["give"]["claims"]
    s2, _ = sign(s, offer(give=side(claims=["hexi"]), get=side(talents=2)))
    assert s2["areas"]["hexi"]["claims"] == [HAN]
    assert s2["relations"]["agreements"][0]["status"] == "fulfilled"
    assert s2["relations"]["agreements"][0]["expires"] is None


def test_20_14_one_offer_in_each_player_turn():
    s = turn_of(diplo(), KUSHAN)
    assert "han" in templates(s, KUSHAN)
    s2, _ = sign(s, offer(give=side(talents=1)))
    assert engine.pending(s2)[0]["kind"] == "turn" and s2["active"] == KUSHAN
    assert templates(s2, KUSHAN) == {}
    with pytest.raises(IllegalAction) as exc:
        engine.apply(s2, KUSHAN, offer(give=side(talents=1)))
    assert exc.value.code == "offered"


# ---------------------------------------------------------------- 20.12 tribute and expiry


def _upkeep(s):
    """Run the game-turn upkeep now (the end of the last round of the turn)."""
    from app.engine.flow import upkeep

    events = []
    upkeep(s, events)
    return events


def test_20_12_tribute_is_paid_each_upkeep_and_the_agreement_expires():
    s = diplo()
    s2, _ = sign(s, offer(get=side(per_turn=2), terms=["non_aggression"], turns=1))
    k, h = s2["players"][KUSHAN]["talents"], s2["players"][HAN]["talents"]
    ev = _upkeep(s2)
    assert s2["players"][KUSHAN]["talents"] == k + 2 and s2["players"][HAN]["talents"] == h - 2
    assert s2["relations"]["agreements"][0]["status"] == "expired"
    assert [e["rule"] for e in ev if e["kind"] in ("tribute", "agreement")] == ["20.12", "20.12"]


def test_20_12_unpaid_tribute_is_a_breach_and_opens_the_20_44_parley():
    s = diplo()
    s2, _ = sign(s, offer(get=side(per_turn=5), turns=2))
    s2["players"][HAN]["talents"] = 3
    s2["turn"] = 1
    _upkeep(s2)  # game turn 2 begins: the parley opens before anything else
    from app.engine.flow import advance

    advance(s2, [])
    ag = s2["relations"]["agreements"][0]
    assert ag["status"] == "broken" and ag["breaker"] == HAN and "tribute" in ag["why"]
    assert s2["players"][KUSHAN]["talents"] >= 3  # what Han had was paid
    pa = s2["parley"]
    assert (pa["question"], pa["caller"], pa["against"], pa["agreement"]) == (
        "breach",
        KUSHAN,
        HAN,
        1,
    )


# ---------------------------------------------------------------- 20.13 / 20.44 breaches


def _signed_non_aggression(s=None):
    s, _ = sign(s or diplo(), offer(terms=["non_aggression"], turns=2))
    s["diplo"]["pos"] = HAN
    return s


def test_20_13_war_on_a_partner_is_a_breach_and_20_44_the_parley_finds_the_guilty_accursed():
    s = han_votes(_signed_non_aggression())
    s["relations"]["pairs"]["0|1"] = {"status": "neutral", "since": 1}
    s2, ev = engine.apply(s, HAN, {"type": "diplo", "move": "declare_war", "power": "kushan"})
    assert s2["relations"]["agreements"][0]["status"] == "broken"
    assert any(e["kind"] == "breach" and e["rule"] == "20.3" for e in ev)
    pa = s2["parley"]
    assert pa["question"] == "breach" and pa["caller"] == KUSHAN and pa["against"] == HAN
    prompts = engine.pending(s2)
    assert {p["seat"] for p in prompts} == {KUSHAN, HAN} and "20.44" in prompts[0]["label"]
    # Kushan 3 votes yes, Han 4 no: acquitted
    s3 = vote(s2, kushan="yes", han="no")
    assert not s3["players"][HAN]["accursed"]
    # 20.44: a tie finds the breaker guilty
    s4 = vote(s2, kushan="abstain", han="abstain")
    assert s4["players"][HAN]["accursed"]
    assert s4["parley"] is None and engine.pending(s4)[0]["kind"] == "diplomacy"


def test_20_13_breaking_a_treaty_bound_by_non_aggression_is_a_breach_when_the_pretext_is_found():
    s = _signed_non_aggression()
    s["turn"] = 2  # lasted 1: only a 0 would do, so the die fails; sacrilege, no breach
    dice(s, 4)
    s2, ev = engine.apply(s, HAN, {"type": "diplo", "move": "declare_war", "power": "kushan"})
    assert s2["relations"]["agreements"][0]["status"] == "in_force"
    assert any(e["rule"] == "3.22" for e in ev)
    s = _signed_non_aggression()
    s["turn"] = 3  # lasted 2: a 1 finds the pretext (3.22), and the war breaks the agreement
    dice(s, 1)
    s3, _ = engine.apply(s, HAN, {"type": "diplo", "move": "declare_war", "power": "kushan"})
    assert s3["relations"]["pairs"]["0|1"]["status"] == "war"
    assert s3["relations"]["agreements"][0]["breaker"] == HAN
    assert s3["parley"]["question"] == "breach"


def test_20_13_taking_a_partners_area_is_a_breach():
    from app.engine.endeavours import conquer

    s = _signed_non_aggression()
    events = []
    conquer(s, HAN, "gandhara", events, diplomatic=True)
    assert s["relations"]["agreements"][0]["breaker"] == HAN
    assert s["grand"]["due"][0]["question"] == "breach"


def test_20_11_a_pledged_vote_withheld_is_a_breach():
    s = diplo()
    s2, _ = sign(s, offer(get=side(votes=True, talents=0), give=side(talents=2), turns=2))
    assert s2["relations"]["agreements"][0]["votes"] == [{"pledger": HAN, "for": KUSHAN}]
    s3 = turn_of(s2, KUSHAN)
    from app.engine.flow import start_parley

    s3["areas"]["gandhara"]["claims"] = [HAN]
    start_parley(s3, KUSHAN, "claim", "gandhara", [])
    assert engine.view(s3, HAN)["me"]["pledged_vote"] == "yes"
    s4 = vote(s3, kushan="yes", han="no")
    assert s4["relations"]["agreements"][0]["status"] == "broken"
    assert s4["parley"]["question"] == "breach" and s4["parley"]["against"] == HAN


def test_20_3_renouncing_an_agreement_is_a_breach():
    s = _signed_non_aggression()
    ren = {"type": "renounce", "agreement": 1}
    assert ren in engine.legal_actions(s, HAN)
    s2, _ = engine.apply(s, HAN, ren)
    assert s2["relations"]["agreements"][0]["why"] == "renounced"
    assert s2["parley"]["question"] == "breach"


def test_20_3_an_heirless_death_frees_the_parties():
    from app.engine.fate import die

    s = _signed_non_aggression()
    die(s, HAN, [], "test", heirless=True)
    assert s["relations"]["agreements"][0]["status"] == "void"
    assert s["grand"]["due"] == []


# ---------------------------------------------------------------- 20.3 cancellation by consent


def test_20_3_an_offer_to_cancel_is_listed_for_each_agreement_and_answered_like_any_offer():
    s = _signed_non_aggression()  # diplomatic phase, Han to act
    cancel = {"type": "cancel", "agreement": 1}
    assert cancel in engine.legal_actions(s, HAN)
    s2, ev = engine.apply(s, HAN, cancel)
    assert s2["diplo"]["moves"][str(HAN)] == 1  # a move of the diplomatic phase (20.14)
    assert [e["rule"] for e in ev if e["kind"] == "offer"][0] == "20.3"
    prompt = engine.pending(s2)[0]
    assert (prompt["seat"], prompt["request"]) == (KUSHAN, "offer")
    assert "cancel agreement 1" in prompt["label"]
    legal = engine.legal_actions(s2, KUSHAN)
    assert {"type": "answer_offer", "answer": "accept"} in legal
    assert {"type": "answer_offer", "answer": "refuse"} in legal
    assert any(a["type"] == "offer" for a in legal)  # a counter, as to any offer (20.15)
    seen = engine.view(s2, KUSHAN)["me"]["offer"]
    assert seen["kind"] == "cancel" and seen["agreement"] == 1
    assert "no breach" in seen["text"] and "non-aggression" in seen["text"]
    # refused: the agreement stays in force
    s3, ev3 = engine.apply(s2, KUSHAN, {"type": "answer_offer", "answer": "refuse"})
    assert s3["relations"]["agreements"][0]["status"] == "in_force"
    assert any("stays in force" in e["text"] for e in ev3)


def test_20_3_a_cancellation_accepted_ends_the_agreement_with_no_breach_and_no_parley():
    s = han_votes(_signed_non_aggression())
    s2, _ = engine.apply(s, HAN, {"type": "cancel", "agreement": 1})
    s3, ev = engine.apply(s2, KUSHAN, {"type": "answer_offer", "answer": "accept"})
    ag = s3["relations"]["agreements"][0]
    assert (ag["status"], ag["breaker"], ag["why"]) == ("cancelled", None, "cancelled by consent")
    assert not any(e["kind"] == "breach" for e in ev)
    assert s3["parley"] is None and s3["grand"]["due"] == []
    assert {"type": "cancel", "agreement": 1} not in engine.legal_actions(s3, HAN)
    assert {"type": "renounce", "agreement": 1} not in engine.legal_actions(s3, HAN)
    # freed by consent: a war on the former partner is no breach (20.13 no longer binds)
    s3["relations"]["pairs"]["0|1"] = {"status": "neutral", "since": 1}
    s3["diplo"]["pos"] = HAN
    s4, ev4 = engine.apply(s3, HAN, {"type": "diplo", "move": "declare_war", "power": "kushan"})
    assert not any(e["kind"] == "breach" for e in ev4) and s4["parley"] is None


def test_20_3_in_a_player_turn_a_cancellation_is_the_turns_one_offer():
    s = turn_of(_signed_non_aggression(), KUSHAN)
    cancel = {"type": "cancel", "agreement": 1}
    assert cancel in engine.legal_actions(s, KUSHAN)
    s2, _ = engine.apply(s, KUSHAN, cancel)
    s3, _ = engine.apply(s2, HAN, {"type": "answer_offer", "answer": "refuse"})
    assert engine.pending(s3)[0]["kind"] == "turn" and s3["active"] == KUSHAN
    legal = engine.legal_actions(s3, KUSHAN)
    assert cancel not in legal and not any(a["type"] == "offer" for a in legal)
    with pytest.raises(IllegalAction) as exc:
        engine.apply(s3, KUSHAN, cancel)
    assert exc.value.code == "offered"
    with pytest.raises(IllegalAction) as exc:
        engine.apply(turn_of(_signed_non_aggression(), KUSHAN), KUSHAN, {**cancel, "agreement": 9})
    assert exc.value.code == "bad_agreement"


# ---------------------------------------------------------------- 20.13 / 3.55 wars through a coalition

PARTHIA, KUSHAN3, ROME = 0, 1, 2


def _three_bound():
    """Parthia and Kushan bound by non-aggression; Rome a hegemon; Kushan to act."""
    s = game("four_empires", ("parthia", "kushan", "rome"))
    s, _ = sign(s, offer(power="kushan", terms=["non_aggression"], turns=2), by=PARTHIA, to=KUSHAN3)
    s["relations"]["hegemons"] = [ROME]
    s["diplo"]["pos"] = KUSHAN3
    return s


def test_3_53_20_13_a_power_bound_by_non_aggression_may_not_join_a_coalition():
    s = _three_bound()
    join = {"type": "diplo", "move": "join", "power": "rome"}
    assert join not in engine.legal_actions(s, KUSHAN3)
    with pytest.raises(IllegalAction) as exc:
        engine.apply(s, KUSHAN3, join)
    assert exc.value.code == "bound" and "agreement 1" in exc.value.reason
    # 20.3: cancelled by consent, Kushan is free to join
    s2, _ = engine.apply(s, KUSHAN3, {"type": "cancel", "agreement": 1})
    s3, _ = engine.apply(s2, PARTHIA, {"type": "answer_offer", "answer": "accept"})
    s3["diplo"]["pos"] = KUSHAN3
    assert join in engine.legal_actions(s3, KUSHAN3)


def test_20_13_3_55_a_war_that_reaches_a_partner_through_its_coalition_is_the_declarers_breach():
    """A junior partner bound by non-aggression (a game saved before 3.53 refused it):
    Parthia's war on Rome is war on Kushan too (3.55), so Parthia breaks the agreement."""
    s = _three_bound()
    s["relations"]["coalitions"] = {str(ROME): [KUSHAN3]}
    s["diplo"]["pos"] = PARTHIA
    war_on_rome = {"type": "diplo", "move": "declare_war", "power": "rome"}
    assert war_on_rome in engine.legal_actions(s, PARTHIA)
    s2, ev = engine.apply(s, PARTHIA, war_on_rome)
    ag = s2["relations"]["agreements"][0]
    assert (ag["status"], ag["breaker"]) == ("broken", PARTHIA)
    assert "Rome" in ag["why"]
    assert any(e["kind"] == "breach" and e["rule"] == "20.3" for e in ev)
    pa = s2["parley"]
    assert (pa["question"], pa["caller"], pa["against"]) == ("breach", KUSHAN3, PARTHIA)


def test_20_13_a_war_between_third_powers_breaks_nothing():
    s = _three_bound()
    s["diplo"]["pos"] = ROME
    s2, ev = engine.apply(s, ROME, {"type": "diplo", "move": "declare_war", "power": "parthia"})
    assert s2["relations"]["agreements"][0]["status"] == "in_force"
    assert not any(e["kind"] == "breach" for e in ev)


# ---------------------------------------------------------------- explain: the breach said before


def test_20_3_explain_names_the_agreement_a_war_on_a_partner_would_break():
    """Issue 26: "Declare war" on a partner just after a non-aggression pact says which
    agreement it breaks and that a 20.44 parley follows, and that it cannot succeed yet."""
    s = _signed_non_aggression()  # peace dated now (20.13): 3.22 applies
    war = {"type": "diplo", "move": "declare_war", "power": "kushan"}
    ex = engine.explain(s, HAN, war)
    assert ex["treaty"]["lasted"] == 0 and ex["odds"]["war"] == 0
    assert ex["cannot_succeed"] is True
    assert ex["breaks"] == [
        {
            "agreement": 1,
            "partner": KUSHAN,
            "text": "agreement 1 of Kushan and Han: non-aggression until the end of game turn 2",
            "rule": "20.3",
            "parley": "20.44",
        }
    ]
    s["turn"] = 3  # lasted 2: a 1 finds the pretext
    ex = engine.explain(s, HAN, war)
    assert ex["cannot_succeed"] is False and ex["odds"]["war"] == pytest.approx(1 / 6)
    assert [b["agreement"] for b in ex["breaks"]] == [1]
    # on a neutral partner the move is tried on a copy: the copy's breach is reported
    s = _signed_non_aggression()
    s["relations"]["pairs"]["0|1"] = {"status": "neutral", "since": 1}
    ex = engine.explain(s, HAN, war)
    assert [b["agreement"] for b in ex["breaks"]] == [1] and "cannot_succeed" not in ex
    # a move that breaks nothing says so by an empty list
    assert engine.explain(s, HAN, {"type": "diplo", "move": "pass"}).get("breaks", []) == []


def test_20_3_explain_of_renounce_cancel_and_a_vote_against_a_pledge():
    s = _signed_non_aggression()
    ren = engine.explain(s, HAN, {"type": "renounce", "agreement": 1})
    assert [(b["agreement"], b["parley"]) for b in ren["breaks"]] == [(1, "20.44")]
    can = engine.explain(s, HAN, {"type": "cancel", "agreement": 1})
    assert can["breaks"] == [] and "no breach" in can["if_accepted"]
    with pytest.raises(IllegalAction):
        engine.explain(s, HAN, {"type": "cancel", "agreement": 7})
    # 20.11: Han pledged its votes to Kushan; voting no on Kushan's claim breaks the pledge
    s = diplo()
    s2, _ = sign(s, offer(get=side(votes=True), give=side(talents=2), turns=2))
    s3 = turn_of(s2, KUSHAN)
    from app.engine.flow import start_parley

    s3["areas"]["gandhara"]["claims"] = [HAN]
    start_parley(s3, KUSHAN, "claim", "gandhara", [])
    no = engine.explain(s3, HAN, {"type": "vote", "choice": "no"})
    assert no["pledged"] == "yes" and [b["agreement"] for b in no["breaks"]] == [1]
    assert engine.explain(s3, HAN, {"type": "vote", "choice": "yes"})["breaks"] == []


def test_20_13_explain_of_taking_a_partners_area_names_the_breach_and_its_odds():
    """A diplomacy endeavour on a partner's area (12.3: C or T/C takes it) and a Dynastic
    Inheritance of it (20.43) break the non-aggression (20.13): explain says so first."""
    s = turn_of(_signed_non_aggression(), HAN, hand="diplomacy")
    s["players"][HAN]["emperor"]["statures"]["diplomacy"] = 6
    s["players"][KUSHAN]["emperor"]["statures"]["diplomacy"] = 0  # 12.17
    act = {
        "type": "endeavour",
        "kind": "diplomacy",
        "base": "guanzhong",
        "target": "gandhara",
        "talents": 5,
    }
    ex = engine.explain(s, HAN, act)
    assert [b["agreement"] for b in ex["breaks"]] == [1]
    taking = sum(p for k, p in ex["odds"].items() if k in ("C", "T/C"))
    assert taking > 0 and ex["breach_odds"] == pytest.approx(taking)
    assert "breaks" not in engine.explain(s, HAN, {**act, "target": "tarim"})  # no one's
    # Dynastic Inheritance of a partner's area
    s = turn_of(_signed_non_aggression(), HAN)
    s["players"][HAN]["holdings"].append(
        {"id": "k7100", "kind": "fate", "ref": "dynastic_inheritance"}
    )
    s["areas"]["gandhara"]["ties"].append(HAN)
    play = {"type": "play", "card": "k7100", "target": "gandhara"}
    assert play in engine.legal_actions(s, HAN)
    assert [b["agreement"] for b in engine.explain(s, HAN, play)["breaks"]] == [1]


# ---------------------------------------------------------------- 20.41 verdict


def _contest_ruled_for_han():
    from app.engine.endeavours import conquer
    from app.engine.flow import start_parley

    s = turn_of(game(), KUSHAN)
    conquer(s, KUSHAN, "hexi", [], diplomatic=True)
    start_parley(s, HAN, "contest", "hexi", [], against=KUSHAN)
    return vote(s, kushan="abstain", han="yes")


def test_20_41_22_1_the_conqueror_returns_the_area_or_defies_the_parley_and_is_accursed():
    s = _contest_ruled_for_han()
    (prompt,) = engine.pending(s)
    assert prompt["request"] == "verdict" and prompt["seat"] == KUSHAN
    assert engine.legal_actions(s, KUSHAN) == [
        {"type": "verdict", "comply": True},
        {"type": "verdict", "comply": False},
    ]
    assert engine.default_action(s, prompt) == {"type": "verdict", "comply": True}
    kept, ev = engine.apply(s, KUSHAN, {"type": "verdict", "comply": False})
    assert kept["areas"]["hexi"]["owner"] == KUSHAN and kept["players"][KUSHAN]["accursed"]
    assert any(e["kind"] == "accursed" and e["rule"] == "20.41" for e in ev)
    back, _ = engine.apply(s, KUSHAN, {"type": "verdict", "comply": True})
    assert back["areas"]["hexi"]["owner"] == HAN and not back["players"][KUSHAN]["accursed"]


# ---------------------------------------------------------------- 20.43 Dynastic Inheritance


def _holding(s, seat):
    card = {"id": "f9999", "kind": "fate", "ref": "dynastic_inheritance"}
    s["players"][seat]["holdings"].append(card)
    return card["id"]


def test_20_43_dynastic_inheritance_takes_the_area_and_its_owner_contests_it():
    s = han_votes(turn_of(game(), KUSHAN))
    cid = _holding(s, KUSHAN)
    s["areas"]["hexi"]["ties"] = [KUSHAN, HAN]
    play = {"type": "play", "card": cid, "target": "hexi"}
    assert play in engine.legal_actions(s, KUSHAN)
    assert {"type": "play", "card": cid, "target": "guanzhong"} not in engine.legal_actions(
        s, KUSHAN
    )  # never a court
    s2, ev = engine.apply(s, KUSHAN, play)
    assert s2["areas"]["hexi"]["owner"] == KUSHAN
    assert any(e["rule"] == "20.43" for e in ev)
    pa = s2["parley"]
    assert (pa["question"], pa["caller"], pa["against"], pa["area"]) == (
        "inherit",
        HAN,
        KUSHAN,
        "hexi",
    )
    upheld = vote(s2, kushan="no", han="abstain")  # 0 yes, 3 no: the heir keeps it
    assert upheld["areas"]["hexi"]["owner"] == KUSHAN and upheld["grand"]["verdict"] is None
    ruled = vote(s2, kushan="abstain", han="yes")  # Han is the rightful owner
    assert ruled["grand"]["verdict"]["rule"] == "20.43"
    defied, _ = engine.apply(ruled, KUSHAN, {"type": "verdict", "comply": False})
    assert defied["players"][KUSHAN]["accursed"] and defied["areas"]["hexi"]["owner"] == KUSHAN


def test_20_43_22_13_no_contest_by_the_accursed_or_after_an_heirless_death():
    for setup in ("accursed", "heirless"):
        s = turn_of(game(), KUSHAN)
        cid = _holding(s, KUSHAN)
        s["areas"]["hexi"]["ties"] = [KUSHAN]
        if setup == "accursed":
            s["players"][HAN]["accursed"] = True  # 22.13
        else:
            s["grand"]["heirless"] = {str(HAN): s["turn"]}
        s2, _ = engine.apply(s, KUSHAN, {"type": "play", "card": cid, "target": "hexi"})
        assert s2["areas"]["hexi"]["owner"] == KUSHAN and s2["parley"] is None, setup


# ---------------------------------------------------------------- 20.45 readmission, 22.1x


def test_20_45_the_accursed_calls_a_readmission_parley_once_per_round():
    s = han_votes(turn_of(game(), KUSHAN))
    s["players"][KUSHAN]["accursed"] = True
    assert {"type": "readmission"} in engine.legal_actions(s, KUSHAN)
    s2, _ = engine.apply(s, KUSHAN, {"type": "readmission"})
    assert s2["parley"]["question"] == "readmit"
    assert s2["parley"]["eligible"] == [KUSHAN, HAN]  # 22.12: the accursed votes on his own case
    refused = vote(s2, kushan="yes", han="no")
    assert refused["players"][KUSHAN]["accursed"]
    assert {"type": "readmission"} not in engine.legal_actions(refused, KUSHAN)  # once a round
    tie = vote(s2, kushan="abstain", han="abstain")
    assert not tie["players"][KUSHAN]["accursed"]  # 20.45: a tie readmits


def test_22_12_the_accursed_vote_in_no_other_parley_and_call_none():
    from app.engine.flow import start_parley

    s = turn_of(game(), KUSHAN)
    s["players"][HAN]["accursed"] = True
    s["areas"]["gandhara"]["claims"] = [HAN]
    start_parley(s, KUSHAN, "claim", "gandhara", [])
    assert s["parley"]["eligible"] == [KUSHAN]
    s = turn_of(game(), HAN)
    s["players"][HAN]["accursed"] = True
    assert not any(a["type"] == "call_parley" for a in engine.legal_actions(s, HAN))


def test_22_11_the_accursed_emperor_counts_as_of_a_foreign_faith():
    s = turn_of(game(), KUSHAN)
    tax = {"type": "tax", "area": "gandhara", "amount": 1}  # Kushan's own faith: no term
    before = engine.explain(s, KUSHAN, tax)
    assert not any(t["rule"] in ("17.23", "22.11") for t in before["terms"])
    s["players"][KUSHAN]["accursed"] = True
    after = engine.explain(s, KUSHAN, tax)
    assert {"term": "religion difference (accursed)", "value": 2, "rule": "22.11"} in after["terms"]
    assert after["rebellion_value"] == before["rebellion_value"] + 2
    from app.engine.endeavours import rating

    card = {"id": "x", "kind": "advisor", "ref": "administration"}
    _, terms = rating(s, KUSHAN, card, "ruling", "gandhara", "gandhara", None, 0)
    assert {"term": "religion difference (accursed)", "value": -2, "rule": "22.11"} in terms


def test_22_14_an_heirless_death_lifts_the_curse():
    from app.engine.fate import die

    s = turn_of(game(), KUSHAN)
    s["players"][KUSHAN]["accursed"] = True
    die(s, KUSHAN, [], "test", heirless=True)
    assert not s["players"][KUSHAN]["accursed"]


# ---------------------------------------------------------------- 3.21, 3.23


def test_3_21_declaring_war_on_a_neutral_power_costs_one_influence():
    s = diplo()
    inf = s["players"][KUSHAN]["influence"]
    s2, ev = engine.apply(s, KUSHAN, {"type": "diplo", "move": "declare_war", "power": "han"})
    assert s2["players"][KUSHAN]["influence"] == inf - 1
    s["players"][KUSHAN]["influence"] = 0
    pop = s["players"][KUSHAN]["popularity"]
    s3, _ = engine.apply(s, KUSHAN, {"type": "diplo", "move": "declare_war", "power": "han"})
    assert s3["players"][KUSHAN]["popularity"] == pop - 1


def test_3_23_two_neutral_powers_may_sign_a_peace():
    s = diplo()
    move = {"type": "diplo", "move": "propose_peace", "power": "han"}
    assert move in engine.legal_actions(s, KUSHAN)
    s2, _ = engine.apply(s, KUSHAN, move)
    s3, _ = engine.apply(s2, HAN, {"type": "diplo", "move": "accept_peace", "power": "kushan"})
    assert s3["relations"]["pairs"]["0|1"]["status"] == "peace"
    s4, _ = sign(diplo(), offer(terms=["peace"]))
    assert s4["relations"]["pairs"]["0|1"] == {"status": "peace", "since": 1}


# ---------------------------------------------------------------- replay and in place


def test_offers_replay_and_undo_in_place():
    s = diplo()
    log = [
        (KUSHAN, offer(give=side(talents=2), terms=["non_aggression"], turns=2)),
        (HAN, offer(power="kushan", get=side(talents=3), terms=["non_aggression"], turns=1)),
        (KUSHAN, {"type": "answer_offer", "answer": "accept"}),
        (HAN, {"type": "cancel", "agreement": 1}),  # 20.3: and cancelled by consent
        (KUSHAN, {"type": "answer_offer", "answer": "accept"}),
    ]
    st = engine.clone(s)
    tokens = []
    cur = s
    for seat, a in log:
        cur, _ = engine.apply(cur, seat, a)
        tok, _ = engine.apply_in_place(st, seat, a)
        tokens.append(tok)
        assert engine.state_hash(st) == engine.state_hash(cur)
    for tok in reversed(tokens):
        engine.undo(st, tok)
    assert engine.state_hash(st) == engine.state_hash(s)
    assert cur["relations"]["agreements"][0]["status"] == "cancelled"


def test_20_14_20_15_refusals_counters_and_defiance_are_on_the_public_record():
    s = diplo()
    assert engine.view(s, None)["diplomatic_record"] == []
    s2, _ = engine.apply(s, KUSHAN, offer(get=side(talents=5)))
    s3, _ = engine.apply(s2, HAN, offer(power="kushan", give=side(talents=2)))  # 20.15
    s4, _ = engine.apply(s3, KUSHAN, {"type": "answer_offer", "answer": "refuse"})
    record = engine.view(s4, None)["diplomatic_record"]
    turn, rnd = s["turn"], s["round"]
    assert record == [
        {"fact": "countered", "from": KUSHAN, "to": HAN, "turn": turn, "round": rnd},
        {"fact": "refused", "from": HAN, "to": KUSHAN, "turn": turn, "round": rnd},
    ]
    assert engine.view(s4, HAN)["diplomatic_record"] == record  # public: no bundle in it
    kept, _ = engine.apply(_contest_ruled_for_han(), KUSHAN, {"type": "verdict", "comply": False})
    assert [f["fact"] for f in engine.view(kept, HAN)["diplomatic_record"]] == ["defied"]
    assert engine.view(kept, HAN)["diplomatic_record"][0]["seat"] == KUSHAN
