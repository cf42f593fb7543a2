"""The heuristic bot: greedy on a simple evaluation of each legal action.

Each legal action gets a score in "victory-point-ish" units; the bot plays the
best one (ties broken by the bot's own RNG). The evaluation reads only the
seat's view (public board, own hand and deck odds) and, when given, the
engine's ``explain`` for that seat (rating and odds of each result).

The rules of thumb:

- use every year: draw an advisor rather than end the turn, but keep one
  year back for defense when a rival is at war with us;
- act with the advisor on the endeavour with the best expected value: the
  area's worth times the chance of success, less what the talents cost;
- petition only when the advisor in hand is poor, the next draw is likely
  good (few burdens) and the influence cost is small;
- tax safely: the amount that keeps the chance of rebellion low;
- defend valuable areas (the court, populous areas) with talents in
  proportion to their worth; decline for worthless ones;
- in diplomacy, make peace when offered, otherwise pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from app.bots.evaluate import Evaluator

Action = dict[str, Any]


# With ``explain``, only this many of the best-looking endeavours (by the cheap
# estimate) are explained: explain is exact but costs a rating computation each.
EXPLAINED_CANDIDATES = 5


def choose_heuristic(
    view: dict[str, Any],
    legal: list[Action],
    rng: random.Random,
    explain: Callable[[Action], dict[str, Any]] | None = None,
) -> Action:
    if len(legal) == 1:
        return legal[0]
    rough = Evaluator(view, None)
    scores = [rough.score(action) for action in legal]
    if explain is not None:
        exact = Evaluator(view, explain)
        explainable = [i for i, action in enumerate(legal) if action.get("type") in EXPLAINED_TYPES]
        explainable.sort(key=lambda i: -scores[i])
        for i in explainable[:EXPLAINED_CANDIDATES]:
            scores[i] = exact.score(legal[i])
        for i in explainable[EXPLAINED_CANDIDATES:]:
            scores[i] -= 1.0  # unexplained long shots go behind the explained ones
    best: list[Action] = []
    best_score = float("-inf")
    for action, score in zip(legal, scores, strict=True):
        if score > best_score + 1e-9:
            best, best_score = [action], score
        elif abs(score - best_score) <= 1e-9:
            best.append(action)
    return best[rng.randrange(len(best))]


EXPLAINED_TYPES = ("endeavour", "petition", "tax", "plunder")
