"""`imperial-glory balance`: seat-rotated bot games per scenario, and docs/balance.md.

    imperial-glory balance [--scenario NAME|all] [--games N] [--bots L1,L2,...]
                           [--seed K] [--jobs J] [--report PATH] [--no-report] [--json]

``--games`` is per scenario. ``--bots`` is a list of bot levels cycled over the
seats and shifted one seat per game, so a mix (``--bots strong,heuristic``) puts
every level on every power equally often. Games run in ``--jobs`` processes
(default: one per CPU). The report (default ``docs/balance.md``) gets the measured
tables between its markers and a plot beside it (``balance-winrates.png``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from app.balance.aggregate import scenario_figures
from app.balance.games import GameSummary, Job, plan, play
from app.balance.report import measured_markdown, write_plot, write_report
from app.bots import BOT_LEVELS
from app.bots.simulate import scenario_catalogue


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="imperial-glory balance",
        description="Play seat-rotated bot games and write the balance report.",
    )
    parser.add_argument("--scenario", default="all", help="scenario id, or 'all'")
    parser.add_argument("--games", type=int, default=100, help="games per scenario")
    parser.add_argument("--bots", default="heuristic", help="bot levels, cycled over seats")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--jobs", type=int, default=0, help="processes (0: one per CPU)")
    parser.add_argument("--report", default="docs/balance.md", help="report to rewrite")
    parser.add_argument("--no-report", action="store_true", help="print only")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def run(jobs: list[Job], workers: int) -> list[GameSummary]:
    if workers <= 1:
        return [play(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(play, jobs, chunksize=1))


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    levels = [x.strip() for x in args.bots.split(",") if x.strip()]
    unknown = [x for x in levels if x not in BOT_LEVELS]
    if not levels or unknown:
        print(
            f"balance: unknown bot level {unknown or args.bots!r}; choose from "
            f"{', '.join(BOT_LEVELS)}",
            file=sys.stderr,
        )
        return 2
    if args.games < 1:
        print("balance: --games must be at least 1", file=sys.stderr)
        return 2
    catalogue = scenario_catalogue()
    if args.scenario == "all":
        scenarios = list(catalogue)
    elif args.scenario in catalogue:
        scenarios = [args.scenario]
    else:
        print(
            f"balance: there is no scenario called {args.scenario!r}; choose from "
            f"{', '.join(catalogue)} or 'all'",
            file=sys.stderr,
        )
        return 2
    jobs = [job for s in scenarios for job in plan(s, catalogue[s], levels, args.games, args.seed)]
    workers = min(args.jobs if args.jobs > 0 else (os.cpu_count() or 1), len(jobs))
    start = time.perf_counter()
    summaries = run(jobs, workers)
    seconds = time.perf_counter() - start
    result: dict[str, Any] = {
        "command": "imperial-glory balance " + shlex.join(argv),
        "bots": ",".join(levels),
        "seed": args.seed,
        "jobs": workers,
        "seconds": seconds,
        "total_games": len(summaries),
        "scenarios": {
            s: scenario_figures([g for g in summaries if g.scenario == s]) for s in scenarios
        },
    }
    if not args.no_report:
        report = Path(args.report)
        report.parent.mkdir(parents=True, exist_ok=True)
        plot = report.with_name(report.stem + "-winrates.png")
        write_plot(plot, result)
        write_report(report, measured_markdown(result, plot.name))
        result["report"] = str(report)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(measured_markdown(result, None))
    errors = sum(f["errors"] for f in result["scenarios"].values())
    return 0 if errors == 0 else 1
