"""The lobby: create a game, invite, join / leave a seat, bots, deal, lists (the start
itself, which plays on from the first position, is ``starting.start``)."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app import engine
from app.bots.levels import ALL_LEVELS, LEVELS, LOBBY_LEVELS, label
from app.engine.content import content
from app.engine.errors import BadSetup
from app.services import clocks, gamelog
from app.services.errors import Blocked, Conflict, Forbidden, Invalid, NotFound
from app.services.rows import SeatRow
from app.store import lobby as store
from app.store import moderation as blocks
from app.store.models import Game, Invite, Seat, User
from app.store.types import utcnow

#: the paces (app/services/clocks.py): a time bank per person, or no clock
PACES = clocks.PACES
#: "auto" in a form: no clock if every other seat is a bot, else the live bank. Friends
#: who make a table together mostly play it now, together; a live bank keeps the table
#: moving, and whoever leaves is played by her orders and a stand-in at once, so a table
#: that turns out slower loses nothing by starting live ("daily" is one click away).
AUTO_PACE = "auto"
#: a pace in a few words, as the lobby lists games
PACE_LABELS = {
    "auto": "automatic",
    "daily": "daily (24 h a decision)",
    "none": "no clock",
    "24h": "24 hours a decision",
    "72h": "72 hours a decision",
}
#: what each choice means, one line each, as the new-game form says it
PACE_HELP = {
    "auto": "Automatic: live when other people sit at the table, no clock against bots only.",
    "daily": "Daily: 24 hours for each decision; time you do not use is kept, up to 3 days. "
    + "When it runs out, a bot plays your seat until you are back.",
    "none": "No clock: nobody is hurried, and no seat goes to a stand-in for being slow.",
}
#: what the new-game form offers, in order (older games keep "24h" and "72h")
PACE_CHOICES = (AUTO_PACE, *clocks.PRESETS)


def pace_label(pace: str) -> str:
    """A pace in a few words, as the lobby lists games (the live bank as configured,
    app/services/clocks.py ``configure``)."""
    tc = clocks.PACES["live"]
    if pace == "live" and tc is not None:
        bank = f"{tc.start // 60} min" if tc.start % 60 == 0 else f"{tc.start} s"
        return f"live ({bank} + {tc.increment} s a decision)"
    return PACE_LABELS.get(pace, pace)


def pace_help(pace: str) -> str:
    """What a pace means, one line, as the new-game form says it."""
    tc = clocks.PACES["live"]
    if pace == "live" and tc is not None:
        return (
            f"Live: a chess clock: {clocks.span_words(tc.start)} each, plus "
            f"{clocks.span_words(tc.increment)} for every decision (at most "
            f"{clocks.span_words(tc.cap)} banked). Yours runs only while the table waits for you; "
            "when it runs out, your standing orders and a Standard bot play your seat until you "
            "are back, so nobody waits."
        )
    return PACE_HELP[pace]


MAX_SEATS = 6


# --------------------------------------------------------------------------- content


def scenarios() -> list[dict[str, Any]]:
    """The scenarios of the content pack (teaching ones first)."""
    found: list[dict[str, Any]] = list(content().get("scenarios", []) or [])
    return sorted(found, key=lambda s: (not s.get("teaching", False), s.get("start_year", 0)))


def scenario(scenario_id: str) -> dict[str, Any]:
    for s in scenarios():
        if s["id"] == scenario_id:
            return s
    raise Invalid(f"There is no scenario called {scenario_id!r}.", field="scenario")


def scenario_name(scenario_id: str) -> str:
    found = next((x for x in scenarios() if x["id"] == scenario_id), None)
    return str(found.get("name", scenario_id)) if found else scenario_id


def power_info(scenario_id: str, power: str | None) -> dict[str, Any] | None:
    """The scenario's entry for `power` (name, colour, pattern), None if unknown."""
    if power is None:
        return None
    found = next((x for x in scenarios() if x["id"] == scenario_id), None)
    for p in (found or {}).get("powers", []):
        if p["id"] == power:
            return dict(p)
    return None


def power_name(scenario_id: str, power: str | None) -> str | None:
    """ "Northern Wei" for "wei": the lobby never shows a power's code."""
    info = power_info(scenario_id, power)
    return str(info.get("name", power)) if info else power


def power_name_or_none(seat: Seat) -> str | None:
    game = seat.game
    return power_name(game.scenario, seat.power) if game is not None else seat.power


