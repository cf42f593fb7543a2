"""The game row and its append-only log: locking, recording actions and events,
snapshots, and the latest state of each game held in memory.

The write path (docs/performance.md):

- An action appends one ``actions`` row and its ``events`` rows and updates the game
  row's counters; the state itself is NOT rewritten. Every ``SNAPSHOT_EVERY`` actions
  the state is written as a snapshot (a ``snapshots`` row with its ``state_hash``, and
  ``games.state`` / ``games.state_seq``, the latest one).
- Loading a game's state = its latest snapshot + a replay of the actions after it.
  The common path does not replay: this process keeps the latest state of each game it
  touched (``StateCache``), keyed by the game's version, which rises on every committed
  change, so a hit is exactly the state of the row just read.
- A state is put in the cache only once it is committed: a writing session parks what
  it made in ``session.info`` and the ``after_commit`` hook moves it (a rolled-back
  transaction leaves nothing behind). The same hook records the change's ``Frame`` for
  the realtime hub, which pushes from it without reading the database again.

The statements are app/store's (``store.games``: the game row, ``store.log``: the log),
plain SQLAlchemy Core where the hot path runs (``lock_row``, ``record``, ``write_row``):
one locking read of the game, its seats and what the request's idempotency key already
holds; one insert of the events; one update of the game row, which on PostgreSQL also
inserts the action (``Appends``; on SQLite the action is an insert of its own).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.orm import Session, object_session
from sqlalchemy.orm.util import identity_key

from app import engine
from app.services import changes
from app.services.errors import Conflict, NotFound
from app.services.rows import (
    GameRow,
    Prior,
    SeatRow,
    SeatUser,
    dumps,
    parse_state,
    state_hash,
)
from app.store import games, log
from app.store.games import MERGE_MAX_ACTIONS as MERGE_MAX_ACTIONS
from app.store.games import ROW_FIELDS, SEAT_ROW
from app.store.models import Game
from app.store.types import utcnow

logger = logging.getLogger(__name__)

#: a snapshot of the state every this many actions (and at the start)
SNAPSHOT_EVERY = 25
#: games whose latest state this process keeps in memory (least recently used dropped)
CACHE_GAMES = 2000

T = TypeVar("T")

_WRITER = "ig_writer"  # session.info: this session locked a game (it may write)
_PENDING = "ig_pending"  # session.info: states and frames to publish after commit


# --------------------------------------------------------------------------- the cache


@dataclass
class Frame:
    """One committed change of a game, as the process that made it holds it: enough
    for the realtime hub to push every seat its update without reading the database."""

    game_id: int
    version: int
    state: dict[str, Any] | None
    fields: dict[str, Any]  # moves.game_fields(): status, seats, outcome …
    deadlines: dict[str, str]
    undo_seat: int | None
    first_event: int  # events (first_event, last_event] were made by this change
    last_event: int
    #: (seq, action_seq, visible_to, payload) of those events, in order
    events: list[tuple[int, int | None, list[int] | None, dict[str, Any]]]
    seats: dict[int, int] = field(default_factory=dict)  # user id -> seat index
    server_turn: bool = False  # a bot or stand-in is prompted (the bot worker's cue)
    committed_at: float = 0.0
    #: the game row as this change wrote it, and PostgreSQL's ``ROW_DIGEST`` of it: what
    #: the next move's one-statement write (``write_held``) starts from
    row: GameRow | None = None
    digest: str | None = None


class StateCache:
    """The latest committed state of each game this process touched (bounded LRU).

    Key: (database, game id); value: (version, seed, state). The database is part of
    the key because one process may talk to several (the tests do), where game ids
    repeat. The states are shared, never mutated: the engine's ``apply`` copies. So
    each is frozen (``engine.freeze``) while it is here: the legal actions, lasting
    effects and owned areas that a push, a submit, a view and a bot ask for are worked
    out once per version, not once per request; a state let go of is thawed."""

    def __init__(self, size: int = CACHE_GAMES) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._states: OrderedDict[tuple[str, int], tuple[int, int | None, dict[str, Any]]] = (
            OrderedDict()
        )
        self.hits = 0
        self.misses = 0

    def get(self, db_key: str, game_id: int, version: int, seed: int | None) -> Any:
        with self._lock:
            entry = self._states.get((db_key, game_id))
            if entry is None or entry[0] != version or entry[1] != seed:
                self.misses += 1
                return None
            self._states.move_to_end((db_key, game_id))
            self.hits += 1
            return entry[2]

    def put(
        self, db_key: str, game_id: int, version: int, seed: int | None, state: dict[str, Any]
    ) -> None:
        with self._lock:
            old = self._states.get((db_key, game_id))
            if old is not None and old[0] > version and old[1] == seed:
                return  # a newer version is already here
            if old is not None and old[2] is not state:
                engine.thaw(old[2])
            engine.freeze(state)
            self._states[(db_key, game_id)] = (version, seed, state)
            self._states.move_to_end((db_key, game_id))
            while len(self._states) > self.size:
                engine.thaw(self._states.popitem(last=False)[1][2])

    def latest(self, db_key: str, game_id: int) -> tuple[int, int | None, dict[str, Any]] | None:
        with self._lock:  # the newest (version, seed, state) held, whatever its version
            return self._states.get((db_key, game_id))

    def clear(self) -> None:
        with self._lock:
            for _version, _seed, state in self._states.values():
                engine.thaw(state)
            self._states.clear()

    def __len__(self) -> int:
        return len(self._states)


states = StateCache()


class FrameStore:
    """The latest ``Frame`` of each game, and a short contiguous run of its recent
    events, for the hub (``app/realtime``). Filled after commit only.

    The run is what a socket a few versions behind is sent from memory; one further
    behind (a page back from sleep) is answered from the database. It keeps the last
    ``RECENT`` events, and always the newest change's own, however many: a socket one
    version behind is then always pushed from memory. Each event kept is about 0.5 KB
    of a live game's memory."""

    RECENT = 32

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._frames: OrderedDict[tuple[str, int], Frame] = OrderedDict()
        self._recent: dict[tuple[str, int], list[tuple[Any, ...]]] = {}

    def put(self, db_key: str, frame: Frame) -> None:
        key = (db_key, frame.game_id)
        with self._lock:
            old = self._frames.get(key)
            if old is not None and old.version >= frame.version:
                return
            recent = self._recent.get(key)
            if old is None or recent is None or old.last_event != frame.first_event:
                recent = []  # a gap (another process wrote): start a new run
            recent = (recent + list(frame.events))[-max(self.RECENT, len(frame.events)) :]
            self._recent[key] = recent
            self._frames[key] = frame
            self._frames.move_to_end(key)
            while len(self._frames) > CACHE_GAMES:
                gone, _ = self._frames.popitem(last=False)
                self._recent.pop(gone, None)

    def get(self, db_key: str, game_id: int) -> tuple[Frame, list[tuple[Any, ...]]] | None:
        with self._lock:
            frame = self._frames.get((db_key, game_id))
            if frame is None:
                return None
            return frame, self._recent.get((db_key, game_id), [])

    def clear(self) -> None:
        with self._lock:
            self._frames.clear()
            self._recent.clear()


