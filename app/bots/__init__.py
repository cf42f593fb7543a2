"""Bots: players that choose actions through the same engine API a browser uses.

A bot sees exactly what its seat may see: the seat's ``view`` and its
``legal_actions``. Optionally a caller may pass ``explain``, a function
``action -> dict`` bound to the bot's own seat (``engine.explain(state, seat,
action)``), which the engine computes from the public counter pool and the
seat's own cards, so it reveals nothing a player at that seat could not see in
the UI (tests/engine_properties check this).

Levels (ids, names and descriptions in ``app/bots/levels.py``):

- ``novice``: the standard evaluation, never aggressive, with slips;
- ``standard`` (old id ``heuristic``): greedy on the evaluation of each legal
  action, economy and politics (``evaluate.py``, ``politics.py``);
- ``strong``: information-set Monte Carlo search (``strong.py``). It needs the
  game ``state`` to sample worlds from, but re-deals every hidden part before it
  reads anything (so it knows only what the view shows); without a state it
  plays as ``standard``;
- ``random``: uniform over the legal actions (a baseline for tests);
- ``silent``: the standard bot that never offers nor counters (an ablation);
- ``strong_silent``: the strong bot that never offers nor counters (the same ablation).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from app.bots.answers import with_reason
from app.bots.heuristic import choose_heuristic, choose_novice
from app.bots.levels import ALL_LEVELS, canonical
from app.bots.random_bot import choose_random
from app.bots.strong import choose_strong

Action = dict[str, Any]
Explain = Callable[[Action], dict[str, Any]]

# Every accepted id: the earlier ids first (they keep working), then the lobby's.
BOT_LEVELS: tuple[str, ...] = ("random", "heuristic") + tuple(
    level for level in ALL_LEVELS if level not in ("random", "heuristic")
)


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
    state: dict[str, Any] | None = None,
    budget: Any = None,
    temperament: str | None = None,
) -> Action:
    """Pick one of ``legal`` for the seat whose ``view`` this is.

    Returns an element of ``legal`` (the very same dict), a concrete offer
    fitting a listed offer template (``engine.offer_fits``, rules 20.14), or a listed
    refusal of an offer with the bot's reason added (``answers.with_reason``: every
    level but ``random`` says why it refuses, 20.14). Raises
    ``ValueError`` when ``legal`` is empty: a bot is only asked when its seat is
    prompted, and the engine lists at least one action for a prompted seat.
    ``state`` (the whole game state) is used by ``strong`` only, and only through
    ``strong.determinize``; ``budget`` is a ``strong.Budget``. ``temperament`` is the
    seat's (``temperament.temperament_for(seed, seat)``; None plays a neutral one).
    """
    if not legal:
        raise ValueError("a bot was asked to act with no legal action")
    level = canonical(level)
    if level == "random":
        return choose_random(legal, rng)
    action = _choose(level, view, legal, rng, explain, state, budget, temperament)
    return with_reason(view, action, temperament if level != "novice" else None)


def _choose(
    level: str,
    view: dict[str, Any],
    legal: list[Action],
    rng: random.Random,
    explain: Explain | None,
    state: dict[str, Any] | None,
    budget: Any,
    temperament: str | None,
) -> Action:
    """`choose_action` for the levels that judge (all but ``random``)."""
    if level == "standard":
        return choose_heuristic(view, legal, rng, explain, temperament)
    if level == "silent":
        return choose_heuristic(view, legal, rng, explain, temperament, offers=False)
    if level == "novice":
        return choose_novice(view, legal, rng, explain)
    if level in ("strong", "strong_silent"):
        offers = level == "strong"
        seat = (view.get("me") or {}).get("seat")
        if state is None or not isinstance(seat, int):
            return choose_heuristic(view, legal, rng, explain, temperament, offers)
        return choose_strong(state, seat, view, legal, rng, explain, budget, temperament, offers)
    raise UnknownBotLevel(level)


__all__ = ["BOT_LEVELS", "Action", "Explain", "UnknownBotLevel", "choose_action"]