def default_scenario_id() -> str | None:
    found = scenarios()
    return found[0]["id"] if found else None


def seat_bounds(s: dict[str, Any]) -> tuple[int, int]:
    powers = len(s.get("powers", []))
    low = int(s.get("min_players", 1) or 1)
    high = int(s.get("max_players", powers) or powers)
    return max(1, low), min(high, powers, MAX_SEATS)


def bot_levels() -> tuple[str, ...]:
    """The levels the lobby offers (app/bots/levels.py), weakest first."""
    return tuple(LOBBY_LEVELS)


def bot_level_info() -> list[dict[str, str]]:
    """id, label and one-line description of each offered level, for forms and the API."""
    return [{"id": x.id, "label": x.label, "description": x.description} for x in LEVELS]


def bot_labels() -> dict[str, str]:
    """Every accepted level id (old ids too) -> the name a player reads."""
    return {level: label(level) for level in ALL_LEVELS}


def check_bot_level(level: str | None) -> str:
    offered = bot_levels()
    if not level:
        # The Standard level under the id games have always stored (an alias of "standard").
        level = "heuristic"
    if level not in ALL_LEVELS:
        raise Invalid(
            f"There is no bot level {level!r} (choose one of {', '.join(offered) or 'none'}).",
            field="bot_level",
        )
    return level


# --------------------------------------------------------------------------- loading


def get_game(db: Session, game_id: int) -> Game:
    game = store.game(db, game_id)
    if game is None:
        raise NotFound(f"There is no game {game_id}.")
    return game


def invite_code(db: Session, game: Game) -> str | None:
    return store.invite_code(db, game.id)


def game_for_code(db: Session, code: str) -> Game:
    invite = store.invite(db, code)
    if invite is None:
        raise NotFound("That invite link is not valid (or the game was removed).")
    return get_game(db, invite.game_id)


def seat_of(game: Game, user_id: int | None) -> Seat | None:
    if user_id is None:
        return None
    return next((s for s in game.seats if s.user_id == user_id), None)


def can_see(db: Session, game: Game, user_id: int | None, code: str | None = None) -> bool:
    """Public games are open to all; a private one to its seated players, its host
    and whoever holds the invite code."""
    if game.public or (user_id is not None and (game.host_id == user_id or seat_of(game, user_id))):
        return True
    return bool(code) and code == invite_code(db, game)


def touch(game: Game) -> None:
    """A change clients may care about; the unit of work that carries it moves the
    version (app/services/unit.py, through app/services/starting.py)."""
    game.updated_at = utcnow()


# --------------------------------------------------------------------------- create


@dataclass
class SeatSpec:
    kind: str  # "human" | "bot"
    bot_level: str | None = None


#: the engine options a game may set (their types and ranges: app/web/schemas.py
#: GameOptions, enforced at the edge; the scenario's bounds are checked here)
OPTION_KEYS = ("end_turn", "rounds")
#: marks the server itself sets and the engine ignores (never accepted from a client:
#: the edge's GameOptions schema forbids other keys): the guided tutorial's game
SERVER_OPTION_KEYS = ("tutorial",)


def startable_options(s: dict[str, Any], seats: int, options: dict[str, Any]) -> dict[str, Any]:
    """The options to store, once the engine has set up a game with them and this many
    seats: a game is never created that could not start (422 naming the option)."""
    unknown = sorted(set(options) - set(OPTION_KEYS) - set(SERVER_OPTION_KEYS))
    if unknown:
        raise Invalid(f"There is no option {unknown[0]!r}.", field=f"options.{unknown[0]}")
    turns = int(s.get("turns", 4))
    end_turn = options.get("end_turn", 1)
    if not isinstance(end_turn, int) or not 1 <= end_turn <= turns:
        raise Invalid(
            f"options.end_turn: {s.get('name', s['id'])} has {turns} turns; "
            f"end_turn is 1 to {turns}.",
            field="options.end_turn",
        )
    low, high = seat_bounds(s)
    powers = [p["id"] for p in s["powers"]][: min(max(seats, low), high)]
    try:
        engine.new_game(s["id"], powers, 0, {k: v for k, v in options.items() if k in OPTION_KEYS})
    except (BadSetup, TypeError, ValueError) as exc:
        raise Invalid(f"options: {exc}", field="options") from exc
    return options


