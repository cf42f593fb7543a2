"""A Standard bot does not make an offer again, in the same game turn, to a power that
refused it (issue 26: "the same offer again the same second after it was refused").
Four Empires, five Standard bots and one seat that refuses every offer, as a person who
does not want to deal would."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest

from app import engine
from app.bots import choose_action, strong
from app.bots.strong import Budget

POWERS = ["rome", "parthia", "kushan", "han", "xiongnu", "satavahana"]
REFUSER = 3  # Han: the strongest, the one the others court


def test_a_refused_bot_does_not_offer_again_that_game_turn() -> None:
    state = engine.new_game("four_empires", POWERS, 1)
    rng = random.Random(1)
    refused: set[tuple[int, int, int]] = set()
    offers: list[tuple[int, int, int]] = []
    repeats: list[tuple[int, int, int]] = []
    last: tuple[int, int] | None = None
    for _ in range(4000):
        if engine.outcome(state) is not None:
            break
        seat = engine.pending(state)[0]["seat"]
        legal = engine.legal_actions(state, seat)
        if seat == REFUSER and any(a["type"] == "answer_offer" for a in legal):
            action: dict[str, Any] = {"type": "answer_offer", "answer": "refuse"}
        else:
            view = cast(dict[str, Any], engine.seat_view(state, seat))
            action = choose_action("standard", view, legal, rng)
        if action["type"] == "offer":
            other = next(i for i, p in enumerate(state["players"]) if p["power"] == action["power"])
            offers.append((seat, other, state["turn"]))
            if offers[-1] in refused:
                repeats.append(offers[-1])
            last = (seat, other)
        elif action == {"type": "answer_offer", "answer": "refuse"}:
            assert last is not None
            refused.add((*last, state["turn"]))
        state, _ = engine.apply(state, seat, action)
    assert engine.outcome(state) is not None
    assert refused, "nobody was refused: the game no longer tests anything"
    # (before the memory, seed 1 made 13 offers to Han, 10 of them after a refusal)
    assert repeats == []


def test_the_strong_bot_does_not_search_an_offer_its_rules_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Strong bot searches the Standard bot's best few choices; an offer to a power
    that refused it this game turn is not among them (issue 27, 20.14), though a search
    may find asking again harmless. Teaching game: the Strong bot against a seat that
    refuses every offer."""
    refuser = 1  # Han; the Strong bot plays Kushan
    state = engine.new_game("teaching", ["kushan", "han"], 5)
    rng = random.Random(5)
    budget = Budget(iterations=3, seconds=5.0, candidates=5, horizon=6, clock="cpu")
    refused: set[int] = set()  # the game turns Han refused the Strong bot in
    offers, repeats = 0, 0
    searched: list[dict[str, Any]] = []  # the new offers the Strong bot's search tried
    barred_searched: list[dict[str, Any]] = []
    real_step = strong.search_step.step

    def step(world: dict[str, Any], seat: int, action: dict[str, Any]) -> Any:
        if seat != refuser and action["type"] == "offer" and not world["grand"].get("offer"):
            searched.append(action)
            if state["turn"] in refused:
                barred_searched.append(action)
        return real_step(world, seat, action)

    monkeypatch.setattr(strong.search_step, "step", step)
    for _ in range(1500):
        if engine.outcome(state) is not None:
            break
        seat = engine.pending(state)[0]["seat"]
        legal = engine.legal_actions(state, seat)
        if seat == refuser:
            if any(a["type"] == "answer_offer" for a in legal):
                action: dict[str, Any] = {"type": "answer_offer", "answer": "refuse"}
                refused.add(state["turn"])
            else:
                view = cast(dict[str, Any], engine.seat_view(state, seat))
                action = choose_action("standard", view, legal, rng)
                if action["type"] == "offer":  # the refuser makes none of its own
                    action = next(a for a in legal if a["type"] != "offer")
        else:
            view = cast(dict[str, Any], engine.seat_view(state, seat))
            action = choose_action("strong", view, legal, rng, state=state, budget=budget)
            if action["type"] == "offer" and not (state.get("grand") or {}).get("offer"):
                offers += 1
                repeats += state["turn"] in refused
        state, _ = engine.apply(state, seat, action)
    assert refused, "nobody was refused: the game no longer tests anything"
    assert offers and searched, "the Strong bot searched no offer: nothing is tested"
    assert repeats == 0
    assert barred_searched == [], "the search tried an offer its rules bar"
