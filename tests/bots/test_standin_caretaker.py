"""A stand-in keeps an absent person's seat; it does not trade it (issue 26: "the stand-in
signed an agreement giving away 14 of her talents"). It refuses the offers made to her
(20.14), makes none and ends none of her agreements (20.3, 20.44)."""

from __future__ import annotations

import random
from typing import Any, cast

from app import engine
from app.bots import choose_action
from app.services import moves, standins
from app.store.models import Game, Seat

POWERS = ["rome", "parthia", "kushan", "han", "xiongnu", "satavahana"]


def _first_offer_answer(seed: int) -> tuple[dict[str, Any], int]:
    """Standard bots play Four Empires until some seat must answer an offer (20.14)."""
    state = engine.new_game("four_empires", POWERS, seed)
    rng = random.Random(seed)
    for _ in range(4000):
        assert engine.outcome(state) is None, "no offer was made: the test tests nothing"
        seat = engine.pending(state)[0]["seat"]
        legal = engine.legal_actions(state, seat)
        if any(a["type"] == "answer_offer" for a in legal):
            return state, seat
        view = cast(dict[str, Any], engine.seat_view(state, seat))
        state, _ = engine.apply(state, seat, choose_action("standard", view, legal, rng))
    raise AssertionError("no offer in 4000 moves")


def test_caretaker_keeps_the_board_and_drops_what_binds() -> None:
    legal = [
        {"type": "answer_offer", "answer": "accept"},
        {"type": "answer_offer", "answer": "refuse"},
        {"type": "offer", "power": "han", "terms": []},
    ]
    assert standins.caretaker(legal) == [{"type": "answer_offer", "answer": "refuse"}]
    board = [
        {"type": "pass"},
        {"type": "offer", "power": "han"},
        {"type": "cancel", "agreement": 1},
    ]
    assert standins.caretaker(board) == [{"type": "pass"}]
    only = [{"type": "renounce", "agreement": 2}]
    assert standins.caretaker(only) == only  # never leaves the seat without a move


def test_a_standin_refuses_an_offer_a_bot_seat_would_weigh() -> None:
    state, index = _first_offer_answer(1)
    game = Game(seed=1, last_action=0)
    standin = Seat(index=index, bot_level=None, standin="standard")
    bot = Seat(index=index, bot_level="standard", standin=None)
    refuse = {"type": "answer_offer", "answer": "refuse"}
    # The seat's own bot weighs it: it takes it or counters it (20.14), it does not refuse.
    weighed = moves.bot_action(game, state, bot)
    assert weighed != refuse
    assert weighed.get("answer") == "accept" or weighed["type"] == "offer", weighed
    engine.check(state, index, weighed)
    action = moves.bot_action(game, state, standin)
    # Issue 40: a refusal says why (20.14); the stand-in's reason is its own, not the bot's.
    assert {k: v for k, v in action.items() if k != "reason"} == refuse
    assert action["reason"] == moves.CARETAKER_REASON
    engine.check(state, index, action)  # and it is legal (20.14)