frames = FrameStore()


def db_key(db: Session) -> str:
    bind: Any = db.get_bind()
    return str(bind.engine.url)


def _pending(db: Session) -> list[tuple[str, Any]]:
    pending: list[tuple[str, Any]] = db.info.setdefault(_PENDING, [])
    return pending


def remember(db: Session, game_id: int, version: int, seed: int | None, state: Any) -> None:
    """`state` is the game's state at `version`: cache it once that is committed."""
    if db.info.get(_WRITER):
        _pending(db).append(("state", (db_key(db), game_id, version, seed, state)))
    else:  # a reader only ever sees committed rows
        states.put(db_key(db), game_id, version, seed, state)


def remember_frame(db: Session, frame: Frame) -> None:
    _pending(db).append(("frame", (db_key(db), frame)))


@event.listens_for(Session, "after_commit")
def _after_commit(db: Session) -> None:
    db.info.pop(_WRITER, None)
    now = time.time()
    pending = db.info.pop(_PENDING, [])
    for kind, item in pending:
        if kind == "state":
            states.put(*item)
        elif kind == "frame":
            key, frame = item
            frame.committed_at = now
            frames.put(key, frame)
    changes.committed(pending)  # the moves: what the NOTIFY of these changes carries


@event.listens_for(Session, "after_rollback")
def _after_rollback(db: Session) -> None:
    db.info.pop(_WRITER, None)
    db.info.pop(_PENDING, None)


