"""Play a teaching game to its end through the services (a person choosing at random
against a bot), for the tests that look at a finished game."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.realtime.bots import drain
from app.services import moves, play


def play_to_the_end(
    factory: sessionmaker[Session], game_id: int, user_id: int, seed: int = 3
) -> None:
    rng = random.Random(seed)
    drain(factory, game_id)  # the bot worker's moves, here without a server
    for step in range(3000):
        with factory() as db:
            view: dict[str, Any] = play.seat_view(db, game_id, user_id)
            if view["status"] != "active":
                return
            action = rng.choice(view["legal_actions"])
            moves.submit_action(db, game_id, user_id, action, view["version"], f"k{step}")
            db.commit()
        drain(factory, game_id)
    raise AssertionError("the game did not end")
