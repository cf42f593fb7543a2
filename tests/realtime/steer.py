"""Find, with the engine itself, a line of play that reaches given prompts.

The server's game is deterministic (seed + actions), so a test reads the seed the
server drew, searches here for a sequence of legal actions that leads to a petition,
a defense interrupt and a parley vote, and then plays exactly that sequence through
the sockets. Every action is one ``legal_actions`` offered. A move that is no choice
(a single legal action) is left out of the line: the server plays it for the person the
moment it arises (`app.services.moves.forced_action`), so a socket never sends it.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from app import engine
from app.services.moves import forced_action

Step = tuple[int, dict[str, Any]]  # (seat, action)


def _choose(
    state: dict[str, Any],
    legal: list[dict[str, Any]],
    seat: int,
    rng: random.Random,
    want: set[str],
) -> dict[str, Any]:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for action in legal:
        by[action["type"]].append(action)
    areas = state["areas"]
    for action in by["diplo"]:
        if action.get("move") == "declare_war":
            return action
    for action in by["diplo"]:
        if action.get("move") == "pass":
            return action
    if by["defend"]:
        return max(by["defend"], key=lambda a: int(a.get("talents", 0)))
    if by["vote"]:
        return rng.choice(by["vote"])
    endeavours = by["endeavour"]

    def against_rival(action: dict[str, Any]) -> bool:
        return areas[action["target"]]["owner"] not in (None, seat)

    if "defend" in want:
        attacks = [
            a for a in endeavours if a["kind"] in ("conquest", "pillage") and against_rival(a)
        ]
        if attacks:
            return rng.choice(attacks)
    if "vote" in want:
        talks = [a for a in endeavours if a["kind"] == "diplomacy" and against_rival(a)]
        if talks:
            return max(talks, key=lambda a: int(a.get("talents", 0)))
    if by["petition"] and ("petition" in want or rng.random() < 0.3):
        return by["petition"][0]
    if by["draw"]:
        return by["draw"][0]
    return rng.choice(legal)


def _goal_now(current: dict[str, Any], action: dict[str, Any] | None, left: set[str]) -> str | None:
    """Which remaining goal this position (or the action about to be taken) meets."""
    prompts = engine.pending(current)
    if "defend" in left and any(p["kind"] == "defend" for p in prompts):
        return "defend"
    if "vote" in left and sum(p["kind"] == "vote" for p in prompts) >= 2:
        return "vote"
    if "petition" in left and action is not None and action["type"] == "petition":
        return "petition"
    return None


def find_line(
    state: dict[str, Any],
    goals: set[str] | list[str],
    tries: int = 80,
    steps: int = 150,
) -> tuple[list[Step], list[str]]:
    """A sequence of (seat, action) from `state` along which every goal is met, and the
    goals in the order met. Goals: "petition" (a petition is made), "defend" (a defense
    prompt is pending), "vote" (a parley vote prompts two seats at once). A list of
    goals is met in that order (so a prompt asked for last is still pending at the end);
    a set, in any order.

    Stagewise: random steered playouts from the current position until one meets a
    goal; keep that prefix and go on from there."""
    line: list[Step] = []
    met: list[str] = []
    current = state
    ordered = list(goals) if isinstance(goals, list) else None
    while set(met) != set(goals):
        left = {ordered[len(met)]} if ordered is not None else set(goals) - set(met)
        for attempt in range(tries):
            rng = random.Random(attempt * 1000 + len(line))
            probe, taken = current, []
            reached = None
            for _ in range(steps):
                if engine.outcome(probe) is not None:
                    break
                reached = _goal_now(probe, None, left)
                if reached:
                    break
                seat = int(engine.pending(probe)[0]["seat"])
                legal = engine.legal_actions(probe, seat)
                action = _choose(probe, legal, seat, rng, left)
                if _goal_now(probe, action, left) == "petition":
                    reached = "petition"
                probe, _events = engine.apply(probe, seat, action)
                if forced_action(legal) is None:  # else the server plays it
                    taken.append((seat, action))
                if reached:
                    break
            if reached:
                line += taken
                met.append(reached)
                current = probe
                break
        else:
            raise AssertionError(f"no line of play reaches {sorted(left)} (engine changed?)")
    return line, met