# --------------------------------------------------------------------------- locking


def _begin_write(db: Session) -> None:
    """SQLite: ``BEGIN IMMEDIATE`` takes the database's write lock before anything is
    read, so the version we check is the latest one (the busy timeout makes the others
    wait). Must come before any other write of the transaction."""
    games.begin_write(db)
    db.info[_WRITER] = True


def lock_game(db: Session, game_id: int) -> Game:
    """Load the game row (ORM, with its seats) for writing, serialising writers of this
    game: PostgreSQL ``SELECT … FOR UPDATE``, SQLite ``BEGIN IMMEDIATE``."""
    _begin_write(db)
    game = games.lock_game(db, game_id)
    if game is None:
        raise NotFound(f"There is no game {game_id}.")
    return game


def read_row(db: Session, game_id: int, *, lock: bool = False, key: str | None = None) -> GameRow:
    """The game and its seats in ONE statement (``FOR UPDATE`` of the game row when
    `lock`: call ``lock_row`` for that), with the action stored under idempotency `key`
    when one is given."""
    rows = games.read_rows(db, game_id, lock=lock, key=key)
    if not rows:
        raise NotFound(f"There is no game {game_id}.")
    first = rows[0]
    seats = [
        SeatRow(
            **{column: getattr(r, label) for column, label in SEAT_ROW},
            user=SeatUser(r.username) if r.username is not None else None,
        )
        for r in rows
        if r.seat_id is not None
    ]
    values = {k: getattr(first, k) for k in games.GAME_KEYS}
    prior = None
    if key and first.prior_seat is not None:
        prior = Prior(first.prior_seat, first.prior_user_id, first.prior_result)
    return GameRow(**values, seats=seats, prior=prior)


def lock_row(
    db: Session, game_id: int, key: str | None = None, expected_version: int | None = None
) -> GameRow:
    """``lock_game`` for the hot path: the same lock, one Core statement, no ORM (and
    the action stored under idempotency `key`, if any, in ``prior``).

    On PostgreSQL a statement reads one snapshot, taken before it waits for the lock:
    a duplicate of this request that committed while it waited is not in it, and the
    row has moved on from `expected_version`. Then (and only then) the key is read
    again, so the duplicate is replayed its first answer instead of a 409."""
    _begin_write(db)
    row = read_row(db, game_id, lock=True, key=key)
    if key and row.prior is None and expected_version not in (None, row.version):
        got = log.prior(db, game_id, key)
        if got is not None:
            row.prior = Prior(got.seat, got.user_id, got.result)
    return row


# --------------------------------------------------------------------------- state


def load_state(game: Game | GameRow, db: Session | None = None) -> dict[str, Any]:
    """The game's current state: from this process's cache when it holds this version,
    else the latest snapshot + the actions after it (then cached)."""
    started = game.started if isinstance(game, GameRow) else game.state is not None
    if not started:
        raise NotFound("This game has not started yet.")
    db = db or object_session(game)
    if db is None:
        raise RuntimeError("load_state needs the game's session")
    key = db_key(db)
    hit = states.get(key, game.id, game.version, game.seed)
    if hit is not None:
        return hit
    # The version held and the changes heard since (another process's moves), or
    state = changes.catch_up(states.latest(key, game.id), key, game.id, game.version, game.seed)
    if state is None:  # the snapshot and the actions after it
        text: str | None
        if isinstance(game, GameRow):
            seq = game.state_seq
            text = game.state_text or _snapshot_text(db, game.id, seq, game.version)
        else:
            text, seq = game.state, game.state_seq
        state = parse_state(text or "")
        rows = (
            log.moves_between(db, game.id, seq, game.last_action) if game.last_action > seq else []
        )
        # An undo committed since the row was read removes its last action (and may
        # append another under the same seq, at a later version): not this version.
        if len(rows) != game.last_action - seq or any(v > game.version for _, _, v in rows):
            raise _moved_on(game.id)
        for seat, action, _ in rows:
            state, _ = engine.apply(state, seat, action)
        logger.debug("game %s: replayed from its snapshot (%d actions)", game.id, len(rows))
    if isinstance(game, GameRow) and not db.info.get(_PENDING):
        # Read straight from the row at the start of the transaction: committed.
        states.put(key, game.id, game.version, game.seed, state)
    else:
        remember(db, game.id, game.version, game.seed, state)
    return state


