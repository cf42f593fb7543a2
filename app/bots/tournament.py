"""`imperial-glory tournament`: bot levels against each other, seat-swapped.

    imperial-glory tournament --bots strong,standard,random --scenario S --games N --seed K
                              [--iterations I] [--seconds T] [--candidates C] [--horizon H]
                              [--clock cpu|wall] [--jobs J] [--no-explain] [--json]

``--bots`` is the line-up: a comma list of levels, ``LEVEL*n`` repeating one,
cycled to fill the scenario's seats (``strong,standard*5`` is one strong seat and
five standard ones). Game ``g`` uses engine seed ``K + g`` and turns the line-up
by ``g`` seats, so over a multiple of the number of seats every level plays every
power equally often (the "rotation" is printed). Games run in ``--jobs`` worker
processes (default: one per CPU).

Printed per level: seats played, wins, the win rate per seat with a 95% Wilson
confidence interval, and an OpenSkill (Plackett-Luce) rating from the games'
final rankings (a level playing several seats of a game updates its rating by
the mean of those seats' updates). With two levels in the line-up it prints the
first's win rate per seat less the second's, with a 95% interval over the games
(``standard*3,silent*3`` measures what the standard bot's offers are worth against
its own no-offer ablation). ``--iterations``/``--seconds`` etc. set the
strong bot's budget per decision (``app/bots/strong.Budget``). Its ``--seconds``
count the searching process's own CPU time by default (``--clock cpu``), so a run
measures the same Strong bot whether the machine is quiet, busy with other work or
paused for a benchmark; ``--clock wall`` counts elapsed time, as a server does.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from openskill.models import PlackettLuce

from app.bots.levels import ALL_LEVELS, canonical, parse_lineup
from app.bots.runner import GameRecord, play_game
from app.bots.simulate import scenario_catalogue
from app.bots.strong import Budget


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def share(wins: int, n: int) -> dict[str, Any]:
    """``wins`` of ``n`` as a table row: the count, the rate and its 95% interval."""
    low, high = wilson(wins, n)
    return {"wins": wins, "win_rate": round(wins / n, 4), "ci95": [round(low, 4), round(high, 4)]}


def seat_levels(lineup: list[str], seats: int, game: int) -> list[str]:
    """The level of each seat in game ``game``: the line-up cycled, turned by ``game``."""
    filled = [lineup[i % len(lineup)] for i in range(seats)]
    return [filled[(i + game) % seats] for i in range(seats)]


Job = tuple[str, list[str], int, list[str], bool, Budget]


def _job(job: Job) -> GameRecord:
    scenario, powers, seed, levels, use_explain, budget = job
    return play_game(
        scenario, powers, seed, levels, use_explain=use_explain, keep_log=False, budget=budget
    )


def ranks_of(record: GameRecord) -> list[int]:
    """1 for the winner, then by score (ties share a rank)."""
    scores = record.scores()
    winner = (record.outcome or {}).get("winner")
    ranks = []
    for i, s in enumerate(scores):
        ranks.append(1 if i == winner else 2 + sum(1 for o in scores if o > s))
    return ranks


def rate(records: list[GameRecord]) -> dict[str, dict[str, float]]:
    """OpenSkill Plackett-Luce ratings of the levels, game by game."""
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for record in records:
        if record.errors or not record.outcome:
            continue
        levels = [canonical(x) for x in record.levels]
        for level in levels:
            ratings.setdefault(level, model.rating(name=level))
        teams = [[model.rating(mu=ratings[lv].mu, sigma=ratings[lv].sigma)] for lv in levels]
        new = model.rate(teams, ranks=[float(r) for r in ranks_of(record)])
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for level, team in zip(levels, new, strict=True):
            acc = sums[level]
            acc[0] += team[0].mu
            acc[1] += team[0].sigma
            acc[2] += 1
        for level, (mu, sigma, n) in sums.items():
            ratings[level] = model.rating(mu=mu / n, sigma=sigma / n, name=level)
    return {
        level: {"mu": round(r.mu, 2), "sigma": round(r.sigma, 2), "ordinal": round(r.ordinal(), 2)}
        for level, r in ratings.items()
    }


def difference(records: list[GameRecord], first: str, second: str) -> dict[str, Any] | None:
    """The win rate per seat of ``first`` less that of ``second``, with its 95%
    interval: the mean over games of each game's difference (a game's seats are not
    independent: one wins, so the games are the samples), normal approximation."""
    diffs: list[float] = []
    for record in records:
        if record.errors:
            continue
        levels = [canonical(x) for x in record.levels]
        n_a, n_b = levels.count(first), levels.count(second)
        if not n_a or not n_b:
            continue
        winner = (record.outcome or {}).get("winner")
        won = levels[winner] if isinstance(winner, int) else None
        diffs.append((won == first) / n_a - (won == second) / n_b)
    if len(diffs) < 2:
        return None
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    half = 1.96 * math.sqrt(var / len(diffs))
    return {
        "levels": [first, second],
        "games": len(diffs),
        "difference": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
    }


def run(
    scenario: str,
    powers: list[str],
    lineup: list[str],
    games: int,
    seed: int,
    budget: Budget,
    jobs: int = 0,
    use_explain: bool = True,
    progress: bool = False,
) -> dict[str, Any]:
    work: list[Job] = [
        (scenario, powers, seed + g, seat_levels(lineup, len(powers), g), use_explain, budget)
        for g in range(games)
    ]
    workers = min(jobs if jobs > 0 else (os.cpu_count() or 1), len(work))
    start = time.perf_counter()
    records: list[GameRecord] = []
    tally: Counter[str] = Counter()

    def done(record: GameRecord) -> None:
        records.append(record)
        winner = (record.outcome or {}).get("winner")
        if isinstance(winner, int):
            tally[canonical(record.levels[winner])] += 1
        if progress:  # one line per finished game, so a long run can be read as it goes
            print(
                f"game {len(records)}/{len(work)} seed {record.seed}: "
                + ", ".join(f"{level} {wins}" for level, wins in sorted(tally.items())),
                file=sys.stderr,
                flush=True,
            )

    if workers <= 1:
        for job in work:
            done(_job(job))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for record in pool.map(_job, work):
                done(record)
    elapsed = time.perf_counter() - start
    played: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    by_power: dict[str, Counter[str]] = defaultdict(Counter)
    wins_by_power: dict[str, Counter[str]] = defaultdict(Counter)
    power_games: Counter[str] = Counter()
    power_wins: Counter[str] = Counter()
    errors: list[str] = []
    for record in records:
        if record.errors:
            errors.append(f"seed {record.seed}: {record.errors[0][:500]}")
            continue
        levels = [canonical(x) for x in record.levels]
        for power, level in zip(record.seats, levels, strict=True):
            played[level] += 1
            by_power[level][power] += 1
            power_games[power] += 1
        winner = (record.outcome or {}).get("winner")
        if isinstance(winner, int):
            wins[levels[winner]] += 1
            wins_by_power[levels[winner]][record.seats[winner]] += 1
            power_wins[record.seats[winner]] += 1
    ratings = rate(records)
    table = {}
    for level in sorted(played, key=lambda lv: -wins[lv] / played[lv]):
        table[level] = {
            "seats": played[level],
            **share(wins[level], played[level]),
            "rating": ratings.get(level),
            "powers": dict(sorted(by_power[level].items())),
            "wins_by_power": dict(sorted(wins_by_power[level].items())),
        }
    # Each power's share of the wins whoever played it: the balance of the scenario
    # with this line-up rotated over the seats (issue 11's "strong bot rotated").
    powers_table = {
        power: {"games": power_games[power], **share(power_wins[power], power_games[power])}
        for power in sorted(power_games)
    }
    politics: Counter[str] = Counter()
    for record in records:
        politics.update(record.politics)
    order = list(dict.fromkeys(canonical(x) for x in lineup))
    versus = difference(records, order[0], order[1]) if len(order) == 2 else None
    return {
        "difference": versus,
        "scenario": scenario,
        "games": games,
        "seed": seed,
        "lineup": lineup,
        "budget": budget.__dict__,
        "jobs": workers,
        "seconds": round(elapsed, 2),
        "levels": table,
        "powers": powers_table,
        "errors": len(errors),
        "error_samples": errors[:5],
        "politics_total": dict(politics),
    }


def _text(result: dict[str, Any]) -> str:
    lines = [
        f"{result['games']} games of {result['scenario']} (seed {result['seed']}, line-up "
        f"{','.join(result['lineup'])}, rotated over the powers) in {result['seconds']} s; "
        f"strong budget {result['budget']}",
        f"  {'level':<10} {'seats':>6} {'wins':>5} {'win rate':>9}  {'95% CI':<16} rating (mu ± sigma)",
    ]
    for level, row in result["levels"].items():
        r = row["rating"] or {"mu": 0, "sigma": 0}
        lines.append(
            f"  {level:<10} {row['seats']:>6} {row['wins']:>5} {row['win_rate']:>9.1%}  "
            f"[{row['ci95'][0]:.1%}, {row['ci95'][1]:.1%}]  {r['mu']:.1f} ± {r['sigma']:.1f}"
        )
    lines.append(f"  {'power':<12} {'games':>6} {'wins':>5} {'win rate':>9}  95% CI")
    for power, row in result["powers"].items():
        lines.append(
            f"  {power:<12} {row['games']:>6} {row['wins']:>5} {row['win_rate']:>9.1%}  "
            f"[{row['ci95'][0]:.1%}, {row['ci95'][1]:.1%}]"
        )
    versus = result.get("difference")
    if versus:
        a, b = versus["levels"]
        lines.append(
            f"  {a} - {b}: {versus['difference']:+.1%} win rate per seat over "
            f"{versus['games']} games, 95% CI [{versus['ci95'][0]:+.1%}, {versus['ci95'][1]:+.1%}]"
        )
    lines.append(f"  errors: {result['errors']}")
    lines += ["    " + s.splitlines()[0] for s in result["error_samples"]]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="imperial-glory tournament", description="Play bot levels against each other."
    )
    parser.add_argument(
        "--bots", default="strong,standard,random", help="line-up, e.g. strong,standard*5"
    )
    parser.add_argument("--scenario", default="teaching")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=None, help="seat only the first P powers")
    parser.add_argument("--iterations", type=int, default=Budget.iterations)
    parser.add_argument("--seconds", type=float, default=Budget.seconds)
    parser.add_argument("--candidates", type=int, default=Budget.candidates)
    parser.add_argument("--horizon", type=int, default=Budget.horizon)
    parser.add_argument(
        "--clock",
        choices=["cpu", "wall"],
        default="cpu",
        help="what --seconds counts: the search's own CPU time (default) or elapsed time",
    )
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--no-explain", dest="explain", action="store_false")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--progress", action="store_true", help="print each finished game's tally on stderr"
    )
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        lineup = parse_lineup(args.bots)
    except ValueError:
        print(f"tournament: cannot read the line-up {args.bots!r}", file=sys.stderr)
        return 2
    unknown = [level for level in lineup if level not in ALL_LEVELS]
    if not lineup or unknown:
        print(
            f"tournament: unknown bot level {unknown or args.bots!r}; choose from {ALL_LEVELS}",
            file=sys.stderr,
        )
        return 2
    if args.games < 1:
        print("tournament: --games must be at least 1", file=sys.stderr)
        return 2
    catalogue = scenario_catalogue()
    if args.scenario not in catalogue:
        print(
            f"tournament: there is no scenario called {args.scenario!r}; choose from "
            f"{', '.join(catalogue)}",
            file=sys.stderr,
        )
        return 2
    powers = catalogue[args.scenario][: args.players or None]
    budget = Budget(args.iterations, args.seconds, args.candidates, args.horizon, args.clock)
    result = run(
        args.scenario,
        powers,
        lineup,
        args.games,
        args.seed,
        budget,
        args.jobs,
        args.explain,
        args.progress,
    )
    print(json.dumps(result, sort_keys=True) if args.json else _text(result))
    return 0 if result["errors"] == 0 else 1
