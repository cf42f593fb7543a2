"""A Standard bot does not make an offer again, in the same game turn, to a power that
refused it (issue 26: "the same offer again the same second after it was refused").
Four Empires, five Standard bots and one seat that refuses every offer, as a person who
does not want to deal would."""

from __future__ import annotations

import random
from typing import Any, cast

from app import engine
from app.bots import choose_action

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
