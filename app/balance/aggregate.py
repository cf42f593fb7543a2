"""The figures of one scenario's games, as the report prints them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from app.balance.games import GameSummary
from app.balance.stats import mean, percentile, wilson


def scenario_figures(games: list[GameSummary]) -> dict[str, Any]:
    """Win rates with 95% intervals, scores, busts, length, comeback and margin, and the
    bots' diplomacy a game (``politics_mean``, ``openings``: docs/bots.md)."""
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
    keys = sorted({k for g in ok for k in g.politics})
    politics = {k: mean([float(g.politics.get(k, 0)) for g in ok]) for k in keys}
    seen = Counter(g.opening for g in ok)
    top = seen.most_common(1)[0][1] if seen else 0
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
        # the bots' census, as ``simulate --json`` prints it for the same games
        "politics_mean": politics,
        "openings": {"distinct": len(seen), "top_share": round(top / len(ok), 4) if ok else 0.0},
    }
