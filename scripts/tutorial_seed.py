"""Find a seed for the tutorial: the coach's path (app/services/tutorial.py
``coach_choice``) against the heuristic bot must meet every situation.

    python scripts/tutorial_seed.py [first_seed] [how_many]

Prints, per seed tried, the situations met and the number of decisions the player
makes; the first seed meeting all of them is printed last.
"""

from __future__ import annotations

import random
import sys
from functools import partial
from typing import Any

from app import bots, engine
from app.services import tutorial


def play(seed: int, limit: int = 3000) -> tuple[set[str], int, bool, list[str]]:
    state = engine.new_game(tutorial.SCENARIO, list(tutorial.POWERS), seed, dict(tutorial.OPTIONS))
    seen: set[str] = set()
    decisions = 0
    order: list[str] = []
    for actions in range(limit):
        if engine.outcome(state) is not None:
            return seen, decisions, True, order
        prompts = engine.pending(state)
        if not prompts:
            break
        seat = prompts[0]["seat"]
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        if seat == 0:
            before = set(seen)
            action: Any = tutorial.coach_choice(view, legal, seen)
            order += sorted(seen - before)
            decisions += 1
        else:
            # the same per-step seed the server's bots use (app/services/play.py)
            rng = random.Random(f"{seed}:{actions}")
            action = bots.choose_action(
                tutorial.BOT, view, legal, rng, partial(engine.explain, state, seat)
            )
        state, _ = engine.apply(state, seat, action)
        strikes = int((engine.view(state, 0).get("me") or {}).get("strikes") or 0)
        if seat == 0 and strikes >= 2 and "petition_bust" not in seen:
            seen.add("petition_bust")
            order.append("petition_bust")
    return seen, decisions, engine.outcome(state) is not None, order


def main() -> None:
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    best = None
    for seed in range(first, first + count):
        seen, n, over, order = play(seed)
        missing = set(tutorial.SITUATIONS) - seen
        print(seed, n, over, "missing:", sorted(missing), order, flush=True)
        if not missing and over:
            best = seed
            break
    print("seed:", best)


if __name__ == "__main__":
    main()