def create_game(
    db: Session,
    host: User,
    scenario_id: str,
    seats: list[SeatSpec],
    pace: str = "live",
    public: bool = True,
    host_power: str | None = None,
    options: dict[str, Any] | None = None,
) -> Game:
    s = scenario(scenario_id)
    low, high = seat_bounds(s)
    if not low <= len(seats) <= high:
        raise Invalid(
            f"{s.get('name', scenario_id)} is for {low} to {high} players, not {len(seats)}.",
            field="seats",
        )
    kinds = [spec.kind for spec in seats]
    if pace == AUTO_PACE:
        pace = "none" if kinds.count("human") == 1 else "live"
    if pace not in PACES:
        raise Invalid(f"Pace is one of {', '.join([AUTO_PACE, *PACES])}.", field="pace")
    if any(k not in ("human", "bot") for k in kinds):
        raise Invalid("Each seat is 'human' or 'bot'.", field="seats")
    if "human" not in kinds:
        raise Invalid("At least one seat must be a person: yours.", field="seats")
    powers = [p["id"] for p in s["powers"]]
    if host_power is not None and host_power not in powers:
        raise Invalid(f"{host_power!r} is not a power of this scenario.", field="power")
    game = Game(
        scenario=scenario_id,
        status="lobby",
        host_id=host.id,
        public=public,
        pace=pace,
        options=startable_options(s, len(seats), dict(options or {})),
        version=1,
        deadlines={},
    )
    db.add(game)
    host_seated = False
    for index, spec in enumerate(seats):
        seat = Seat(index=index, missed=0)
        if spec.kind == "bot":
            seat.bot_level = check_bot_level(spec.bot_level)
        elif not host_seated:
            seat.user, seat.user_id = host, host.id
            seat.power = host_power
            seat.joined_at = utcnow()
            host_seated = True
        game.seats.append(seat)
    db.flush()
    db.add(Invite(game_id=game.id, code=secrets.token_urlsafe(9), created_by=host.id))
    db.flush()
    return game


# --------------------------------------------------------------------------- seats


def _lobby(game: Game) -> None:
    if game.status != "lobby":
        raise Conflict("The game has already started.")


def _host(game: Game, user: User) -> None:
    if game.host_id != user.id:
        raise Forbidden("Only the host can do that.")


def _seat(game: Game, index: int) -> Seat:
    for seat in game.seats:
        if seat.index == index:
            return seat
    raise NotFound(f"There is no seat {index}.")


def _check_power(db: Session, game: Game, power: str | None, seat: Seat) -> None:
    if power is None:
        return
    powers = [p["id"] for p in scenario(game.scenario)["powers"]]
    if power not in powers:
        raise Invalid(f"{power!r} is not a power of this scenario.", field="power")
    taken = next((s for s in game.seats if s.power == power and s is not seat), None)
    if taken is not None:
        raise Conflict(f"Someone already chose {power}; pick another or take a random one.")


def join(
    db: Session,
    game: Game,
    user: User,
    power: str | None = None,
    seat_index: int | None = None,
    code: str | None = None,
) -> Seat:
    """Take an empty seat (the first one, or `seat_index`), choosing `power` or None = random.
    A player already seated changes their power choice instead."""
    _lobby(game)
    if not can_see(db, game, user.id, code):
        raise Forbidden("This game is private: you need its invite link.")
    mine = seat_of(game, user.id)
    if mine is not None:
        _check_power(db, game, power, mine)
        mine.power = power
        touch(game)
        db.flush()
        return mine
    _not_blocked(db, user, [s.user for s in game.seats if s.user is not None], "join this table")
    if seat_index is not None:
        seat = _seat(game, seat_index)
        if not seat.is_empty:
            raise Conflict(f"Seat {seat_index + 1} is taken.")
    else:
        empty = [s for s in game.seats if s.is_empty]
        if not empty:
            raise Conflict("Every seat is taken.")
        seat = empty[0]
    _check_power(db, game, power, seat)
    seat.user, seat.user_id = user, user.id
    seat.power = power
    seat.joined_at = utcnow()
    touch(game)
    db.flush()
    return seat


def _not_blocked(db: Session, user: User, people: list[User], what: str) -> None:
    """Refuse to seat `user` with `people` when one of them blocks her, or she blocks
    one of them (app/services/moderation.py): neither can put the other at a table.
    Whoever blocks her is not named."""
    others = {p.id: p for p in people if p.id != user.id}
    by, mine = blocks.blocks_across(db, user.id, list(others))
    if by:
        raise Blocked(f"You cannot {what}: a player at it has blocked you.")
    if mine:
        names = ", ".join(others[i].username for i in mine)
        raise Conflict(
            f"You block {names}, who is at this table: unblock them (on their profile or "
            f"your account page) to {what}.",
            code="you_block",
        )