def reread(read: Callable[[], T], before_again: Callable[[], None] | None = None) -> T:
    """``read()``, done again (up to three times in all) while a writer changes the game
    under it (``_moved_on``); `before_again` forgets what the failed attempt read."""
    for attempt in range(3):
        try:
            return read()
        except Conflict as exc:
            if exc.code != "changed_while_read" or attempt == 2:
                raise
            if before_again is not None:
                before_again()
    raise AssertionError("unreachable")


def read_current(db: Session, game_id: int) -> tuple[GameRow, dict[str, Any] | None]:
    """A reader's game row and its state (None before the start), read again in the
    rare case a writer changed the game under the read."""

    def read() -> tuple[GameRow, dict[str, Any] | None]:
        row = read_row(db, game_id)
        return row, (load_state(row, db) if row.started else None)

    return reread(read)


def _snapshot_text(db: Session, game_id: int, seq: int, version: int) -> str:
    """The snapshot after `seq` actions, as a row read earlier (at `version`) names it.

    A reader's statements are not one snapshot of the database (SQLite outside a write
    transaction, PostgreSQL at READ COMMITTED), so a writer may commit a newer snapshot
    between reading the row and reading its text; replaying the row's actions onto that
    one would apply some twice. So the text is the ``snapshots`` row at `seq`, written at
    `version` or before. One written later belongs to another history: an undo removed
    the row's snapshot and a new one took its seq. Games whose snapshot rows start after
    their ``state_seq`` (saved before the append-only log) have only the game row's text,
    taken while its ``state_seq`` is still `seq`."""
    snap = log.snapshot_at(db, game_id, seq)
    if snap is not None:
        if snap.version > version:
            raise _moved_on(game_id)
        return str(snap.state)
    text = games.state_text_at(db, game_id, seq)
    if text is None:  # an undo since removed it: the row read is no longer the game
        raise _moved_on(game_id)
    return text


def _moved_on(game_id: int) -> Conflict:
    return Conflict(
        f"Game {game_id} changed while it was being read; read it again.",
        code="changed_while_read",
    )


def snapshot_due(game: Game | GameRow, force: bool = False) -> bool:
    return force or game.last_action - game.state_seq >= SNAPSHOT_EVERY


def save_state(db: Session, game: Game, state: dict[str, Any], snapshot: bool = False) -> None:
    """The ORM path (start, undo, deadlines, orders): the game's state is now `state`.
    Written as a snapshot when one is due; always cached after commit."""
    if snapshot_due(game, snapshot) or game.state is None:
        text = dumps(state)
        game.state = text
        game.state_seq = game.last_action
        add_snapshot(db, game.id, game.last_action, game.version, text, state)
    remember(db, game.id, game.version, game.seed, state)


def add_snapshot(
    db: Session, game_id: int, seq: int, version: int, text: str, state: dict[str, Any]
) -> None:
    log.add_snapshot(db, game_id, seq, version, text, state_hash(state), utcnow())


# --------------------------------------------------------------------------- the log


@dataclass
class Recorded:
    """One appended action: its seq and the (first_event, last_event] range."""

    seq: int
    version: int
    first_event: int
    last_event: int
    rows: list[tuple[int, int | None, list[int] | None, dict[str, Any]]]


