"""Bundles that cede an area or a claim (issue 42): a claim is worth most to the power
best placed to take its area (``Grand.claim_worth``), so it is handed towards that power;
an area a bot claims is bought with a pact or its pledged votes as well as talents; and a
bot winning a war asks an area for peace."""

from __future__ import annotations

from typing import Any

from app import engine
from app.bots import bundles
from app.bots.board import area_map
from app.bots.grand import CLAIM_OWNED_VALUE, Grand
from app.bots.politics import Politics
from app.bots.simulate import scenario_catalogue

FOUR = scenario_catalogue()["four_empires"]
ROME, KUSHAN, HAN = 0, 2, 3  # Rome borders Kushan; Han borders neither


def _fresh() -> dict[str, Any]:
    state = engine.new_game("four_empires", FOUR, 1)
    state["diplo"]["pos"] = ROME
    return state


def _grand(state: dict[str, Any], seat: int) -> Grand:
    return Grand(Politics(engine.view(state, seat)))


def _template(state: dict[str, Any], seat: int, other: int) -> dict[str, Any]:
    power = state["players"][other]["power"]
    for action in engine.legal_actions(state, seat):
        if action.get("type") == "offer" and action.get("power") == power:
            return dict(action["template"])
    raise AssertionError(f"no offer listed to {power}")


def _owned(state: dict[str, Any], seat: int) -> set[str]:
    return {a for a, x in state["areas"].items() if x["owner"] == seat}


def test_a_claim_is_worth_most_to_the_power_best_placed_to_take_its_area() -> None:
    state = _fresh()
    near, _, _ = area_map()
    rome, han = _grand(state, ROME), _grand(state, HAN)
    mine = _owned(state, ROME)
    assert rome.claim_worth(sorted(mine)[0]) == CLAIM_OWNED_VALUE
    free = sorted(
        a
        for a, x in state["areas"].items()
        if x["owner"] is None and near[a] & mine and not near[a] & _owned(state, HAN)
    )
    assert free
    for area in free:
        assert 0 < han.claim_worth(area) < rome.claim_worth(area) < CLAIM_OWNED_VALUE
    # The more of Rome's areas border it, the likelier Rome takes it.
    by_border = sorted(free, key=lambda a: len(near[a] & mine))
    assert rome.claim_worth(by_border[0]) <= rome.claim_worth(by_border[-1])


def test_a_claim_is_asked_of_a_holder_who_values_it_less() -> None:
    state = _fresh()
    near, _, _ = area_map()
    mine, hans = _owned(state, ROME), _owned(state, HAN)
    asked = 0
    for area in sorted(a for a, x in state["areas"].items() if x["owner"] is None):
        if not near[area] & mine or near[area] & hans:
            continue
        before = state["areas"][area]["claims"]
        state["areas"][area]["claims"] = [HAN]  # Han's claim, beside Rome, far from Han
        tpl = _template(state, ROME, HAN)
        if area in tpl["get"]["claims"] and set(tpl["get"]["claims"]) == {area}:
            cands = bundles.candidates(_grand(state, ROME), HAN, tpl)
            assert any(area in get["claims"] for _, get, _, _ in cands)
            asked += 1
        state["areas"][area]["claims"] = before
    assert asked


def test_an_area_a_bot_claims_is_bought_with_a_pact_or_its_votes() -> None:
    state = _fresh()
    near, _, _ = area_map()
    court = state["players"][KUSHAN]["court"]
    border = sorted(
        a for a in _owned(state, KUSHAN) if a != court and near[a] & _owned(state, ROME)
    )
    assert border
    area = border[0]
    state["areas"][area]["claims"] = [ROME]
    state["players"][ROME]["talents"] = 0  # nothing to pay an area's price with
    tpl = _template(state, ROME, KUSHAN)
    cands = bundles.candidates(_grand(state, ROME), KUSHAN, tpl)
    bought = [(give, terms) for give, get, terms, _ in cands if get["areas"] == [area]]
    assert ([] in [t for _, t in bought]) and (["non_aggression"] in [t for _, t in bought])
    assert any(give["votes"] for give, _ in bought)


def test_a_bot_winning_a_war_asks_an_area_for_peace() -> None:
    state = _fresh()
    state["relations"]["pairs"]["0|2"] = {"status": "war", "since": 1}
    court = state["players"][KUSHAN]["court"]
    near, _, _ = area_map()
    # Kushan keeps its court and the areas beside Rome; the rest goes to no one.
    for a in sorted(_owned(state, KUSHAN)):
        if a != court and not near[a] & _owned(state, ROME):
            state["areas"][a]["owner"] = None
    rome = _grand(state, ROME)
    assert rome.pol.bloc_strength(ROME) > rome.pol.bloc_strength(KUSHAN)
    tpl = _template(state, ROME, KUSHAN)
    cands = bundles.candidates(rome, KUSHAN, tpl)
    asked = [get["areas"] for _, get, terms, _ in cands if terms == ["peace"] and get["areas"]]
    assert asked and all(a[0] in _owned(state, KUSHAN) and a[0] != court for a in asked)
