"""Standing orders: validated, they pick only legal actions, and the server answers a
matching prompt the moment it arises (logged with source ``order``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.engine.content import content
from app.services import absence, orders, play
from app.services.errors import Invalid
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game
from tests.games import two_person_game_at


def peace_offer_state(seat: int = 0, tries: int = 80) -> dict[str, Any]:
    """A real teaching-game state, reached by random play, where `seat` is offered peace."""
    for seed in range(tries):
        state = engine.new_game("teaching", ["kushan", "han"], seed)
        rng = random.Random(seed)
        for _ in range(400):
            if engine.outcome(state) is not None:
                break
            prompt = engine.pending(state)[0]
            legal = engine.legal_actions(state, prompt["seat"])
            if (
                prompt["kind"] == "request"
                and prompt["seat"] == seat
                and any(a.get("move") == "accept_peace" for a in legal)
            ):
                return state
            state, _ = engine.apply(state, prompt["seat"], rng.choice(legal))
    pytest.skip(f"random play never offered peace to seat {seat}")


def test_validate() -> None:
    assert orders.validate({}) is None
    assert orders.validate({"defend": {"mode": "decline"}, "vote": "no"}) == {
        "defend": {"mode": "decline"},
        "vote": "no",
    }
    clean = orders.validate({"defend": {"mode": "defend", "min_population": "2", "max_talents": 3}})
    assert clean == {"defend": {"mode": "defend", "min_population": 2, "max_talents": 3}}
    for bad, field in [
        ({"defend": {"mode": "hide"}}, "defend"),
        ({"defend": {"mode": "defend", "min_population": 9}}, "defend"),
        ({"vote": "maybe"}, "vote"),
        ({"peace": "later"}, "peace"),
        ({"bribe": 3}, "orders"),
    ]:
        with pytest.raises(Invalid) as caught:
            orders.validate(bad)
        assert caught.value.extra["field"] == field


def test_defend_orders_follow_population_and_talents() -> None:
    areas = {a["population"]: a["id"] for a in content()["areas"]}
    legal = [{"type": "defend", "talents": t} for t in range(4)] + [{"type": "decline"}]
    order = {"defend": {"mode": "defend", "min_population": 2, "max_talents": 2}}
    big = {"seat": 0, "kind": "defend", "area": areas[3]}
    small = {"seat": 0, "kind": "defend", "area": areas[1]}
    assert orders.order_action(order, big, legal) == {"type": "defend", "talents": 2}
    assert orders.order_action(order, small, legal) == {"type": "decline"}
    assert orders.order_action({"defend": {"mode": "decline"}}, big, legal) == {"type": "decline"}
    # Nothing outside the legal list, ever: with no decline offered, the person decides.
    assert orders.order_action({"defend": {"mode": "decline"}}, big, legal[:-1]) is None
    assert orders.order_action(None, big, legal) is None
    assert orders.order_action({"vote": "yes"}, big, legal) is None


def test_orders_on_real_engine_prompts() -> None:
    state = peace_offer_state()
    prompt = engine.pending(state)[0]
    legal = engine.legal_actions(state, 0)
    for choice in ("accept", "reject"):
        action = orders.order_action({"peace": choice}, prompt, legal)
        assert action in legal and action is not None
        assert action["move"] == f"{choice}_peace"
    # Orders for other kinds of prompt do not answer this one.
    assert (
        orders.order_action({"vote": "yes", "defend": {"mode": "decline"}}, prompt, legal) is None
    )


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def test_the_server_answers_a_pending_prompt_when_orders_are_given(
    factory: sessionmaker[Session],
) -> None:
    # Test setup: the table in a real state where Alice is offered peace.
    gid, version, alice, _bob = two_person_game_at(factory, peace_offer_state())
    with factory() as db:
        assert [p["kind"] for p in play.seat_view(db, gid, alice.id)["prompts"]] == ["request"]
    with factory() as db:
        game = absence.set_orders(db, gid, alice.id, {"peace": "reject", "vote": "abstain"})
        db.commit()
        logged = db.scalars(select(Action).where(Action.game_id == gid)).all()
        assert [(a.source, a.action.get("move")) for a in logged][:1] == [("order", "reject_peace")]
        # What follows, if anything, is no choice at all (tests/platform/test_forced_moves.py).
        assert all(a.source == "forced" for a in logged[1:])
        assert game.version == version + len(logged)
        view = play.seat_view(db, gid, alice.id)
        assert all(p["kind"] != "request" or p["seat"] != 0 for p in view["prompts"])
    # Clearing the orders: the person decides again.
    with factory() as db:
        absence.set_orders(db, gid, alice.id, None)
        db.commit()
        seat = next(s for s in db.get(Game, gid).seats if s.user_id == alice.id)  # type: ignore[union-attr]
        assert seat.standing_orders is None


def test_orders_over_http(live_server: Any, new_player: Any) -> None:
    alice = new_player(live_server)
    gid = alice.create_game()["id"]
    assert alice.start(gid).status_code == 200
    r = alice.http.put(
        f"/api/games/{gid}/orders",
        json={"defend": {"mode": "defend", "min_population": 2, "max_talents": 1}, "vote": "no"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["orders"]["defend"]["max_talents"] == 1
    assert alice.http.get(f"/api/games/{gid}/orders").json()["orders"]["vote"] == "no"
    r = alice.http.put(f"/api/games/{gid}/orders", json={"vote": "maybe"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "vote"]
    page = alice.http.get(f"/games/{gid}/orders")
    assert page.status_code == 200 and 'value="defend" checked' in page.text
    stranger = new_player(live_server)
    assert stranger.http.put(f"/api/games/{gid}/orders", json={}).status_code == 403
