"""The heuristic bot's rules of thumb, on hand-made views shaped like engine views."""

from __future__ import annotations

import random
from typing import Any

from app.bots import choose_action
from app.bots.evaluate import success_probability


def view(**me: Any) -> dict[str, Any]:
    return {
        "players": [
            {"power": "kushan", "talents": 6, "influence": 3, "court": "bactria"},
            {"power": "han", "talents": 6, "influence": 3, "court": "luoyang"},
        ],
        "areas": {
            "bactria": {"owner": 0, "unrest": 0, "social": 1},
            "sogdiana": {"owner": None, "unrest": 0, "social": 0},
            "gandhara": {"owner": 0, "unrest": 3, "social": 0},
            "luoyang": {"owner": 1, "unrest": 0, "social": 2},
        },
        "me": {"seat": 0, "petition_cost": 1, "strikes": 0, "draw_odds": {"burden": 0.1}, **me},
        "market": {"row": []},
        "relations": {},
    }


def pick(v: dict[str, Any], legal: list[dict[str, Any]], explain: Any = None) -> dict[str, Any]:
    return choose_action("heuristic", v, legal, random.Random(0), explain)


def test_uses_its_years_rather_than_ending_the_turn() -> None:
    assert pick(view(), [{"type": "end_turn"}, {"type": "draw"}]) == {"type": "draw"}


def test_acts_with_a_good_advisor_rather_than_dismissing_it() -> None:
    legal = [
        {"type": "dismiss"},
        {
            "type": "endeavour",
            "kind": "conquest",
            "base": "bactria",
            "target": "sogdiana",
            "talents": 2,
        },
    ]
    assert pick(view(), legal)["type"] == "endeavour"


def test_petitions_only_when_the_odds_are_good() -> None:
    legal = [{"type": "dismiss"}, {"type": "petition"}]
    assert pick(view(draw_odds={"burden": 0.05}), legal)["type"] == "petition"
    risky = view(draw_odds={"burden": 0.6}, strikes=1)
    assert pick(risky, legal)["type"] == "dismiss"
    dear = view(petition_cost=4)
    assert pick(dear, legal)["type"] == "dismiss"


def test_taxes_an_area_less_when_it_is_restless() -> None:
    legal = [{"type": "tax", "area": "sogdiana", "amount": n} for n in range(4)]
    calm = view()
    restless = view()
    restless["areas"]["sogdiana"]["unrest"] = 3
    assert pick(calm, legal)["amount"] > pick(restless, legal)["amount"]


def test_defends_its_court_but_not_with_everything_for_a_trifle() -> None:
    v = view()
    v["interrupt"] = {"area": "bactria", "attacker": 1}
    legal = [{"type": "decline"}] + [{"type": "defend", "talents": n} for n in range(4)]
    assert pick(v, legal)["type"] == "defend"


def test_prefers_the_endeavour_with_better_odds_when_explain_is_given() -> None:
    legal = [
        {
            "type": "endeavour",
            "kind": "conquest",
            "base": "bactria",
            "target": "sogdiana",
            "talents": 1,
        },
        {
            "type": "endeavour",
            "kind": "conquest",
            "base": "bactria",
            "target": "gandhara",
            "talents": 1,
        },
    ]

    def explain(action: dict[str, Any]) -> dict[str, Any]:
        p = 0.9 if action["target"] == "sogdiana" else 0.1
        return {"odds": {"C": p, "none": 1 - p}}

    assert pick(view(), legal, explain)["target"] == "sogdiana"


def test_success_probability_reads_result_odds() -> None:
    assert success_probability({"p_success": 0.25}) == 0.25
    assert success_probability({"odds": {"C": 0.3, "none": 0.5, "-1B": 0.2}}) == 0.3
    got = success_probability(
        {"results": [{"result": "T", "p": 0.5}, {"result": "none", "p": 0.5}]}
    )
    assert got == 0.5
    assert success_probability({}) is None