def leave(db: Session, game: Game, user: User) -> None:
    """Leave before the start. The host leaving cancels the game."""
    _lobby(game)
    if game.host_id == user.id:
        game.status = "aborted"
        game.finished_at = utcnow()
        touch(game)
        db.flush()
        return
    seat = seat_of(game, user.id)
    if seat is None:
        raise Conflict("You have no seat in this game.")
    _clear(seat)
    touch(game)
    db.flush()


def _clear(seat: Seat) -> None:
    seat.user, seat.user_id = None, None
    seat.bot_level = None
    seat.power = None
    seat.joined_at = None


def set_bot(db: Session, game: Game, user: User, index: int, level: str | None) -> Seat:
    """The host gives an empty (or bot) seat to a bot of `level`."""
    _lobby(game)
    _host(game, user)
    seat = _seat(game, index)
    if seat.user_id is not None:
        raise Conflict(f"Seat {index + 1} is held by a player; remove them first.")
    seat.bot_level = check_bot_level(level)
    touch(game)
    db.flush()
    return seat


def open_seat(db: Session, game: Game, user: User, index: int) -> Seat:
    """The host empties a seat: removes its player or its bot."""
    _lobby(game)
    _host(game, user)
    seat = _seat(game, index)
    if seat.user_id == game.host_id:
        raise Conflict("You cannot remove yourself; leave to cancel the game.")
    _clear(seat)
    touch(game)
    db.flush()
    return seat


def deal(db: Session, game: Game, user: User) -> dict[str, Any]:
    """Deal the powers, seed the RNG and make and save the engine's first state: the
    game is active. ``starting.start`` runs what follows (standing orders, deadlines)."""
    _lobby(game)
    _host(game, user)
    empty = [s.index + 1 for s in game.seats if s.is_empty]
    if empty:
        raise Conflict(
            f"Seat(s) {', '.join(map(str, empty))} are still empty: invite someone or give them to bots."
        )
    powers = [p["id"] for p in scenario(game.scenario)["powers"]]
    draw = random.SystemRandom()
    free = [p for p in powers if p not in {s.power for s in game.seats}]
    draw.shuffle(free)
    for seat in game.seats:
        if seat.power is None:
            seat.power = free.pop()
    game.seed = draw.getrandbits(62)
    state = engine.new_game(
        game.scenario,
        [s.power or "" for s in game.seats],
        game.seed,
        dict(game.options or {}) or None,
    )
    now = utcnow()
    game.status = "active"
    game.started_at = now
    gamelog.save_state(db, game, state, snapshot=True)
    touch(game)
    db.flush()
    return state


def rematch(db: Session, old: Game, user: User) -> Game:
    """A new game in the lobby with the same scenario, pace and seats (the same people
    and bot levels; powers drawn afresh), hosted by `user`, who played the old one."""
    if old.status not in ("finished", "aborted"):
        raise Conflict("A rematch can follow a game that is over.")
    if seat_of(old, user.id) is None:
        raise Forbidden("Only the players of a game can ask for a rematch.")
    # A rematch seats the same people without asking them: it may not seat anyone with
    # a person who blocks her.
    people = [s.user for s in old.seats if s.user is not None]
    _not_blocked(db, user, people, "seat this rematch")
    if blocks.blocks_within(db, [p.id for p in people]):
        raise Blocked(
            "A rematch cannot seat this table: one of its players blocks another. "
            "Start a new game and invite whom you like instead."
        )
    game = Game(
        scenario=old.scenario,
        status="lobby",
        host_id=user.id,
        public=old.public,
        pace=old.pace,
        options=dict(old.options or {}),
        version=1,
        deadlines={},
    )
    db.add(game)
    for seat in old.seats:
        new = Seat(index=seat.index, missed=0, bot_level=seat.bot_level)
        if seat.user is not None:
            new.user, new.user_id = seat.user, seat.user_id
            new.joined_at = utcnow()
        game.seats.append(new)
    db.flush()
    db.add(Invite(game_id=game.id, code=secrets.token_urlsafe(9), created_by=user.id))
    db.flush()
    return game


# --------------------------------------------------------------------------- lists


