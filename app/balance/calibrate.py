"""Victory levels fitted to measured games (26.2), for the next measurement.

A game's winner is the highest standing, its total less its victory level, and the
game only ends after the last game turn (26.2): so the games just played say who
*would* have won them under other levels. ``fitted_levels`` looks for the half-point
levels under which those same games give every power its fair share of the wins,
closest first (the sum of squared distances from 1/N), moving one level at a time from
today's levels.

It is a first-order answer, held up to be re-measured: the bots play to the standings
(they gang up on the leader by standing, app/bots/politics.py), so new levels change
the games as well as their scoring, and by more than the scoring alone: the full fit of
600 Late Antiquity games moved the Hephthalites from 25.5% to 12.8% on new seeds where it
foresaw 17.1%, the Sasanians from 11.8% to 20.2% (16.1% foreseen). ``step`` (by default
half) applies that part of each move. It replaces a rule of thumb on the mean standings
and win rates, which moved the nomads (the Xiongnu, the Turks: the highest mean standing
of their tables and the fewest wins, their results spread narrowly) the wrong way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.balance.games import GameSummary
from app.engine.scoring import as_points

#: the finest step of a level (26.2)
HALF = 0.5
#: the part of the fitted move a round applies (see above)
STEP = 0.5
#: the furthest one move of one level looks, in points
REACH = 10.0
#: at most this many moves in one fit
MAX_MOVES = 100


def rescored_win_rates(
    games: Sequence[GameSummary], powers: Sequence[str], levels: dict[str, float]
) -> dict[str, float]:
    """Each power's share of `games` won had the levels been `levels`: the highest
    total less level wins; a tie (the engine breaks it by areas, then talents, which a
    summary does not keep) is shared."""
    wins = dict.fromkeys(powers, 0.0)
    played = [g for g in games if g.error is None and g.scores]
    for game in played:
        standing = {p: game.scores[p] - levels.get(p, 0.0) for p in powers if p in game.scores}
        top = max(standing.values())
        leaders = [p for p, s in standing.items() if s == top]
        for p in leaders:
            wins[p] += 1 / len(leaders)
    return {p: w / len(played) if played else 0.0 for p, w in wins.items()}


def _distance(rates: dict[str, Any]) -> float:
    fair = 1 / len(rates)
    return sum((r - fair) ** 2 for r in rates.values())


def fitted_levels(
    games: Sequence[GameSummary], levels: dict[str, float], step: float = STEP
) -> dict[str, float]:
    """The seated powers' levels that even out the wins of `games` when re-scored,
    moved `step` of the way from `levels` and rounded to half points. Deterministic:
    each move is the one level's change that helps most (on a tie, the first power by
    name, then the smallest change)."""
    powers = sorted(games[0].powers) if games else []
    if len(powers) < 2:
        return {p: as_points(levels.get(p, 0)) for p in powers}
    start = {p: float(levels.get(p, 0)) for p in powers}
    fit = dict(start)
    best = _distance(rescored_win_rates(games, powers, fit))
    # One power at a time, by the move (up to REACH either way) that helps most: a
    # single half point may change no game's winner, so the search looks further.
    deltas = [sign * HALF * k for k in range(1, int(REACH / HALF) + 1) for sign in (-1, 1)]
    for _ in range(MAX_MOVES):
        move: dict[str, float] | None = None
        for power in powers:
            for delta in deltas:
                trial = {**fit, power: fit[power] + delta}
                distance = _distance(rescored_win_rates(games, powers, trial))
                if distance < best - 1e-12:
                    best, move = distance, trial
        if move is None:
            break
        fit = move
    return {p: as_points(round(2 * (start[p] + step * (fit[p] - start[p]))) / 2) for p in powers}
