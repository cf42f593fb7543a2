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
- in politics, follow ``politics.py``: war on weak neighbours, hegemony when
  strongest, coalitions when threatened, peace by the balance of strength,
  votes by self-interest.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from app.bots.evaluate import Evaluator
from app.bots.politics import finish

Action = dict[str, Any]


# With ``explain``, only this many of the best-looking endeavours (by the cheap
# estimate) are explained: explain is exact but costs a rating computation each.
EXPLAINED_CANDIDATES = 5


def score_actions(
    view: dict[str, Any],
    legal: list[Action],
    explain: Callable[[Action], dict[str, Any]] | None = None,
    aggressive: bool = True,
    temperament: str | None = None,
) -> list[float]:
    """The standard evaluation of every legal action (same order as ``legal``)."""
    rough = Evaluator(view, None, aggressive, temperament)
    scores = [rough.score(action) for action in legal]
    if explain is not None:
        exact = Evaluator(view, explain, aggressive, temperament)
        exact._politics = rough._politics
        explainable = [i for i, action in enumerate(legal) if action.get("type") in EXPLAINED_TYPES]
        explainable.sort(key=lambda i: -scores[i])
        for i in explainable[:EXPLAINED_CANDIDATES]:
            scores[i] = exact.score(legal[i])
        for i in explainable[EXPLAINED_CANDIDATES:]:
            scores[i] -= 1.0  # unexplained long shots go behind the explained ones
    return scores


# Diplomatic choices within this much of the best are near-equal: the bot draws
# among them with its seeded RNG, so that games differ (same seed, same game).
NEAR_EQUAL = 0.15
DIPLOMATIC_TYPES = ("diplo", "offer", "renounce")


def _open_choice(action: Action) -> bool:
    """A diplomatic move of the bot's own (not its answer to a proposal, which follows
    its judgement alone)."""
    if action.get("type") not in DIPLOMATIC_TYPES:
        return False
    move = str(action.get("move") or "")
    return not move.startswith(("accept_", "reject_"))


def rank_heuristic(
    view: dict[str, Any],
    legal: list[Action],
    rng: random.Random,
    explain: Callable[[Action], dict[str, Any]] | None = None,
    temperament: str | None = None,
) -> list[int]:
    """Indices of ``legal``, best first; the first is what ``choose_heuristic`` plays."""
    if len(legal) == 1:
        return [0]
    scores = score_actions(view, legal, explain, temperament=temperament)
    best_score = max(scores)
    margin = 1e-9
    top = next(i for i, score in enumerate(scores) if score == best_score)
    if _open_choice(legal[top]):
        margin = NEAR_EQUAL
    best = [
        i
        for i, score in enumerate(scores)
        if best_score - score <= margin and (margin < 1e-6 or _open_choice(legal[i]))
    ]
    first = best[rng.randrange(len(best))]
    rest = sorted((i for i in range(len(legal)) if i != first), key=lambda i: -scores[i])
    return [first, *rest]


def choose_heuristic(
    view: dict[str, Any],
    legal: list[Action],
    rng: random.Random,
    explain: Callable[[Action], dict[str, Any]] | None = None,
    temperament: str | None = None,
    offers: bool = True,
) -> Action:
    """The standard bot's choice; with ``offers=False`` (the no-offer ablation,
    ``silent``) it never makes an offer or a counter (20.14-20.15)."""
    if len(legal) == 1:
        return legal[0]
    if not offers:
        kept = [a for a in legal if a.get("type") != "offer"]
        legal = kept or legal
        if len(legal) == 1:
            return legal[0]
    ranked = rank_heuristic(view, legal, rng, explain, temperament)
    return finish(view, legal[ranked[0]], temperament)  # 20.14


# The novice: plays a good action most of the time, a random reasonable one now and then.
NOVICE_SLIP = 0.3


def choose_novice(
    view: dict[str, Any],
    legal: list[Action],
    rng: random.Random,
    explain: Callable[[Action], dict[str, Any]] | None = None,
) -> Action:
    """A gentle opponent: the standard evaluation without aggression (no wars,
    peace always taken), and with a slip now and then to one of its three best
    non-losing options. It never plays an action the evaluation thinks harmful
    when a harmless one exists, so it is weak, not silly."""
    if len(legal) == 1:
        return legal[0]
    scores = score_actions(view, legal, explain, aggressive=False)
    order = sorted(range(len(legal)), key=lambda i: -scores[i])
    if rng.random() < NOVICE_SLIP:
        sensible = [i for i in order[:3] if scores[i] >= 0.0] or order[:1]
        return legal[sensible[rng.randrange(len(sensible))]]
    best_score = scores[order[0]]
    best = [i for i in order if abs(scores[i] - best_score) <= 1e-9]
    return legal[best[rng.randrange(len(best))]]


EXPLAINED_TYPES = ("endeavour", "petition", "tax", "plunder")
