"""The figures of one scenario's games, as the report prints them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from app.balance.games import GameSummary
from app.balance.stats import mean, percentile, wilson
from app.engine.scoring import as_points


def scenario_figures(games: list[GameSummary]) -> dict[str, Any]:
    """Win rates with 95% intervals, scores, busts, length, comeback and margin."""
    ok = [g for g in games if g.error is None]
    powers = sorted(games[0].powers) if games else []  # by name: the same games, the same report
    n = len(powers)
    wins: Counter[str] = Counter(g.winner for g in ok if g.winner)
    by_power: dict[str, Any] = {}
    for power in powers:
        w = wins[power]
        low, high = wilson(w, len(ok))
        by_power[power] = {
            "wins": w,
            "win_rate": w / len(ok) if ok else 0.0,
            "ci95": [low, high],
            "mean_score": mean([g.scores.get(power, 0.0) for g in ok]),
            "mean_standing": mean([g.standings.get(power, 0.0) for g in ok]),
        }
    levels = sorted({level for g in ok for level in g.levels})
    by_level: dict[str, Any] = {}
    if len(levels) > 1:
        for level in levels:
            seats = sum(g.levels.count(level) for g in ok)
            w = sum(1 for g in ok if g.winner and g.levels[g.powers.index(g.winner)] == level)
            low, high = wilson(w, seats)
            by_level[level] = {
                "seats": seats,
                "wins": w,
                "win_rate": w / seats if seats else 0.0,
                "ci95": [low, high],
            }
    petitions = sum(g.petitions for g in ok)
    busts = sum(g.busts for g in ok)
    led = [g for g in ok if g.midpoint_leader is not None]
    minutes = [g.live_seconds / 60 for g in ok]
    fair = 1 / n if n else 0.0
    return {
        "games": len(games),
        "errors": len(games) - len(ok),
        "error_samples": [f"seed {g.seed}: {g.error}" for g in games if g.error][:3],
        "powers": by_power,
        "levels": by_level,
        "fair_share": fair,
        "max_deviation": max((abs(p["win_rate"] - fair) for p in by_power.values()), default=0.0),
        "petitions": petitions,
        "busts": busts,
        "bust_rate": busts / petitions if petitions else 0.0,
        "mean_actions": mean([float(g.actions) for g in ok]),
        "mean_live_minutes": mean(minutes),
        "p90_live_minutes": percentile(minutes, 90),
        "midpoint_leader_wins": (
            sum(1 for g in led if g.winner == g.midpoint_leader) / len(led) if led else 0.0
        ),
        "midpoint_games": len(led),
        "mean_margin": mean([g.margin for g in ok]),
        "median_margin": percentile([g.margin for g in ok], 50),
        "no_winner": sum(1 for g in ok if g.winner is None),
    }


WIN_GAIN = 30.0
"""Victory-level points per unit of excess win rate: one point of level for each 3.3
points of win rate above the fair share. Damped on purpose (a point of level moves a
power's win rate by roughly two to four points in the measured scenarios), so that
repeated calibrations converge instead of swinging."""


STEP = 0.5
"""How much of the measured correction one calibration applies. The bots' politics
answer the standings (they gang up on the leader by standing), so a full step
overshoots: in The Four Empires a full step moved the strongest power from Rome to
Han and Parthia and back."""


def calibrated_levels(
    figures: dict[str, Any], levels: dict[str, float], gain: float = WIN_GAIN, step: float = STEP
) -> dict[str, float]:
    """26.2: victory levels for the next measurement. Each level moves by how far the
    power's mean standing is above the scenario's average, and by ``gain`` times its
    win rate above the fair share: equal means are not yet equal chances, since a
    power whose results spread wider wins more often. ``step`` of that correction is
    applied, rounded to half points (the finest step, 26.2); the result is
    re-measured, never trusted."""
    by_power = figures.get("powers") or {}
    if not by_power:
        return dict(levels)
    average = mean([float(v["mean_standing"]) for v in by_power.values()])
    fair = float(figures.get("fair_share") or 1 / len(by_power))

    def excess(v: dict[str, Any]) -> float:
        return float(v["mean_standing"]) - average + gain * (float(v.get("win_rate", fair)) - fair)

    return {
        power: as_points(float(levels.get(power, 0)) + round(2 * step * excess(v)) / 2)
        for power, v in by_power.items()
    }