def game_summary(game: Game, user_id: int | None = None) -> dict[str, Any]:
    s = next((x for x in scenarios() if x["id"] == game.scenario), {"name": game.scenario})
    waiting = sorted(int(k) for k in (game.deadlines or {}))
    mine = seat_of(game, user_id)
    return {
        "id": game.id,
        "scenario": game.scenario,
        "scenario_name": s.get("name", game.scenario),
        "pace_label": pace_label(game.pace),
        "status": game.status,
        "public": game.public,
        "pace": game.pace,
        "host": game.host.username if game.host else None,
        "host_id": game.host_id,
        "version": game.version,
        "seats": [seat_summary(seat) for seat in game.seats],
        "open_seats": sum(1 for seat in game.seats if seat.is_empty),
        "waiting_for": waiting,
        "my_seat": mine.index if mine else None,
        "my_turn": mine is not None and mine.index in waiting,
        # "8:40 left": my clock, running or not (app/services/clocks.py)
        "my_time_left": my_time_left(game, mine),
        "away": sorted(int(k) for k in ((game.clocks or {}).get("away") or {})),
        "paused": clocks.paused(game),
        "created_at": game.created_at.isoformat(),
        "updated_at": game.updated_at.isoformat(),
        "outcome": game.outcome,
        "winner": winner_name(game),
        "standin_note": standin_note(game),
    }


def my_time_left(game: Game, mine: Seat | None) -> str | None:
    """My bank in words ("8:40 left") in a running game with a clock, else None; "a
    stand-in plays for you" while one does."""
    if mine is None or game.status != "active" or mine.user_id is None:
        return None
    if mine.standin:
        return "a stand-in plays for you"
    left = clocks.bank_of(game, mine.index, utcnow())
    if left is None:
        return None
    return f"{clocks.words(left)} left" + (" (paused)" if clocks.paused(game) else "")


def standin_note(game: Game) -> str | None:
    """ "Han: played by a bot for 14 decisions" — a result never hides a stand-in."""
    counts = (game.result_notes or {}).get("standin") or {}
    parts = []
    for seat in game.seats:
        n = int(counts.get(str(seat.index), 0))
        if n:
            who = power_name(game.scenario, seat.power) or f"seat {seat.index + 1}"
            parts.append(f"{who}: played by a bot for {n} decision{'' if n == 1 else 's'}")
    return "; ".join(parts) or None


def winner_name(game: Game) -> str | None:
    """The winner as "livia (Han)" for a finished game with one, else None."""
    winner = (game.outcome or {}).get("winner")
    seat = next((s for s in game.seats if s.index == winner), None)
    if seat is None:
        return None
    who = seat.user.username if seat.user else f"{seat.bot_level or seat.standin} bot"
    power = power_name(game.scenario, seat.power)
    return f"{who} ({power})" if power else who


def seat_summary(seat: Seat | SeatRow, scenario: str | None = None) -> dict[str, Any]:
    """A seat as every payload shows it. `scenario` names the game's scenario for a
    seat read without its game (the hot path's ``gamelog.SeatRow``)."""
    if scenario is None:
        game = getattr(seat, "game", None)
        scenario = game.scenario if game is not None else None
    info = power_info(scenario, seat.power) if scenario is not None else None
    return {
        "index": seat.index,
        "power": seat.power,
        "power_name": (info or {}).get("name", seat.power),
        "colour": (info or {}).get("colour"),
        "pattern": (info or {}).get("pattern"),
        "user_id": seat.user_id,
        "username": seat.user.username if seat.user else None,
        "bot_level": seat.bot_level,
        "standin": seat.standin,
        "empty": seat.is_empty,
    }


def open_games(db: Session, limit: int = 50) -> list[Game]:
    games = store.open_games(db, limit)
    return [g for g in games if any(s.is_empty for s in g.seats)]


def my_games(db: Session, user_id: int, limit: int = 100) -> list[Game]:
    """My lobby and running games, those waiting for me first."""
    games = store.games_of(db, user_id, limit)

    def waiting_for_me(g: Game) -> bool:
        mine = seat_of(g, user_id)
        return mine is not None and str(mine.index) in (g.deadlines or {})

    games.sort(key=lambda g: not waiting_for_me(g))  # stable: recent first within each group
    return games


def my_finished_games(db: Session, user_id: int, limit: int = 20) -> list[Game]:
    """My finished (and cancelled) games, newest first."""
    return store.finished_games_of(db, user_id, limit)


def finished_games(db: Session, user_id: int | None = None, limit: int = 50) -> list[Game]:
    """Recently finished games: public ones and mine."""
    return store.finished_games(db, user_id, limit)
