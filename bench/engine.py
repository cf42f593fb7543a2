"""Engine speed: games per second per scenario, search rollouts per second, µs per call.

    python bench/engine.py [--games N] [--repeats R] [--samples S] [--rollouts K]
                           [--bots heuristic] [--path in_place|copying] [--json]

Prints figures; asserts nothing about them (timing is the machine's business).

- games/s: whole games with heuristic bots on every seat reading `explain`
  (the `play_game` loop: pending → legal_actions → seat_view → choose_action →
  apply_in_place; with ``--path copying``, the copying `apply` instead), best
  and median of ``--repeats`` batches of ``--games`` games, one process.
- search rollouts/s, from the state half way through one recorded game:
  ``rollouts_per_s``: `clone` the position, then random legal moves with
  `apply_in_place` (no undo) to the end of the game; ``undo_rollouts_per_s``:
  ``--depth`` random moves with `apply_in_place` and every one taken back with
  `undo`; ``copying_rollouts_per_s``: the first kind with the copying `apply`,
  for comparison. ``--rollouts`` of each, best of ``--repeats``.
- µs per apply / apply_in_place (+ undo) / clone / legal_actions / view /
  seat_view (the parts a heuristic bot reads) / pending: states sampled along
  one recorded game per scenario (``--samples`` of them), each call timed over
  the samples, best of ``--repeats``.

Every figure comes by the wall clock (``time.perf_counter``) and, as
``games_per_cpu_s`` / ``cpu_…``, by the process's CPU time, which tells
more on a busy shared machine.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import engine  # noqa: E402
from app.bots import choose_action  # noqa: E402
from app.bots.runner import play_game  # noqa: E402
from app.bots.simulate import scenario_catalogue  # noqa: E402


def games_per_second(
    scenario: str,
    seats: list[str],
    games: int,
    repeats: int,
    level: str,
    seed: int,
    in_place: bool = True,
) -> dict[str, Any]:
    rates: list[float] = []
    cpu_rates: list[float] = []
    actions = 0
    errors = 0
    for r in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        for g in range(games):
            record = play_game(
                scenario,
                seats,
                seed + r * games + g,
                level,
                keep_log=False,
                use_explain=True,
                in_place=in_place,
            )
            actions += record.actions
            errors += len(record.errors)
        rates.append(games / (time.perf_counter() - start))
        cpu_rates.append(games / max(1e-9, time.process_time() - start_cpu))
    return {
        "games_per_s": round(max(rates), 3),
        "games_per_s_median": round(statistics.median(rates), 3),
        "games_per_cpu_s": round(max(cpu_rates), 3),
        "actions_per_game": round(actions / (games * repeats), 1),
        "errors": errors,
    }


def sample_states(
    scenario: str, seats: list[str], seed: int, level: str, samples: int
) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
    """(state, seat, chosen action) at evenly spread points of one bot game."""
    record = play_game(scenario, seats, seed, level)
    if record.errors:
        raise RuntimeError(f"{scenario} seed {seed}: {record.errors[0]}")
    total = len(record.log)
    step = max(1, total // samples)
    wanted = set(range(0, total, step))
    out: list[tuple[dict[str, Any], int, dict[str, Any]]] = []
    state = engine.new_game(scenario, seats, seed)
    for index, (seat, action) in enumerate(record.log):
        if index in wanted:
            out.append((state, seat, action))
        state, _ = engine.apply(state, seat, action)
    return out


def time_calls(
    points: list[tuple[dict[str, Any], int, dict[str, Any]]], repeats: int
) -> dict[str, float]:
    """µs per call, best of ``repeats`` passes over the sampled states.

    Each figure is given twice: by the wall clock (``time.perf_counter``) and by
    the process's CPU time (``cpu_…``, ``time.process_time``), which a busy
    shared machine disturbs far less.
    """
    figures: dict[str, float] = {}

    def best(name: str, calls: list[Any]) -> None:
        wall, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            for call in calls:
                call()
            wall.append((time.perf_counter() - start) / len(calls))
            cpu.append((time.process_time() - start_cpu) / len(calls))
        figures[f"us_per_{name}"] = round(min(wall) * 1e6, 1)
        figures[f"cpu_us_per_{name}"] = round(min(cpu) * 1e6, 1)

    rng = random.Random(0)
    seen = [(engine.view(s, seat), engine.legal_actions(s, seat)) for s, seat, _ in points]

    def each(fn: Any) -> list[Any]:
        return [lambda s=s, seat=seat, a=a: fn(s, seat, a) for s, seat, a in points]

    best(
        "heuristic_choice",
        [lambda v=v, legal=legal: choose_action("heuristic", v, legal, rng) for v, legal in seen],
    )
    best("apply", each(lambda s, seat, a: engine.apply(s, seat, a)))
    clones = [engine.clone(s) for s, _, _ in points]

    def in_place_and_back(s: dict[str, Any], seat: int, a: dict[str, Any]) -> None:
        token, _ = engine.apply_in_place(s, seat, a)
        assert token is not None
        engine.undo(s, token)

    best(
        "apply_in_place_undo",
        [
            lambda c=c, seat=seat, a=a: in_place_and_back(c, seat, a)
            for c, (_, seat, a) in zip(clones, points, strict=True)
        ],
    )
    best("clone", each(lambda s, seat, a: engine.clone(s)))
    best("seat_view", each(lambda s, seat, a: _bot_reads(engine.seat_view(s, seat), seat)))
    best("legal_actions", each(lambda s, seat, a: engine.legal_actions(s, seat)))
    best("view", each(lambda s, seat, a: engine.view(s, seat)))
    best("pending", each(lambda s, seat, a: engine.pending(s)))
    best("dumps", each(lambda s, seat, a: engine.dumps(s)))
    best("state_hash", each(lambda s, seat, a: engine.state_hash(s)))
    return figures


def _bot_reads(view: Any, seat: int) -> None:
    """What the heuristic bot reads of a view for one decision (app/bots/evaluate.py)."""
    me = view.get("me") or {}
    me.get("draw_odds"), me.get("petition_cost"), me.get("strikes")
    player = view["players"][seat]
    player.get("talents"), player.get("influence"), player.get("court")
    areas = view.get("areas") or {}
    for area in list(areas)[:8]:
        areas[area].get("claims")
    view.get("interrupt"), view.get("relations")


def rollouts_per_second(
    scenario: str, seats: list[str], seed: int, level: str, rollouts: int, depth: int, repeats: int
) -> dict[str, Any]:
    """Random playouts from the position half way through one bot game."""
    record = play_game(scenario, seats, seed, level)
    if record.errors:
        raise RuntimeError(f"{scenario} seed {seed}: {record.errors[0]}")
    root = engine.new_game(scenario, seats, seed)
    for seat, action in record.log[: len(record.log) // 2]:
        root, _ = engine.apply(root, seat, action)

    def to_the_end_in_place(rng: random.Random) -> int:
        state = engine.clone(root)
        moves = 0
        while engine.outcome(state) is None:
            seat = engine.pending(state)[0]["seat"]
            legal = engine.legal_actions(state, seat)
            engine.apply_in_place(state, seat, legal[rng.randrange(len(legal))], undoable=False)
            moves += 1
        return moves

    def to_the_end_copying(rng: random.Random) -> int:
        state = root
        moves = 0
        while engine.outcome(state) is None:
            seat = engine.pending(state)[0]["seat"]
            legal = engine.legal_actions(state, seat)
            state, _ = engine.apply(state, seat, legal[rng.randrange(len(legal))])
            moves += 1
        return moves

    searched = engine.clone(root)
    start_hash = engine.state_hash(searched)

    def down_and_back(rng: random.Random) -> int:
        tokens = []
        for _ in range(depth):
            if engine.outcome(searched) is not None:
                break
            seat = engine.pending(searched)[0]["seat"]
            legal = engine.legal_actions(searched, seat)
            token, _ = engine.apply_in_place(searched, seat, legal[rng.randrange(len(legal))])
            tokens.append(token)
        for token in reversed(tokens):
            assert token is not None
            engine.undo(searched, token)
        return len(tokens)

    figures: dict[str, Any] = {"rollout_from_action": len(record.log) // 2, "depth": depth}
    for name, run in (
        ("rollouts", to_the_end_in_place),
        ("undo_rollouts", down_and_back),
        ("copying_rollouts", to_the_end_copying),
    ):
        wall, cpu, moves = [], [], 0
        for r in range(repeats):
            rng = random.Random(seed + r)
            start, start_cpu = time.perf_counter(), time.process_time()
            moves = sum(run(rng) for _ in range(rollouts))
            wall.append(rollouts / (time.perf_counter() - start))
            cpu.append(rollouts / max(1e-9, time.process_time() - start_cpu))
        figures[f"{name}_per_s"] = round(max(wall), 2)
        figures[f"cpu_{name}_per_s"] = round(max(cpu), 2)
        figures[f"{name}_moves_each"] = round(moves / rollouts, 1)
    if engine.state_hash(searched) != start_hash:
        raise RuntimeError("undo did not bring the searched position back")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="games per batch")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=300, help="states timed per scenario")
    parser.add_argument("--bots", default="heuristic")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--scenario", default="all")
    parser.add_argument("--rollouts", type=int, default=20, help="search rollouts per kind")
    parser.add_argument("--depth", type=int, default=40, help="moves per undo rollout")
    parser.add_argument(
        "--path",
        choices=("in_place", "copying"),
        default="in_place",
        help="the bot loop's apply: apply_in_place (default) or the copying apply",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    catalogue = scenario_catalogue()
    scenarios = list(catalogue) if args.scenario == "all" else [args.scenario]
    result: dict[str, Any] = {
        "bots": args.bots,
        "games": args.games,
        "repeats": args.repeats,
        "path": args.path,
        "rollouts": args.rollouts,
    }
    per: dict[str, Any] = {}
    applies: list[float] = []
    legals: list[float] = []
    for scenario in scenarios:
        seats = catalogue[scenario]
        figures = games_per_second(
            scenario,
            seats,
            args.games,
            args.repeats,
            args.bots,
            args.seed,
            in_place=args.path == "in_place",
        )
        points = sample_states(scenario, seats, args.seed, args.bots, args.samples)
        figures.update(time_calls(points, args.repeats))
        if args.rollouts:
            figures.update(
                rollouts_per_second(
                    scenario,
                    seats,
                    args.seed,
                    args.bots,
                    args.rollouts,
                    args.depth,
                    args.repeats,
                )
            )
        figures["seats"] = len(seats)
        per[scenario] = figures
        applies.append(figures["us_per_apply"])
        legals.append(figures["us_per_legal_actions"])
        if not args.json:
            print(
                f"{scenario:<24} {figures['games_per_s']:>8.2f} games/s "
                f"({figures['actions_per_game']:.0f} actions/game, {len(seats)} seats)  "
                f"apply {figures['us_per_apply']:.0f} µs  "
                f"legal_actions {figures['us_per_legal_actions']:.0f} µs  "
                f"view {figures['us_per_view']:.0f} µs  "
                f"pending {figures['us_per_pending']:.0f} µs  "
                f"(CPU: {figures['games_per_cpu_s']:.2f} games/s, "
                f"apply {figures['cpu_us_per_apply']:.0f} µs, "
                f"legal_actions {figures['cpu_us_per_legal_actions']:.0f} µs)"
            )
            print(
                f"{'':<24} apply_in_place+undo {figures['us_per_apply_in_place_undo']:.0f} µs  "
                f"clone {figures['us_per_clone']:.0f} µs  "
                f"seat_view (bot reads) {figures['us_per_seat_view']:.0f} µs  "
                f"(CPU: {figures['cpu_us_per_apply_in_place_undo']:.0f}, "
                f"{figures['cpu_us_per_clone']:.0f}, {figures['cpu_us_per_seat_view']:.0f} µs)"
            )
            if args.rollouts:
                print(
                    f"{'':<24} search from action {figures['rollout_from_action']}: "
                    f"{figures['rollouts_per_s']:.2f} rollouts/s to the end "
                    f"(clone + apply_in_place, "
                    f"{figures['rollouts_moves_each']:.0f} moves each; "
                    f"copying apply: {figures['copying_rollouts_per_s']:.2f}/s), "
                    f"{figures['undo_rollouts_per_s']:.1f} rollouts/s of "
                    f"{figures['depth']} moves and back (apply_in_place + undo)  "
                    f"(CPU: {figures['cpu_rollouts_per_s']:.2f}, "
                    f"copying {figures['cpu_copying_rollouts_per_s']:.2f}, "
                    f"undo {figures['cpu_undo_rollouts_per_s']:.1f} per s)"
                )
    result["scenarios"] = per
    result["games_per_s"] = {s: f["games_per_s"] for s, f in per.items()}
    result["games_per_cpu_s"] = {s: f["games_per_cpu_s"] for s, f in per.items()}
    if args.rollouts:
        result["rollouts_per_s"] = {s: f["rollouts_per_s"] for s, f in per.items()}
        result["undo_rollouts_per_s"] = {s: f["undo_rollouts_per_s"] for s, f in per.items()}
    result["us_per_apply"] = round(statistics.mean(applies), 1) if applies else None
    result["us_per_legal_actions"] = round(statistics.mean(legals), 1) if legals else None
    result["cpu_us_per_apply"] = round(
        statistics.mean(f["cpu_us_per_apply"] for f in per.values()), 1
    )
    result["cpu_us_per_legal_actions"] = round(
        statistics.mean(f["cpu_us_per_legal_actions"] for f in per.values()), 1
    )
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(
            f"mean over scenarios: apply {result['us_per_apply']} µs, "
            f"legal_actions {result['us_per_legal_actions']} µs "
            f"(CPU time: apply {result['cpu_us_per_apply']} µs, "
            f"legal_actions {result['cpu_us_per_legal_actions']} µs)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
