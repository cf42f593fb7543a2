"""`imperial-glory balance`: seat-rotated bot games per scenario, and docs/balance.md.

    imperial-glory balance [--scenario NAME|all] [--games N] [--bots L1,L2,...]
                           [--seed K] [--jobs J] [--report PATH] [--no-report] [--json]
                           [--calibrate [--write-levels]]
    imperial-glory balance --merge RUN.json [RUN.json ...] [--report PATH] [--json]

``--games`` is per scenario. ``--bots`` is a list of bot levels (``LEVEL*n`` repeats
one) cycled over the seats and shifted one seat per game, so a mix (``--bots
strong,standard*5``) puts every level on every power equally often over a multiple of
the seat count. A Strong seat's time limit counts its own CPU time, as in
`tournament`, so a busy or paused machine measures the same bot. Games run in ``--jobs`` processes
(default: one per CPU). The report (default ``docs/balance.md``) gets the measured
tables between its markers and a plot beside it (``balance-winrates.png``).

``--calibrate`` prints, per scenario, the victory levels (rules 26.2) under which the
games just played, scored again, would have given every power its fair share of the
wins (``app/balance/calibrate.py``: a first-order answer, to re-measure); with
``--write-levels`` it writes them into the content pack, where a designer reviews
the diff and re-measures (the levels are a knob of the pack, never of the code).

``--merge`` writes the report from the ``--json`` output of several runs, one
scenario each (a scenario's 600 games fit a session; all four at once do not):
each scenario's table names the command that measured it. No game is played.
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
from app.balance.calibrate import fitted_levels
from app.balance.games import GameSummary, Job, plan, play
from app.balance.report import measured_markdown, write_plot, write_report
from app.bots import BOT_LEVELS
from app.bots.levels import parse_lineup
from app.bots.simulate import scenario_catalogue
from app.engine.content import content
from app.engine.scoring import as_points


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="imperial-glory balance",
        description="Play seat-rotated bot games and write the balance report.",
    )
    parser.add_argument("--scenario", default="all", help="scenario id, or 'all'")
    parser.add_argument("--games", type=int, default=100, help="games per scenario")
    parser.add_argument(
        "--bots", default="heuristic", help="bot levels cycled over seats, e.g. strong,standard*5"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--jobs", type=int, default=0, help="processes (0: one per CPU)")
    parser.add_argument("--report", default="docs/balance.md", help="report to rewrite")
    parser.add_argument("--no-report", action="store_true", help="print only")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--calibrate", action="store_true", help="suggest victory levels (26.2) from the games"
    )
    parser.add_argument(
        "--write-levels", action="store_true", help="with --calibrate: write them to the pack"
    )
    parser.add_argument(
        "--merge", nargs="+", metavar="RUN.json", help="write the report from --json runs"
    )
    return parser


SCENARIOS_JSON = Path(__file__).resolve().parent.parent / "content" / "data" / "scenarios.json"


def current_levels(path: Path = SCENARIOS_JSON) -> dict[str, dict[str, float]]:
    """Scenario id -> power id -> its victory level in the pack (0 when unset)."""
    pack = json.loads(path.read_text(encoding="utf-8"))
    return {
        str(sc["id"]): {str(pw["id"]): as_points(pw.get("victory_level", 0)) for pw in sc["powers"]}
        for sc in pack
    }


def write_levels(levels: dict[str, dict[str, float]], path: Path = SCENARIOS_JSON) -> None:
    """Set ``victory_level`` of each listed power, keeping the file's layout."""
    pack = json.loads(path.read_text(encoding="utf-8"))
    for sc in pack:
        for pw in sc["powers"]:
            level = levels.get(str(sc["id"]), {}).get(str(pw["id"]))
            if level is not None and ("victory_level" in pw or level != 0):
                pw["victory_level"] = as_points(level)
    path.write_text(json.dumps(pack, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def tutorial_scenarios() -> set[str]:
    return {str(sc["id"]) for sc in content().get("scenarios", []) if sc.get("tutorial")}


def run(jobs: list[Job], workers: int) -> list[GameSummary]:
    if workers <= 1:
        return [play(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(play, jobs, chunksize=1))


#: what a run's report line names (a merged file carries them per scenario instead)
_RUN_KEYS = ("command", "bots", "seed", "jobs", "seconds", "total_games")


def merged(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One result from several ``--json`` runs: each scenario keeps its own run's
    command, seed and time (``run``); a scenario measured twice keeps the later run."""
    scenarios: dict[str, Any] = {}
    for one in runs:
        head = {k: one.get(k) for k in _RUN_KEYS}
        for name, figures in one["scenarios"].items():
            scenarios[name] = {**figures, "run": figures.get("run") or head}
    return {
        "seconds": sum(one["seconds"] for one in runs),
        "total_games": sum(f["games"] for f in scenarios.values()),
        "scenarios": dict(sorted(scenarios.items())),
        "runs": len(runs),
    }


def _read_runs(paths: list[str]) -> list[dict[str, Any]] | None:
    runs = []
    for name in paths:
        try:
            one = json.loads(Path(name).read_text(encoding="utf-8"))
            if not isinstance(one, dict) or not isinstance(one.get("scenarios"), dict):
                raise ValueError("no scenarios")
            if not all(k in one for k in _RUN_KEYS) and not all(
                "run" in f for f in one["scenarios"].values()
            ):
                raise ValueError("not the output of balance --json")
            runs.append(one)
        except (OSError, ValueError) as exc:
            print(f"balance: cannot read the run {name!r} ({exc})", file=sys.stderr)
            return None
    return runs


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.merge:
        runs = _read_runs(args.merge)
        if runs is None:
            return 2
        return _publish(args, merged(runs))
    try:
        levels = parse_lineup(args.bots)
    except ValueError:
        print(f"balance: cannot read the line-up {args.bots!r}", file=sys.stderr)
        return 2
    unknown = [x for x in levels if x not in BOT_LEVELS]
    if not levels or unknown:
        print(
            f"balance: unknown bot level {unknown or args.bots!r}; choose from "
            f"{', '.join(BOT_LEVELS)}",
            file=sys.stderr,
        )
        return 2
    if args.write_levels and not args.calibrate:
        print("balance: --write-levels needs --calibrate", file=sys.stderr)
        return 2
    if args.games < 1:
        print("balance: --games must be at least 1", file=sys.stderr)
        return 2
    catalogue = scenario_catalogue()
    if args.scenario == "all":
        # The tutorial is a scripted lesson with a stacked deck, not a game to balance.
        scenarios = sorted(s for s in catalogue if s not in tutorial_scenarios())
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
    if args.calibrate:
        now = current_levels()
        result["calibrated_levels"] = {
            s: fitted_levels([g for g in summaries if g.scenario == s], now.get(s, {}))
            for s in scenarios
        }
        if args.write_levels:
            write_levels(result["calibrated_levels"])
    return _publish(args, result)


def _publish(args: argparse.Namespace, result: dict[str, Any]) -> int:
    """The report (unless ``--no-report``) and what is printed, for a run or a merge."""
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
        for s, levels in (result.get("calibrated_levels") or {}).items():
            shown = ", ".join(f"{p} {v:+g}" for p, v in levels.items())
            verb = "written" if args.write_levels else "suggested"
            print(f"victory levels {verb} for {s}: {shown}")
    errors = sum(f["errors"] for f in result["scenarios"].values())
    return 0 if errors == 0 else 1
