"""The standard bot's political policy, on real engine views and on hand-made ones."""

from __future__ import annotations

import random
from typing import Any

from app import engine
from app.bots import choose_action
from app.bots.politics import Politics
from app.bots.simulate import scenario_catalogue

FOUR = scenario_catalogue()["four_empires"]


def diplo_view(seat: int, state: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The view and legal actions of ``seat`` with the diplomatic turn passed to it (3.2)."""
    state["diplo"]["pos"] = seat
    view = engine.view(state, seat)
    return view, engine.legal_actions(state, seat)


def fresh(seed: int = 1) -> dict[str, Any]:
    state = engine.new_game("four_empires", FOUR, seed)
    assert state["phase"] == "diplomacy"
    return state


def weaken(state: dict[str, Any], victim: int, keep: int) -> None:
    """Hand all but ``keep`` of the victim's areas (never its court) to no one."""
    court = state["players"][victim]["court"]
    mine = [a for a, x in sorted(state["areas"].items()) if x["owner"] == victim and a != court]
    for a in mine[keep:]:
        state["areas"][a]["owner"] = None


def test_declares_war_on_a_weak_neighbour_worth_taking() -> None:
    state = fresh()
    me = 1  # Parthia borders Kushan on a wide front
    politics = Politics(engine.view(state, me))
    victim = max((s for s in range(6) if s != me), key=politics.border_worth)
    assert politics.border_worth(victim) >= 3
    # Not while the neighbour is about as strong as we are ...
    view, legal = diplo_view(me, state)
    action = choose_action("standard", view, legal, random.Random(0))
    assert action.get("move") != "declare_war"
    # ... but once it has lost its land away from our border, and its treasury.
    from app.bots.board import area_map

    near, _, _ = area_map()
    court = state["players"][victim]["court"]
    mine = set(politics.held(me))
    for a in politics.held(victim):
        if a != court and not (near[a] & mine):
            state["areas"][a]["owner"] = None
    state["players"][victim]["talents"] = 0
    view, legal = diplo_view(me, state)
    assert Politics(view).border_worth(victim) >= 3
    action = choose_action("standard", view, legal, random.Random(0))
    assert action == {"type": "diplo", "move": "declare_war", "power": FOUR[victim]}
    # The novice never starts a war.
    assert choose_action("novice", view, legal, random.Random(0)).get("move") != "declare_war"


def test_claims_hegemony_when_strongest_and_not_when_weak() -> None:
    state = fresh()
    for victim in range(1, 6):
        weaken(state, victim, 1)
    view, legal = diplo_view(0, state)
    assert choose_action("standard", view, legal, random.Random(0))["move"] in (
        "claim_hegemony",
        "declare_war",
    )
    assert Politics(view).score_diplo({"type": "diplo", "move": "claim_hegemony"}) > 0.5
    weak = Politics(engine.view(state, 3))
    assert weak.score_diplo({"type": "diplo", "move": "claim_hegemony"}) < 0.5


def test_threatened_power_asks_to_join_a_coalition_and_the_hegemon_accepts() -> None:
    state = fresh()
    state["relations"]["hegemons"] = [1]
    weaken(state, 2, 1)  # Kushan, weak, borders a stronger Rome/Parthia
    view, legal = diplo_view(2, state)
    politics = Politics(view)
    assert politics.threat() is not None
    join = {"type": "diplo", "move": "join", "power": FOUR[1]}
    assert join in legal
    if politics.threat() != 1:
        assert choose_action("standard", view, legal, random.Random(0)) == join
    hegemon = Politics(engine.view(state, 1))
    assert hegemon._accept_join(2)


def test_peace_follows_the_balance_of_strength() -> None:
    state = fresh()
    key = "0|1"
    state["relations"]["pairs"][key] = {"status": "war", "since": 1}
    weaken(state, 0, 0)  # Rome left with its court only: much weaker than Parthia
    weak = Politics(engine.view(state, 0))
    strong = Politics(engine.view(state, 1))
    assert weak.score_diplo({"type": "diplo", "move": "propose_peace", "power": FOUR[1]}) > 0.5
    # The strong side has nothing left to take (a court cannot be conquered: 12.16) ...
    assert strong.border_worth(0) == 0
    pointless = strong.score_diplo({"type": "diplo", "move": "propose_peace", "power": FOUR[0]})
    # ... so it ends the war, but less eagerly than the side that is losing it.
    assert 0.5 < pointless < 0.9
    # The strong side refuses peace while it has a border worth taking; the weak side takes it.
    if strong.border_worth(0) >= 1:
        assert not strong._accept_peace(0)
    assert weak._accept_peace(1)


def vote_view(
    caller: int, seat: int, scores: list[int], claims: list[int] | None = None
) -> dict[str, Any]:
    players = [
        {"power": f"p{i}", "talents": 5, "emperor": {"statures": {"diplomacy": 1}}}
        for i in range(len(scores))
    ]
    return {
        "me": {"seat": seat},
        "players": players,
        "areas": {"x": {"owner": caller, "claims": claims or [], "ties": [caller]}},
        "score": {str(i): {"total": s} for i, s in enumerate(scores)},
        "relations": {},
        "parley": {"caller": caller, "area": "x", "question": "claim"},
    }


def vote(view: dict[str, Any]) -> str:
    legal = [{"type": "vote", "choice": c} for c in ("yes", "no", "abstain")]
    return str(choose_action("standard", view, legal, random.Random(0))["choice"])


def test_votes_by_self_interest() -> None:
    assert vote(vote_view(caller=0, seat=0, scores=[5, 9, 3])) == "yes"  # for itself
    assert vote(vote_view(caller=1, seat=0, scores=[5, 9, 3])) == "no"  # against the leader
    assert vote(vote_view(caller=2, seat=0, scores=[5, 9, 3])) == "yes"  # a trailing power
    assert vote(vote_view(caller=2, seat=0, scores=[5, 9, 3], claims=[0])) == "no"  # our claim
    allied = vote_view(caller=1, seat=0, scores=[5, 9, 3])
    allied["coalitions"] = {"1": [0]}
    assert vote(allied) == "yes"  # for an ally, even the leader


def test_calls_only_the_parleys_it_can_carry() -> None:
    view = vote_view(caller=0, seat=0, scores=[9, 5, 4])  # we lead: both others vote no
    politics = Politics(view)
    assert not politics.parley_carries("x")
    assert politics.score_call_parley({"type": "call_parley", "area": "x"}) < 0
    view = vote_view(caller=0, seat=0, scores=[3, 5, 4])  # we trail: the others say yes
    assert Politics(view).parley_carries("x")


def test_exile_asks_for_asylum() -> None:
    state = fresh()
    state["players"][2]["exiled"] = True
    state["players"][2]["court"] = None
    for x in state["areas"].values():
        if x["owner"] == 2:
            x["owner"] = None
    view, legal = diplo_view(2, state)
    action = choose_action("standard", view, legal, random.Random(0))
    assert action["move"] == "ask_asylum"


def test_attacks_the_areas_of_a_power_at_war() -> None:
    state = fresh()
    view = engine.view(state, 0)
    politics = Politics(view)
    target = next(
        a for a, x in view["areas"].items() if x["owner"] == 1 and a != view["players"][1]["court"]
    )
    assert politics.target_bonus(target) == 0
    state["relations"]["pairs"]["0|1"] = {"status": "war", "since": 1}
    assert Politics(engine.view(state, 0)).target_bonus(target) > 0


def test_pays_tribute_only_when_raids_cost_more() -> None:
    state = fresh()
    # Xiongnu and Kushan border the steppe in Four Empires; a power with no frontier never pays.
    losses = [Politics(engine.view(state, s)).raid_loss() for s in range(6)]
    assert any(loss > 0 for loss in losses)
    assert any(loss == 0 for loss in losses) or min(losses) >= 0


def test_unknown_political_moves_are_passed_and_unknown_requests_refused() -> None:
    view = vote_view(caller=0, seat=0, scores=[1, 1, 1])
    legal = [
        {"type": "diplo", "move": "pass"},
        {"type": "diplo", "move": "propose_marriage", "power": "p1"},
    ]
    assert choose_action("standard", view, legal, random.Random(0))["move"] == "pass"
    legal = [
        {"type": "diplo", "move": "accept_marriage", "power": "p1"},
        {"type": "diplo", "move": "reject_marriage", "power": "p1"},
    ]
    for seed in range(5):
        assert (
            choose_action("standard", view, legal, random.Random(seed))["move"] == "reject_marriage"
        )
