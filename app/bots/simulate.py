"""`imperial-glory simulate`: play whole bot games and print statistics.

    imperial-glory simulate --scenario NAME|all --games N --bots heuristic|random
                            [--seed K] [--players P] [--end-turn T] [--rounds R] [--jobs J]
                            [--no-explain] [--json]

``--games`` is the total number of games, shared evenly between the chosen
scenarios (``--scenario all --games 200`` plays 50 of each of four); every game
seats the scenario's powers (at most its ``max_players``, or the first
``--players``), each played by the chosen bot level (``--bots random,heuristic``
gives a level per seat, cycling). Game ``g`` of a scenario uses engine seed
``K + g``, so any game can be replayed alone. Heuristic bots read
``engine.explain`` for their own seat unless ``--no-explain``. Games run in
``--jobs`` worker processes (default: one per CPU).

The JSON object holds ``games``, ``games_per_s``, ``seconds``, ``mean_rounds``,
``mean_game_turns``, ``mean_actions``, ``win_rate_by_power`` (wins / games the
power played), ``petition_bust_rate`` (busts / petitions),
``busts_per_game``, ``score_spread`` (mean and max of best minus worst score),
``politics_per_game`` (per game: ``wars_declared``, ``hegemony_claims``,
``coalition_joins``, ``peace_made``, ``parleys_called``, ``parleys_carried``,
``pvp_conquests`` (areas taken from another player), ``exiles``, ``returns``,
``asylum_granted``, ``tribute_paid``, and the world's doings, rules 17.5-24:
``usurpers_raised``, ``usurper_stirs``, ``usurper_rebellions``, ``usurper_conquests``,
``usurper_sways``, ``usurpers_fallen``, ``usurper_buy_offs``, ``exile_returns_via_usurper``,
``horde_threats`` (from game turn 2: turn 1's are chosen at set-up), ``horde_raids``,
``raids_defended``, ``raids_repulsed``, ``heirless_unrest``), ``politics_mean`` and
``games_with_pvp_conquest``; ``offers_with_area_or_claim`` (offers whose bundle cedes an
area or a claim) and ``offer_repeats`` (a new offer to a power that refused one from the
same seat in that game turn) among the politics; ``openings`` = ``{"distinct": N,
"top_share": x}`` over the sets of diplomatic actions the powers take in the first game
turn's diplomatic phase,
``errors`` (exceptions, illegal bot choices, stalls: must be 0), ``error_samples``,
and ``by_scenario`` with the same figures per scenario.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from app.bots import BOT_LEVELS
from app.bots.runner import POLITICS, GameRecord, play_game
from app.engine.content import content


def scenario_catalogue() -> dict[str, list[str]]:
    """Scenario id -> the powers seated by default: the pack's order, at most
    ``max_players`` of them (a scenario may list more powers than it seats)."""
    return {
        scenario["id"]: [power["id"] for power in scenario.get("powers", [])][
            : scenario.get("max_players") or None
        ]
        for scenario in content().get("scenarios", [])
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="imperial-glory simulate", description="Play bot games and print statistics."
    )
    parser.add_argument("--scenario", default="all", help="scenario id, or 'all'")
    parser.add_argument(
        "--games", type=int, default=10, help="games in all, shared between the scenarios"
    )
    parser.add_argument(
        "--bots",
        default="heuristic",
        help=f"bot level, or a comma list cycled over the seats ({', '.join(BOT_LEVELS)})",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--players", type=int, default=None, help="seat only the first P powers")
    parser.add_argument(
        "--end-turn", type=int, default=None, help="end each game after this game turn"
    )
    parser.add_argument(
        "--rounds", type=int, default=None, help="rounds per game turn (engine option)"
    )
    parser.add_argument(
        "--jobs", type=int, default=0, help="worker processes (default 0: one per CPU)"
    )
    parser.add_argument(
        "--no-explain",
        dest="explain",
        action="store_false",
        help="heuristic bots without engine.explain (the odds of their own endeavours)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _job(args: tuple[str, list[str], int, list[str], dict[str, Any] | None, bool]) -> GameRecord:
    scenario, seats, seed, levels, options, use_explain = args
    record = play_game(
        scenario, seats, seed, levels, options, use_explain=use_explain, keep_log=False
    )
    # Error texts can be long (tracebacks): keep them, but the log is not needed here.
    return record


def summarize(records: list[GameRecord], seconds: float) -> dict[str, Any]:
    """The statistics of a batch of games (one scenario or all)."""
    games = len(records)
    wins: Counter[str] = Counter()
    played: Counter[str] = Counter()
    spreads: list[float] = []
    errors = 0
    samples: list[str] = []
    for record in records:
        for power in record.seats:
            played[power] += 1
        if record.winner_power is not None:
            wins[record.winner_power] += 1
        scores = record.scores()
        if len(scores) >= 2:
            spreads.append(max(scores) - min(scores))
        if record.errors:
            errors += len(record.errors)
            if len(samples) < 5:
                samples.append(f"{record.scenario} seed {record.seed}: {record.errors[0][:2000]}")
    petitions = sum(r.petitions for r in records)
    politics = {key: [r.politics.get(key, 0) for r in records if not r.errors] for key in POLITICS}
    busts = sum(r.busts for r in records)

    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 3) if values else 0.0

    return {
        "games": games,
        "seconds": round(seconds, 3),
        "games_per_s": round(games / seconds, 3) if seconds > 0 else None,
        "mean_rounds": mean([float(r.rounds) for r in records]),
        "mean_game_turns": mean([float(r.turns) for r in records]),
        "mean_actions": mean([float(r.actions) for r in records]),
        "win_rate_by_power": {
            power: round(wins[power] / played[power], 4) for power in sorted(played)
        },
        "no_winner": sum(1 for r in records if not r.errors and r.winner_power is None),
        "petitions": petitions,
        "petition_bust_rate": round(busts / petitions, 4) if petitions else 0.0,
        "busts_per_game": mean([float(r.busts) for r in records]),
        "score_spread": {
            "mean": mean(spreads),
            "max": max(spreads) if spreads else 0.0,
        },
        "politics_per_game": [dict(r.politics) for r in records],
        "politics_mean": {
            key: round(sum(values) / len(values), 3) if values else 0.0
            for key, values in politics.items()
        },
        "games_with_pvp_conquest": sum(1 for v in politics["pvp_conquests"] if v > 0),
        "openings": openings([r.opening for r in records if not r.errors]),
        "errors": errors,
        "illegal_choices": sum(r.illegal_choices for r in records),
        "error_samples": samples,
    }


def openings(games: list[tuple[Any, ...]]) -> dict[str, Any]:
    """How alike the games open: the number of distinct first-turn diplomatic
    phases and the share of games that open the most common way."""
    seen = Counter(games)
    top = seen.most_common(1)[0][1] if seen else 0
    return {"distinct": len(seen), "top_share": round(top / len(games), 4) if games else 0.0}


def run(
    scenarios: list[str],
    catalogue: dict[str, list[str]],
    games: int,
    levels: list[str],
    seed: int,
    players: int | None = None,
    end_turn: int | None = None,
    rounds: int | None = None,
    jobs: int = 1,
    use_explain: bool = True,
) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    if end_turn is not None:
        chosen["end_turn"] = end_turn
    if rounds is not None:
        chosen["rounds"] = rounds
    options = chosen or None
    work: list[tuple[str, list[str], int, list[str], dict[str, Any] | None, bool]] = []
    for index, scenario in enumerate(scenarios):
        seats = catalogue[scenario][: players or None]
        seat_levels = [levels[i % len(levels)] for i in range(len(seats))]
        share = games // len(scenarios) + (1 if index < games % len(scenarios) else 0)
        for g in range(share):
            work.append((scenario, seats, seed + g, seat_levels, options, use_explain))
    workers = min(jobs if jobs > 0 else (os.cpu_count() or 1), len(work))
    start = time.perf_counter()
    if workers == 1:
        records = [_job(item) for item in work]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            records = list(pool.map(_job, work, chunksize=max(1, len(work) // (workers * 8))))
    elapsed = time.perf_counter() - start
    result = summarize(records, elapsed)
    result["bots"] = ",".join(levels)
    result["seed"] = seed
    result["jobs"] = workers
    result["explain"] = use_explain
    result["scenarios"] = scenarios
    if len(scenarios) > 1:
        by: dict[str, Any] = {}
        for scenario in scenarios:
            subset = [r for r in records if r.scenario == scenario]
            if not subset:
                continue
            # Per-scenario time is not measured separately in a pool: share it by actions.
            total_actions = sum(r.actions for r in records) or 1
            part = elapsed * sum(r.actions for r in subset) / total_actions
            by[scenario] = summarize(subset, part)
        result["by_scenario"] = by
    return result


def _text(result: dict[str, Any]) -> str:
    lines = [
        f"{result['games']} games ({result['bots']} bots, seed {result['seed']}) "
        f"in {result['seconds']} s: {result['games_per_s']} games/s",
        f"  rounds/game {result['mean_rounds']}, game turns/game {result['mean_game_turns']}, "
        f"actions/game {result['mean_actions']}",
        f"  petitions {result['petitions']}, bust rate {result['petition_bust_rate']}, "
        f"busts/game {result['busts_per_game']}",
        f"  score spread mean {result['score_spread']['mean']}, max {result['score_spread']['max']}",
        "  win rate: " + ", ".join(f"{p} {r:.1%}" for p, r in result["win_rate_by_power"].items()),
        "  politics/game: "
        + ", ".join(f"{k} {v}" for k, v in result["politics_mean"].items())
        + f"; games with a PvP conquest {result['games_with_pvp_conquest']}/{result['games']}",
        f"  openings: {result['openings']['distinct']} distinct, "
        f"the most common in {result['openings']['top_share']:.0%} of games",
        f"  errors: {result['errors']}",
    ]
    for sample in result.get("error_samples", []):
        lines.append("    " + sample.splitlines()[0])
    for scenario, sub in (result.get("by_scenario") or {}).items():
        lines.append(
            f"  [{scenario}] {sub['games']} games, rounds {sub['mean_rounds']}, "
            f"turns {sub['mean_game_turns']}, bust rate {sub['petition_bust_rate']}, "
            f"errors {sub['errors']}, wins: "
            + ", ".join(f"{p} {r:.0%}" for p, r in sub["win_rate_by_power"].items())
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    levels = [level.strip() for level in args.bots.split(",") if level.strip()]
    unknown = [level for level in levels if level not in BOT_LEVELS]
    if not levels or unknown:
        print(
            f"simulate: unknown bot level {unknown or args.bots!r}; choose from {BOT_LEVELS}",
            file=sys.stderr,
        )
        return 2
    if args.games < 1:
        print("simulate: --games must be at least 1", file=sys.stderr)
        return 2
    catalogue = scenario_catalogue()
    if args.scenario == "all":
        scenarios = list(catalogue)
    elif args.scenario in catalogue:
        scenarios = [args.scenario]
    else:
        print(
            f"simulate: there is no scenario called {args.scenario!r}; "
            f"choose from {', '.join(catalogue) or '(none)'} or 'all'",
            file=sys.stderr,
        )
        return 2
    if not scenarios:
        print("simulate: the content pack has no scenario", file=sys.stderr)
        return 2
    result = run(
        scenarios,
        catalogue,
        args.games,
        levels,
        args.seed,
        players=args.players,
        end_turn=args.end_turn,
        rounds=args.rounds,
        jobs=args.jobs,
        use_explain=args.explain,
    )
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(_text(result))
    return 0 if result["errors"] == 0 else 1
