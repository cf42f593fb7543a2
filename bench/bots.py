"""Bot think time: per decision, p50 and p99 per level, and the search's speed.

    python bench/bots.py [--scenario S] [--decisions N] [--levels novice,standard,strong]
                         [--iterations I] [--seconds T] [--seed K] [--json]

Plays one game of ``--scenario`` (default: the largest, the one with the most
seats and game turns) with standard bots, and at ``--decisions`` points of it
spread over the game (a real choice: two or more legal actions) times every
level's ``choose_action`` on the same state, with ``explain`` bound to the seat as
the server gives it. Prints p50 / p99 / max think time per level, and for the
strong bot its search iterations (determinizations) per second, rollouts per
second and simulated actions (candidate moves and rollout moves) per second. Asserts nothing (timing is the
machine's business); every figure is wall clock (``time.perf_counter``) on one
process, with the number of decisions it came from.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import engine  # noqa: E402
from app.bots import choose_action, strong  # noqa: E402
from app.bots.heuristic import choose_heuristic  # noqa: E402
from app.bots.simulate import scenario_catalogue  # noqa: E402
from app.bots.strong import Budget  # noqa: E402
from app.engine.content import content  # noqa: E402


def largest_scenario() -> str:
    pack = {s["id"]: s for s in content().get("scenarios", [])}
    catalogue = scenario_catalogue()
    return max(catalogue, key=lambda s: (len(catalogue[s]), int(pack[s].get("turns", 0)), s))


def decision_points(scenario: str, seed: int, wanted: int) -> list[tuple[dict[str, Any], int]]:
    """``wanted`` states of a standard game, spread evenly, each with a real choice."""
    powers = scenario_catalogue()[scenario]
    state = engine.new_game(scenario, powers, seed)
    rng = random.Random(seed)
    points: list[tuple[dict[str, Any], int]] = []
    while engine.outcome(state) is None:
        seat = int(engine.pending(state)[0]["seat"])
        legal = engine.legal_actions(state, seat)
        if len(legal) >= 2:
            points.append((state, seat))
        state, _ = engine.apply(state, seat, choose_heuristic(engine.view(state, seat), legal, rng))
    step = max(1, len(points) // wanted)
    return points[::step][:wanted]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=None)
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--levels", default="novice,standard,strong")
    parser.add_argument("--iterations", type=int, default=Budget.iterations)
    parser.add_argument("--seconds", type=float, default=Budget.seconds)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    scenario = args.scenario or largest_scenario()
    budget = Budget(iterations=args.iterations, seconds=args.seconds)
    points = decision_points(scenario, args.seed, args.decisions)
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    times: dict[str, list[float]] = {level: [] for level in levels}
    iterations = rollouts = steps = 0
    search_seconds = 0.0
    searched = 0
    for index, (state, seat) in enumerate(points):
        view = engine.view(state, seat)
        legal = engine.legal_actions(state, seat)
        explain = partial(engine.explain, state, seat)
        for level in levels:
            rng = random.Random(index)
            start = time.perf_counter()
            choose_action(level, view, legal, rng, explain, state=state, budget=budget)
            times[level].append(time.perf_counter() - start)
            if level == "strong" and strong.LAST.searched:
                searched += 1
                iterations += strong.LAST.iterations
                rollouts += strong.LAST.rollouts
                steps += strong.LAST.steps
                search_seconds += strong.LAST.seconds
    result: dict[str, Any] = {
        "scenario": scenario,
        "decisions": len(points),
        "budget": budget.__dict__,
        "levels": {
            level: {
                "p50_s": round(percentile(values, 0.5), 6),
                "p99_s": round(percentile(values, 0.99), 6),
                "max_s": round(max(values), 6) if values else 0.0,
                "mean_s": round(statistics.fmean(values), 4) if values else 0.0,
            }
            for level, values in times.items()
        },
    }
    if "strong" in levels:
        result["search"] = {
            "decisions_searched": searched,
            "iterations_per_s": round(iterations / search_seconds, 2) if search_seconds else 0.0,
            "rollouts_per_s": round(rollouts / search_seconds, 2) if search_seconds else 0.0,
            "actions_per_s": round(steps / search_seconds, 1) if search_seconds else 0.0,
            "mean_iterations_per_decision": round(iterations / searched, 2) if searched else 0.0,
        }
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"{scenario}: {len(points)} decisions, strong budget {result['budget']}")
    for level, row in result["levels"].items():
        print(
            f"  {level:<9} p50 {row['p50_s'] * 1000:8.2f} ms   p99 {row['p99_s'] * 1000:8.2f} ms"
            f"   max {row['max_s'] * 1000:8.1f} ms"
        )
    if "search" in result:
        s = result["search"]
        print(
            f"  search: {s['iterations_per_s']} iterations/s, {s['rollouts_per_s']} rollouts/s, "
            f"{s['actions_per_s']} simulated actions/s, "
            f"{s['mean_iterations_per_decision']} iterations per decision "
            f"({s['decisions_searched']} decisions searched)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
