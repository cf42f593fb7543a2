"""The standard bot and cancellation by consent (rules 20.3, 3.53): it offers to cancel
an agreement that no longer serves both parties, accepts such an offer, and refuses to
let go of one that still serves it; a new pact is worth less for the coalition it bars
and when it binds us to the leader."""

from __future__ import annotations

import random
from typing import Any

from app import engine
from app.bots import choose_action
from app.bots.evaluate import Evaluator
from app.bots.grand import Grand
from app.bots.politics import Politics

from .test_politics import FOUR, diplo_view, fresh, weaken

KUSHAN, HAN, PARTHIA, XIONGNU = 2, 3, 1, 4
EMPTY = {"talents": 0, "per_turn": 0, "areas": [], "claims": [], "votes": False}


def _agreement(parties: list[int], **kw: Any) -> dict[str, Any]:
    ag = {
        "id": 1,
        "parties": parties,
        "signed": 1,
        "year": 70,
        "expires": 2,
        "status": "in_force",
        "terms": ["non_aggression"],
        "tribute": [],
        "votes": [],
        "exchange": {"give": {}, "get": {}},
        "breaker": None,
        "ended": None,
        "why": None,
    }
    ag.update(kw)
    return ag


def _threatened_kushan_bound_to_han(**kw: Any) -> dict[str, Any]:
    """Kushan, weakened, threatened by Parthia; Xiongnu a hegemon it would join (3.53);
    a non-aggression pact with far-away Han bars the join."""
    state = fresh()
    state["relations"]["hegemons"] = [XIONGNU]
    weaken(state, KUSHAN, 1)
    state["relations"]["agreements"] = [_agreement([KUSHAN, HAN], **kw)]
    return state


def test_20_3_a_pact_that_bars_a_wanted_coalition_is_offered_for_cancellation_and_taken() -> None:
    state = _threatened_kushan_bound_to_han()
    view, legal = diplo_view(KUSHAN, state)
    politics = Politics(view)
    assert politics.threat() == PARTHIA and not politics.neighbours(HAN)
    assert {"type": "diplo", "move": "join", "power": FOUR[XIONGNU]} not in legal  # bound
    cancel = {"type": "cancel", "agreement": 1}
    assert cancel in legal
    ev = Evaluator(view)
    assert ev.score(cancel) > ev.score({"type": "diplo", "move": "pass"})
    assert ev.score({"type": "renounce", "agreement": 1}) < ev.score(cancel)
    among = [a for a in legal if a["type"] in ("cancel", "renounce") or a.get("move") == "pass"]
    assert choose_action("standard", view, among, random.Random(0)) == cancel
    # Han, far away, lets it go: the pact is worth no more to it than peace with anyone
    s2, _ = engine.apply(state, KUSHAN, cancel)
    answer = choose_action(
        "standard", engine.view(s2, HAN), engine.legal_actions(s2, HAN), random.Random(0)
    )
    assert answer == {"type": "answer_offer", "answer": "accept"}
    # refused (a person may refuse what a bot would take): not asked again this game turn
    refused, _ = engine.apply(s2, HAN, {"type": "answer_offer", "answer": "refuse"})
    refused["diplo"]["pos"] = KUSHAN
    assert Evaluator(engine.view(refused, KUSHAN)).score(cancel) < 0
    s3, _ = engine.apply(s2, HAN, answer)
    assert s3["relations"]["agreements"][0]["status"] == "cancelled"
    s3["diplo"]["pos"] = KUSHAN
    assert {"type": "diplo", "move": "join", "power": FOUR[XIONGNU]} in engine.legal_actions(
        s3, KUSHAN
    )


def test_20_3_no_offer_to_cancel_what_still_serves_us_and_no_consent_to_lose_a_tribute() -> None:
    # without a coalition to join, the far-away pact costs Kushan nothing: kept
    state = _threatened_kushan_bound_to_han()
    state["relations"]["hegemons"] = []
    view, _ = diplo_view(KUSHAN, state)
    assert Evaluator(view).score({"type": "cancel", "agreement": 1}) < 0
    # Han is paid a tribute of 3 a game turn: it refuses to cancel, so Kushan does not ask
    state = _threatened_kushan_bound_to_han(tribute=[{"payer": KUSHAN, "payee": HAN, "amount": 3}])
    view, _ = diplo_view(KUSHAN, state)
    assert Evaluator(view).score({"type": "cancel", "agreement": 1}) < 0
    s2, _ = engine.apply(state, KUSHAN, {"type": "cancel", "agreement": 1})
    han = Evaluator(engine.view(s2, HAN))
    accept, refuse = ({"type": "answer_offer", "answer": a} for a in ("accept", "refuse"))
    assert han.score(accept) < han.score(refuse)
    answer = choose_action(
        "standard", engine.view(s2, HAN), engine.legal_actions(s2, HAN), random.Random(0)
    )
    assert answer != accept  # refused, or countered (which refuses it, 20.15)


def test_3_53_a_new_pact_is_worth_less_for_the_coalition_it_bars() -> None:
    """Threatened Kushan, with a hegemon it would join standing, values non-aggression with
    a third power less than it would without that hegemon (the shelter it gives up), and
    a pact with the threat itself costs it no shelter."""
    state = _threatened_kushan_bound_to_han()
    state["relations"]["agreements"] = []
    view, _ = diplo_view(KUSHAN, state)
    grand = Grand(Politics(view))
    assert grand.barred_shelter(HAN) > 0
    assert grand.barred_shelter(PARTHIA) == 0  # the threat itself
    pact = grand.worth(EMPTY, EMPTY, ["non_aggression"], 2, HAN)
    state["relations"]["hegemons"] = []
    free = Grand(Politics(diplo_view(KUSHAN, state)[0]))
    assert free.barred_shelter(HAN) == 0
    assert pact < free.worth(EMPTY, EMPTY, ["non_aggression"], 2, HAN)


def test_a_pact_with_the_leader_costs_a_share_of_its_lead() -> None:
    view = engine.view(fresh(), KUSHAN)
    # Han ahead by five points of standing (26.2), whatever the victory levels give at the start
    top = max(float(row["standing"]) for row in view["score"].values())
    view["score"][str(HAN)]["standing"] = top + 5
    politics = Politics(view)
    leader = politics.leader()
    assert leader == HAN and politics.lead() >= 5
    grand = Grand(politics)
    assert grand.leader_pact(leader) > 0
    other = next(s for s in range(6) if s not in (leader, KUSHAN))
    assert grand.leader_pact(other) == 0
