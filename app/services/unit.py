"""The one unit of work of a change to a game (issue 39; docs/performance.md, "One unit
of work").

Whatever its source — a person's move over HTTP or a socket, the bot worker's move for a
bot or a stand-in, a clock running out, undo, "I'm away" and back, more time, a table
vote, standing orders, the lobby's seats and start, the tutorial, an account deleted, an
operator's abort, a chat line — a change to a game is one pass through here:

1. **take** the game: locked (``Work.take``), or, for a move, through the move's writers
   (``moves.submit_action`` / ``submit_server_move``: the held one-statement write or the
   locking read);
2. **decide**: the caller's function changes the game in memory — a service function
   handed the locked game (``absence``, ``tablevotes``, ``lobby`` …) or the engine's apply
   (``moves``);
3. **bump** the version, once for a change made without a move (``Work.changed``; each
   appended action moves it too, as ``gamelog.record`` writes it), and on a running game
   let the server answer what it can at once (``moves.settle``: standing orders, forced
   moves, the clocks, the bot worker's cue);
4. **write and commit** on the caller's session (``Work.commit``);
5. **publish** after the commit, through the publisher the realtime runtime injects
   (``app/services/publisher.py``), or the one the caller hands in (the bot worker's,
   the deadline runner's).

A move's commit is counted here too, by its source, with the time from its arrival to
its commit (``metrics.moved``: ``move``, ``server_move``, and a ``change`` given a
source, the clock's): one place, whatever the source.

No other module publishes a change, commits one or moves a game's version
(tests/test_layering.py holds it): a caller names what changes and nothing else. The
request still owns its session: the unit commits the session it is given, and the
request's dependency rolls back whatever a refusal left (app/web/deps.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from app.services import gamelog, metrics, moves, publisher
from app.services.moves import ActionResult
from app.services.rows import GameRow
from app.store import games
from app.store.models import Game
from app.store.types import utcnow

T = TypeVar("T")

#: how a committed change is announced: (game id, version, whether the write's own
#: statement already sent the NOTIFY); ``publisher.publish`` unless a caller injects one
Publish = Callable[[int, int, bool], None]


def bump(game: Game | GameRow, now: datetime | None = None) -> int:
    """Move `game`'s version on by one: every socket and client compares versions, so any
    change they may see moves it. The one version write of a change made without a move
    (a move's appended actions are counted by ``gamelog.record``)."""
    game.version += 1
    if isinstance(game, Game):
        game.updated_at = now or utcnow()
    return game.version


class Work:
    """One transaction's changes to one or more games, committed and then published.

    ``take`` locks a game, ``changed`` says the caller changed it (the version moves and
    a running game is settled), ``told`` asks for a push without a new version (a chat
    line); ``commit`` writes, commits and publishes every game it was told of."""

    def __init__(
        self,
        db: Session,
        now: datetime | None = None,
        publish: Publish | None = None,
        source: str | None = None,
    ) -> None:
        self.db = db
        self.now = now or utcnow()
        self._publish = publish
        #: a change counted as a move of this source when it commits a new version
        self._source = source
        self._started = time.perf_counter()
        self._games: dict[int, Game] = {}
        self._tell: dict[int, Game] = {}
        self._bumped: set[int] = set()
        self._settled: set[int] = set()

    def take(self, game_id: int) -> Game:
        """The game, locked for this transaction (``gamelog.lock_game``): 404 if none."""
        game = self._games.get(game_id)
        if game is None:
            game = self._games[game_id] = gamelog.lock_game(self.db, game_id)
        return game

    def add(self, game: Game) -> Game:
        """A game this transaction created (the lobby's new game, the tutorial's): it is
        published with the commit."""
        self.db.flush()
        self._games[game.id] = game
        self._tell[game.id] = game
        return game

    def changed(
        self,
        game: Game,
        *,
        settle: bool = True,
        acted: Collection[int] = (),
        defaults: Sequence[int] = (),
        state: dict[str, Any] | None = None,
    ) -> None:
        """The caller changed `game`: its version moves on, and a running game is settled
        (``moves.settle``: the prompts the server answers at once, the clocks, the bot
        worker's cue; `defaults`: seats whose prompt gets its default, their time ran
        out) unless `settle` is False (a change no prompt depends on: more time).

        One transaction's change is one version step and one settling, however many
        parts say so (a lobby change that starts the game): a second call for the same
        game does nothing more."""
        self._games.setdefault(game.id, game)
        self._tell[game.id] = game
        if game.id not in self._bumped:
            self._bumped.add(game.id)
            bump(game, self.now)
        if settle and game.status == "active" and game.id not in self._settled:
            self._settled.add(game.id)
            current = state if state is not None else gamelog.load_state(game)
            moves.settle(self.db, game, current, set(acted), self.now, defaults)

    def settled(self, game: Game) -> None:
        """Let the server answer what it can now without a change of the caller's own
        (standing orders given): the version moves only if a prompt was answered."""
        self._games.setdefault(game.id, game)
        before = game.version
        if game.status == "active":
            moves.settle(self.db, game, gamelog.load_state(game), set(), self.now)
        if game.version != before:
            self._tell[game.id] = game

    def told(self, game: Game) -> None:
        """Push `game` at its version after the commit (a chat line: no new version)."""
        self._games.setdefault(game.id, game)
        self._tell[game.id] = game

    def commit(self) -> dict[int, int]:
        """Write, commit, then publish each game told of at its committed version;
        returns {game id: version}."""
        self.db.flush()
        versions = {game_id: game.version for game_id, game in self._tell.items()}
        self.db.commit()
        if self._source is not None and self._bumped:
            metrics.moved(self._source, self._started)
        for game_id, version in versions.items():
            announce(game_id, version, False, self._publish)
        self._tell.clear()
        return versions


def by_version(publish: Callable[[int, int], None] | None) -> Publish | None:
    """A publisher told (game id, version) only, as a caller may inject one (the deadline
    runner's), in the unit's own form."""
    if publish is None:
        return None
    return lambda game_id, version, _notified: publish(game_id, version)


def announce(game_id: int, version: int, notified: bool, publish: Publish | None = None) -> None:
    """Publish one committed change (the injected publisher's, else `publish`)."""
    if publish is None:
        publisher.publish(game_id, version, notified)
    else:
        publish(game_id, version, notified)


def change(
    db: Session,
    game_id: int,
    decide: Callable[[Work, Game], T],
    now: datetime | None = None,
    publish: Publish | None = None,
    source: str | None = None,
) -> T:
    """One change to one game: take it locked, let `decide` change it (it calls
    ``work.changed(game)`` for a change the table sees), commit, publish; `decide`'s
    answer is returned. A refusal (a ``ServiceError`` raised by `decide`) commits
    nothing and publishes nothing. `source` (``metrics.SOURCES``): the change is counted
    as a move of it when it moves the version (a clock that ran out)."""
    work = Work(db, now, publish, source)
    game = work.take(game_id)
    value = decide(work, game)
    work.commit()
    return value


# --------------------------------------------------------------------------- moves


def move(
    db: Session,
    game_id: int,
    user_id: int,
    action: dict[str, Any],
    expected_version: int,
    idempotency_key: str | None,
    now: datetime | None = None,
    source: str = "route",
    arrived: float | None = None,
) -> ActionResult:
    """A person's action, from the HTTP API (`source` "route") or a socket ("socket"):
    decided and written by ``moves.submit_action``, committed, counted (from `arrived`,
    a ``time.perf_counter`` reading, else from now), published. A retry (``replayed``)
    is not counted but is published too: the first attempt may have committed and lost
    its answer before it could publish, and a version already pushed costs the hub one
    look."""
    started = time.perf_counter() if arrived is None else arrived
    result = moves.submit_action(
        db, game_id, user_id, action, expected_version, idempotency_key, now
    )
    db.commit()
    if not result.replayed:
        metrics.moved(source, started)
    announce(game_id, result.version, result.notified)
    return result


def server_move(
    db: Session,
    game_id: int,
    seat_index: int,
    action: dict[str, Any],
    expected_version: int,
    publish: Publish | None = None,
) -> ActionResult:
    """A bot's or a stand-in's action from the bot worker, the same way as a person's."""
    started = time.perf_counter()
    result = moves.submit_server_move(db, game_id, seat_index, action, expected_version)
    db.commit()
    metrics.moved("bot", started)
    announce(game_id, result.version, result.notified, publish)
    return result


def row_change(
    db: Session, decide: Callable[[Session], ActionResult], publish: Publish | None = None
) -> ActionResult:
    """A change written on the hot path's row (``GameRow``, ``gamelog.write_row``), such
    as undo: `decide` takes, changes (``bump``) and writes it; committed, published."""
    result = decide(db)
    db.commit()
    announce(result.game_id, result.version, result.notified, publish)
    return result


def clear_server_turn(db: Session, game_id: int, version: int) -> None:
    """The bot worker found no bot prompted at `version` after all: clear the game's
    to-do flag (``games.server_turn``) and commit. No version moves (no client sees the
    flag) and nothing is published; a game moved on since keeps its own flag."""
    games.clear_server_turn(db, game_id, version)
    db.commit()
