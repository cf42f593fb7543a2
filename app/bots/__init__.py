"""Bots: players that choose actions through the same engine API a browser uses.

A bot sees exactly what its seat may see: the seat's ``view`` and its
``legal_actions``. It never touches the game state. Optionally a caller may
pass ``explain``, a function ``action -> dict`` bound to the bot's own seat
(``engine.explain(state, seat, action)``), which the engine computes from the
public counter pool and the seat's own cards, so it reveals nothing a player at
that seat could not see in the UI (tests/engine_properties check this).

Levels:

- ``random``: uniform over the legal actions.
- ``heuristic``: greedy on a simple evaluation of each legal action.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from app.bots.heuristic import choose_heuristic
from app.bots.random_bot import choose_random

Action = dict[str, Any]
Explain = Callable[[Action], dict[str, Any]]

BOT_LEVELS: tuple[str, ...] = ("random", "heuristic")


class UnknownBotLevel(ValueError):
    def __init__(self, level: str) -> None:
        super().__init__(f"There is no bot level called {level!r}; choose one of {BOT_LEVELS}.")
        self.level = level


def choose_action(
    level: str,
    view: dict[str, Any],
    legal: list[Action],
    rng: random.Random,
    explain: Explain | None = None,
) -> Action:
    """Pick one of ``legal`` for the seat whose ``view`` this is.

    Always returns an element of ``legal`` (the very same dict). Raises
    ``ValueError`` when ``legal`` is empty: a bot is only asked when its seat is
    prompted, and the engine lists at least one action for a prompted seat.
    """
    if not legal:
        raise ValueError("a bot was asked to act with no legal action")
    if level == "random":
        return choose_random(legal, rng)
    if level == "heuristic":
        return choose_heuristic(view, legal, rng, explain)
    raise UnknownBotLevel(level)


__all__ = ["BOT_LEVELS", "Action", "Explain", "UnknownBotLevel", "choose_action"]
