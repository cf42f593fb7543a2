"""Play seat-rotated bot games and keep what the balance report needs of each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app import engine
from app.balance.pace import place_of, seconds_for
from app.bots.runner import play_game
from app.bots.strong import Budget

#: a Strong seat's budget in a measurement: the default, its seconds counted as the
#: search's own CPU time (docs/bots.md), so a busy or paused machine measures the same bot
MEASURE_BUDGET = Budget(clock="cpu")


@dataclass(frozen=True)
class Job:
    scenario: str
    powers: tuple[str, ...]
    levels: tuple[str, ...]
    seed: int
    options: tuple[tuple[str, Any], ...] = ()


@dataclass
class GameSummary:
    scenario: str
    seed: int
    powers: list[str]
    levels: list[str]
    winner: str | None = None
    scores: dict[str, float] = field(default_factory=dict)
    standings: dict[str, float] = field(default_factory=dict)
    petitions: int = 0
    busts: int = 0
    actions: int = 0
    live_seconds: float = 0.0
    midpoint_leader: str | None = None
    error: str | None = None
    #: the game's diplomacy as ``simulate`` counts it (``runner.POLITICS``) and its
    #: opening, so that one run gives the powers' balance and the bots' census
    politics: dict[str, int] = field(default_factory=dict)
    opening: tuple[tuple[str, str, str], ...] = ()

    @property
    def margin(self) -> float:
        """The winner's lead over the runner-up, in standing (26.2: victory points
        less the victory level)."""
        ordered = sorted((self.standings or self.scores).values(), reverse=True)
        return ordered[0] - ordered[1] if len(ordered) >= 2 else 0.0


def rotated_levels(levels: list[str], seats: int, game: int) -> tuple[str, ...]:
    """The level of each seat in game ``game``: ``levels`` cycled over the seats and
    shifted one seat per game, so that over ``len(levels)`` games (or a multiple of
    the seat count) every power is played by every level equally often."""
    return tuple(levels[(seat + game) % len(levels)] for seat in range(seats))


def plan(
    scenario: str,
    powers: list[str],
    levels: list[str],
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
) -> list[Job]:
    frozen = tuple(sorted((options or {}).items()))
    return [
        Job(scenario, tuple(powers), rotated_levels(levels, len(powers), g), seed + g, frozen)
        for g in range(games)
    ]


def _leader(scores: dict[int, dict[str, Any]]) -> int | None:
    """The seat with the single highest standing (26.2), or None on a tie for the lead."""
    totals = sorted(((v.get("standing", v["total"]), s) for s, v in scores.items()), reverse=True)
    if not totals or (len(totals) > 1 and totals[0][0] == totals[1][0]):
        return None
    return int(totals[0][1])


def play(job: Job) -> GameSummary:
    """Play one game; the leader is sampled at every round boundary, and the
    sample nearest the game's middle (by actions) is its midpoint leader."""
    summary = GameSummary(job.scenario, job.seed, list(job.powers), list(job.levels))
    samples: list[tuple[int, int | None]] = []
    last: dict[str, Any] = {"round": None, "action": None, "count": 0, "seconds": 0.0}
    places: dict[int, tuple[Any, Any]] = {}  # each seat's last endeavour (pace.place_of)

    def on_step(
        state: dict[str, Any], seat: int, action: dict[str, Any], events: Any, choices: int
    ) -> None:
        last["count"] += 1
        court = state["players"][seat].get("court")  # a court tax leaves it where it is
        last["seconds"] += seconds_for(action, last["action"], choices, court, places.get(seat))
        if action.get("type") == "endeavour":
            places[seat] = place_of(action)
        last["action"] = action
        key = (state.get("turn"), state.get("round"))
        if key != last["round"]:
            last["round"] = key
            samples.append((last["count"], _leader(engine.score(state))))

    record = play_game(
        job.scenario,
        list(job.powers),
        job.seed,
        list(job.levels),
        dict(job.options) or None,
        use_explain=True,
        keep_log=False,
        on_step=on_step,
        budget=MEASURE_BUDGET,
    )
    summary.petitions = record.petitions
    summary.busts = record.busts
    summary.actions = record.actions
    summary.live_seconds = float(last["seconds"])
    summary.politics = dict(record.politics)
    summary.opening = record.opening
    if record.errors:
        summary.error = record.errors[0][:2000]
        return summary
    summary.winner = record.winner_power
    raw = (record.outcome or {}).get("scores") or {}
    for seat, power in enumerate(job.powers):
        item = raw.get(str(seat), {})
        if isinstance(item, dict):
            total = float(item.get("total") or 0)
            summary.scores[power] = total
            summary.standings[power] = float(item.get("standing", total))
    if samples:
        middle = record.actions / 2
        _, seat_ = min(samples, key=lambda s: abs(s[0] - middle))
        summary.midpoint_leader = job.powers[seat_] if seat_ is not None else None
    return summary
