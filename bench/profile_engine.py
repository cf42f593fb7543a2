"""Engine call costs in CPU µs, and optionally a cProfile of bot games.

    python bench/profile_engine.py [--samples N] [--repeats R] [--profile] [--games G]

- µs per apply / legal_actions / view / explain (every legal action explained,
  as the heuristic bot does) on states sampled along one random-bot game per
  scenario. Timed with ``time.process_time`` (CPU time of this process), best of
  ``--repeats``, so figures stay comparable on a busy machine.
- games/s (CPU): heuristic bots reading ``explain`` on every seat.
- ``--profile``: a cProfile of those games, the top functions by own time.

Prints figures; asserts nothing about them. Memo caches are cleared before
each timed pass, so a figure is the cost of a first call on a new state.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import engine  # noqa: E402
from app.bots import choose_action  # noqa: E402
from app.bots.runner import play_game  # noqa: E402

SCENARIOS: list[tuple[str, list[str]]] = [
    ("teaching", ["kushan", "han"]),
    ("successors", ["seleucid", "ptolemaic"]),
    ("four_empires", ["rome", "parthia", "kushan", "han"]),
    ("late_antiquity", ["byzantium", "sasanian", "wei", "liang"]),
]


def clear_memos() -> None:
    """Empty whatever memo caches this engine version has (none in older ones)."""
    from app.engine import core, endeavours, flow, memo

    for module, names in (
        (core, ("_LOC_MEMO",)),
        (endeavours, ("_DIST_MEMO", "_ODDS_MEMO")),
        (flow, ("_LEGAL_MEMO",)),
        (memo, ("_TRACKED",)),
    ):
        for attr in names:
            memo = getattr(module, attr, None)
            if isinstance(memo, dict):
                memo.clear()


def sample(
    scenario: str, seats: list[str], seed: int, samples: int
) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
    rng = random.Random(seed)
    state = engine.new_game(scenario, seats, seed)
    points = []
    for _ in range(2000):
        prompts = engine.pending(state)
        if not prompts:
            break
        seat = prompts[0]["seat"]
        legal = engine.legal_actions(state, seat)
        action = choose_action("random", engine.view(state, seat), legal, rng)
        points.append((state, seat, action))
        state, _ = engine.apply(state, seat, action)
    step = max(1, len(points) // samples)
    return points[::step][:samples]


def cpu_us(
    points: list[tuple[dict[str, Any], int, dict[str, Any]]], fn: Any, repeats: int
) -> float:
    best = float("inf")
    for _ in range(repeats):
        clear_memos()
        start = time.process_time()
        for state, seat, action in points:
            fn(state, seat, action)
        best = min(best, (time.process_time() - start) / len(points))
    return round(best * 1e6, 1)


def explain_all(state: dict[str, Any], seat: int, _action: dict[str, Any]) -> None:
    for action in engine.legal_actions(state, seat):
        engine.explain(state, seat, action)


def bot_games(games: int, seed: int) -> tuple[float, int]:
    start = time.process_time()
    actions = 0
    for g in range(games):
        scenario, seats = SCENARIOS[g % len(SCENARIOS)]
        actions += play_game(
            scenario, seats, seed + g, "heuristic", keep_log=False, use_explain=True
        ).actions
    return time.process_time() - start, actions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=4, help="heuristic games (0: none)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {}
    for scenario, seats in SCENARIOS:
        points = sample(scenario, seats, args.seed, args.samples)
        figures[scenario] = {
            "us_per_apply": cpu_us(
                points, lambda s, seat, a: engine.apply(s, seat, a), args.repeats
            ),
            "us_per_legal_actions": cpu_us(
                points, lambda s, seat, a: engine.legal_actions(s, seat), args.repeats
            ),
            "us_per_view": cpu_us(points, lambda s, seat, a: engine.view(s, seat), args.repeats),
            "us_per_explain_all_legal": cpu_us(points, explain_all, args.repeats),
        }
    if args.games:
        clear_memos()
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
        seconds, actions = bot_games(args.games, args.seed)
        if args.profile:
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(30)
        figures["heuristic_games"] = {
            "games": args.games,
            "cpu_s": round(seconds, 2),
            "games_per_cpu_s": round(args.games / seconds, 3),
            "us_per_action": round(seconds / max(1, actions) * 1e6, 1),
        }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
