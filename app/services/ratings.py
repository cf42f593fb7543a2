"""Player ratings, presence and profiles.

Ratings use openskill's Plackett-Luce model (a maintained multiplayer Bayesian rating:
every finished game's ranking updates every rated person at once). A rating is shown
as its conservative estimate ``mu - 3 sigma`` scaled ×40 and offset so a newcomer
starts at 1000 and a rating only grows with evidence. Bots take part in the update
at a fixed rating per level (they are never rated themselves), so beating a bot moves
a rating less than beating a stronger person would.

Only a game between people is rated: the tutorial and a game with no other person in it
(one person against bots) change nothing (``unrated_reason``), as a teaching win is no
evidence of strength. A seat a stand-in played for more than half of its decisions
(``stood_in``: the bot made them, not her) is no evidence of its person's strength either:
it is unrated for her, and in the others' update it counts as the stand-in bot's seat
(issue 40). When that leaves fewer than two people who played, the game is unrated. A rating is *provisional* (shown with a "?", as lichess marks one)
until its holder has finished ``PROVISIONAL_GAMES`` rated games: until then one result
moves it by 100 points or more.

Services never commit: the caller's transaction owns the change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy.orm import Session

from app.services import lobby
from app.store import accounts
from app.store import ratings as store
from app.store.models import Game, PlayerStats, User
from app.store.types import utcnow

MU, SIGMA = 25.0, 25.0 / 3
#: the fixed rating of each bot level in a rating update (they are never updated)
BOT_MU = {"random": 12.0, "novice": 18.0, "heuristic": 25.0, "standard": 25.0, "strong": 30.0}
BOT_SIGMA = 2.0
#: the level a stand-in plays at (app/services/standins.py ``LEVEL``, the Standard bot): a
#: seat it played for most of its decisions enters the others' update as this bot
STANDIN_LEVEL = "heuristic"
#: a rating is provisional ("1138?") until this many rated games are finished: by then
#: sigma has fallen from 8.3 to about 7 and a game moves the shown rating by ~100, not 200
PROVISIONAL_GAMES = 5
#: seen within this long counts as online in the lobby
ONLINE_FOR = timedelta(minutes=5)
#: presence is written at most this often per user (a page load is not a write)
SEEN_EVERY = timedelta(seconds=60)


def shown(mu: float, sigma: float) -> int:
    """The rating players see: 1000 for a newcomer, rising as the evidence grows."""
    return round(1000 + 40 * ((mu - 3 * sigma) - (MU - 3 * SIGMA)))


@dataclass(frozen=True)
class Rating:
    """A rating as pages show it: ``str()`` is "1138", or "1138?" while provisional."""

    value: int
    games: int

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    @property
    def title(self) -> str:
        """The tooltip: what the number is, and why it may carry a "?"."""
        if self.provisional:
            return (
                f"Provisional rating: {self.games} of {PROVISIONAL_GAMES} rated games played "
                "(games between people; the tutorial, games against bots only and seats a "
                "stand-in played for most of their decisions are unrated)"
            )
        return f"Rating (openskill) after {self.games} rated games"

    def __str__(self) -> str:
        return f"{self.value}?" if self.provisional else str(self.value)


NEWCOMER = Rating(shown(MU, SIGMA), 0)


def rating_of(stats: PlayerStats | None) -> Rating:
    return Rating(shown(stats.mu, stats.sigma), stats.games) if stats else NEWCOMER


def stood_in(notes: dict[str, Any] | None) -> dict[int, tuple[int, int]]:
    """seat -> (decisions a stand-in made, all the seat's decisions) for each seat a
    stand-in played for more than half of its decisions, from a finished game's result
    notes (``standin`` and ``decisions``, written by ``standins.on_finish``). A game
    finished before the notes counted every decision has none."""
    notes = notes or {}
    made = notes.get("standin") or {}
    decisions = notes.get("decisions") or {}
    out: dict[int, tuple[int, int]] = {}
    for seat, n in made.items():
        total = int(decisions.get(seat, 0))
        if total and 2 * int(n) > total:
            out[int(seat)] = (int(n), total)
    return out


def standin_words(made: int, total: int) -> str:
    """Why a seat is unrated for its person, in words."""
    return f"a stand-in made {made} of the seat's {total} decisions (more than half)"


def unrated_reason(game: Game) -> str | None:
    """Why `game` does not move ratings (None: it does): the tutorial, or no other
    person at the table (bots and stand-ins are not evidence of a person's strength):
    a seat a stand-in played for most of its decisions counts as a bot's."""
    if (game.options or {}).get("tutorial") or game.scenario == "tutorial":
        return "the tutorial"
    people = {s.user_id for s in game.seats if s.user_id is not None}
    if len(people) < 2:
        return "no other person at the table"
    stood = stood_in(game.result_notes)
    played = {s.user_id for s in game.seats if s.user_id is not None and s.index not in stood}
    if len(played) < 2:
        return "fewer than two people played their own seats (stand-ins made most decisions)"
    return None


def stats_for(db: Session, user_id: int, lock: bool = False) -> PlayerStats:
    """The user's row, made on first need. Two requests making it at once are safe
    (the loser's insert rolls back to a savepoint and reads the winner's row);
    `lock` holds the row until the transaction ends (a rating update)."""
    return store.stats_for(db, user_id, lock, MU, SIGMA)


def ratings_of(db: Session, user_ids: list[int]) -> dict[int, Rating]:
    """user id -> shown rating (1000, provisional, for one never rated)."""
    if not user_ids:
        return {}
    rows = store.stats_of(db, user_ids)
    found = {r.user_id: rating_of(r) for r in rows}
    return {uid: found.get(uid, NEWCOMER) for uid in user_ids}


def rate_game(db: Session, game: Game) -> dict[int, tuple[int, int]]:
    """Update the rating of every person seated in finished `game` from its ranking.
    Returns user id -> (rating before, rating after). Idempotent: a game is rated once
    (its ``result_notes`` keep ``rated``). A game `unrated_reason` names changes no
    rating: its notes keep ``unrated`` (the reason) instead. A seat a stand-in played
    for most of its decisions (``stood_in``) is left out for its person (the notes'
    ``standin_unrated`` say why) and enters the others' update as the stand-in bot."""
    outcome = game.outcome or {}
    notes = dict(game.result_notes or {})
    ranking = [int(s) for s in outcome.get("ranking") or []]
    if game.status != "finished" or not ranking or "rated" in notes or "unrated" in notes:
        return {}
    by_index = {s.index: s for s in game.seats}
    stood = stood_in(notes)
    unrated_people = {
        str(by_index[i].user_id): standin_words(*stood[i])
        for i in stood
        if i in by_index and by_index[i].user_id is not None
    }
    if unrated_people:
        notes["standin_unrated"] = unrated_people
    reason = unrated_reason(game)
    if reason is not None:
        notes["unrated"] = reason
        game.result_notes = notes
        db.flush()
        return {}
    model = PlackettLuce(mu=MU, sigma=SIGMA)
    teams: list[list[Any]] = []
    people: list[tuple[int, PlayerStats] | None] = []
    for index in ranking:
        seat = by_index.get(index)
        if seat is None:
            continue
        if seat.user_id is not None and index not in stood:
            stats = stats_for(db, seat.user_id, lock=True)
            teams.append([model.rating(mu=stats.mu, sigma=stats.sigma)])
            people.append((seat.user_id, stats))
        else:
            level = STANDIN_LEVEL if seat.user_id is not None else seat.bot_level or ""
            teams.append([model.rating(mu=BOT_MU.get(level, MU), sigma=BOT_SIGMA)])
            people.append(None)
    if not any(people):
        return {}
    rated = model.rate(teams, ranks=list(range(1, len(teams) + 1)))
    now = utcnow()
    changes: dict[int, tuple[int, int]] = {}
    for place, (entry, team) in enumerate(zip(people, rated, strict=True)):
        if entry is None:
            continue
        uid, stats = entry
        before = shown(stats.mu, stats.sigma)
        stats.mu, stats.sigma = float(team[0].mu), float(team[0].sigma)
        stats.games += 1
        stats.wins += 1 if place == 0 else 0
        stats.updated_at = now
        changes[uid] = (before, shown(stats.mu, stats.sigma))
    notes["rated"] = {str(uid): list(v) for uid, v in changes.items()}
    game.result_notes = notes
    db.flush()
    return changes


# --------------------------------------------------------------------------- presence


def seen(db: Session, user_id: int, now: datetime | None = None) -> None:
    """Note that `user_id` is here (written at most once a minute)."""
    now = now or utcnow()
    stats = stats_for(db, user_id)
    if stats.last_seen_at is None or now - stats.last_seen_at >= SEEN_EVERY:
        stats.last_seen_at = now
        db.flush()


def online(db: Session, now: datetime | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """The people seen in the last few minutes, most recent first."""
    since = (now or utcnow()) - ONLINE_FOR
    rows = store.seen_since(db, since, limit)
    return [{"username": r.user.username, "rating": rating_of(r), "games": r.games} for r in rows]


# --------------------------------------------------------------------------- profiles


@dataclass
class Profile:
    user: User
    rating: Rating
    games: int  # rated games finished
    wins: int  # of those
    online: bool
    history: list[dict[str, Any]]

    @property
    def rated(self) -> list[dict[str, Any]]:
        """The games that move (or moved) the rating."""
        return [h for h in self.history if h["rated"]]

    @property
    def unrated(self) -> list[dict[str, Any]]:
        """The tutorial and games against bots only."""
        return [h for h in self.history if not h["rated"]]


def profile(db: Session, username: str, viewer_id: int | None = None) -> Profile | None:
    """A player's rating and the games they played (public ones, or ones the viewer
    shared), newest first."""
    user = accounts.user_named(db, username.lower())
    if user is None:
        return None
    stats = db.get(PlayerStats, user.id)
    history = [game_line(g, user.id) for g in store.played_games(db, user.id, viewer_id, 50)]
    now = utcnow()
    return Profile(
        user=user,
        rating=rating_of(stats),
        games=stats.games if stats else 0,
        wins=stats.wins if stats else 0,
        online=bool(stats and stats.last_seen_at and now - stats.last_seen_at < ONLINE_FOR),
        history=history,
    )


def game_line(game: Game, user_id: int) -> dict[str, Any]:
    """One game in a player's history: their power, place, points, rating change."""
    seat = next(s for s in game.seats if s.user_id == user_id)
    outcome = game.outcome or {}
    ranking = [int(s) for s in outcome.get("ranking") or []]
    place = ranking.index(seat.index) + 1 if seat.index in ranking else None
    score = (outcome.get("scores") or {}).get(str(seat.index)) or {}
    notes = game.result_notes or {}
    change = (notes.get("rated") or {}).get(str(user_id))
    # a game rated before the tutorial and bot-only games were unrated stays rated
    unrated = None if "rated" in notes else notes.get("unrated") or unrated_reason(game)
    # her seat, played by a stand-in for most of its decisions, is unrated for her alone
    unrated = (notes.get("standin_unrated") or {}).get(str(user_id)) or unrated
    standin = int((notes.get("standin") or {}).get(str(seat.index), 0))
    return {
        "id": game.id,
        "status": game.status,
        "scenario_name": lobby.scenario_name(game.scenario),
        "power": seat.power,
        "power_name": lobby.power_name(game.scenario, seat.power),
        "place": place,
        "of": len(game.seats),
        "vp": score.get("total") if isinstance(score, dict) else None,
        "rating_change": (change[1] - change[0]) if change else None,
        "rated": unrated is None,
        "unrated_reason": unrated,
        "standin": standin,
        "finished_at": game.finished_at,
    }