@dataclass
class Appends:
    """The rows a change appends (its actions, their events), held back to be written
    with the game row by ``write_row``. On PostgreSQL the actions go into the game row's
    own ``UPDATE`` as data-modifying CTEs and the events into one insert before it: two
    round trips where there were three (four where an idempotency key was looked up
    apart), and the game's lock held that much shorter. On SQLite, one statement after
    another: it has no round trips to save."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


def record(
    db: Session | None,
    game: Game | GameRow,
    seat: int,
    action: dict[str, Any],
    events: list[dict[str, Any]],
    source: str,
    user_id: int | None = None,
    idempotency_key: str | None = None,
    *,
    can_undo: bool = False,
    result: dict[str, Any] | None = None,
    appends: Appends | None = None,
) -> Recorded:
    """Append one action and its events (two Core inserts, or held in `appends` for
    ``write_row``); bumps the game's counters and version on `game` (the caller writes
    the game row)."""
    game.last_action += 1
    game.version += 1
    first = game.last_event
    now = utcnow()
    rows: list[tuple[int, int | None, list[int] | None, dict[str, Any]]] = []
    for ev in events:
        game.last_event += 1
        to = ev.get("to")
        rows.append((game.last_event, game.last_action, list(to) if to is not None else None, ev))
    action_row = {
        "game_id": game.id,
        "seq": game.last_action,
        "seat": seat,
        "action": action,
        "source": source,
        "user_id": user_id,
        "idempotency_key": idempotency_key,
        "version": game.version,
        "can_undo": can_undo,
        "result": result,
        "first_event": first,
        "last_event": game.last_event,
        "created_at": now,
    }
    event_rows = [
        {
            "game_id": game.id,
            "seq": seq,
            "action_seq": aseq,
            "visible_to": to,
            "payload": payload,
            "created_at": now,
        }
        for seq, aseq, to, payload in rows
    ]
    if appends is not None:
        appends.actions.append(action_row)
        appends.events.extend(event_rows)
    else:
        assert db is not None, "record() writes at once only with a session"
        log.insert_appends(db, [action_row], event_rows)
        _pending(db).append(("moves", [action_row]))
    return Recorded(game.last_action, game.version, first, game.last_event, rows)


def note(game: GameRow, payload: dict[str, Any], appends: Appends) -> None:
    """A public line that is not the result of an action (an ``announce``), held in
    `appends` as the game's next event."""
    game.last_event += 1
    appends.events.append(
        {
            "game_id": game.id,
            "seq": game.last_event,
            "action_seq": None,
            "visible_to": None,
            "payload": payload,
            "created_at": utcnow(),
        }
    )


def set_result(db: Session, game_id: int, seq: int, result: dict[str, Any]) -> None:
    log.set_result(db, game_id, seq, result)


def write_row(
    db: Session,
    game: GameRow,
    state: dict[str, Any],
    *,
    snapshot: bool,
    appends: Appends | None = None,
) -> str | None:
    """Write the game row after a change (one UPDATE; the state text only with a
    snapshot, which also gets its ``snapshots`` row), with the rows `appends` holds.
    On PostgreSQL the UPDATE returns the row's ``ROW_DIGEST`` (None on SQLite)."""
    values: dict[str, Any] = {k: getattr(game, k) for k in ROW_FIELDS}
    values["updated_at"] = utcnow()
    if snapshot:
        text = dumps(state)
        values["state"] = text
        values["state_seq"] = game.state_seq = game.last_action
        add_snapshot(db, game.id, game.last_action, game.version, text, state)
    rows = None
    if appends is not None:
        _pending(db).append(("moves", appends.actions))
        rows = (appends.actions, appends.events)
    digest = games.write_row(db, game.id, values, rows)
    remember(db, game.id, game.version, game.seed, state)
    # The ORM's copy of this row in the session, if it holds one, is read again when
    # next used (a change without a move, ``moves.settle``, and undo hold one).
    orm = db.identity_map.get(identity_key(Game, game.id))
    if orm is not None:
        db.expire(orm)
    return digest
