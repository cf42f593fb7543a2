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

Statements are plain SQLAlchemy Core where the hot path runs (``lock_row``,
``record``, ``write_row``): one locking read of the game, its seats and what the
request's idempotency key already holds; one insert of the events; one update of the
game row, which on PostgreSQL also inserts the action (``Appends``; on SQLite the action
is an insert of its own).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import bindparam, event, insert, literal_column, select, update
from sqlalchemy.orm import Session, object_session, selectinload
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
from app.store import blocking
from app.store.db import SQLITE_BUSY_TIMEOUT_MS
from app.store.models import Action, Event, Game, Seat, Snapshot, User, table
from app.store.types import utcnow

log = logging.getLogger(__name__)

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
    events, for the hub (``app/realtime``). Filled after commit only."""

    RECENT = 128

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
            recent = (recent + list(frame.events))[-self.RECENT :]
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
    conn = db.connection()
    if conn.dialect.name == "sqlite":
        raw: Any = conn.connection.dbapi_connection
        if not raw.in_transaction:
            # On the event loop it does not wait for the lock (app/store/blocking.py).
            blocking.begin_immediate(raw, SQLITE_BUSY_TIMEOUT_MS)
    db.info[_WRITER] = True


def lock_game(db: Session, game_id: int) -> Game:
    """Load the game row (ORM, with its seats) for writing, serialising writers of this
    game: PostgreSQL ``SELECT … FOR UPDATE``, SQLite ``BEGIN IMMEDIATE``."""
    _begin_write(db)
    query = (
        select(Game)
        .where(Game.id == game_id)
        .options(selectinload(Game.seats))
        .execution_options(populate_existing=True)
    )
    if db.get_bind().dialect.name != "sqlite":
        query = query.with_for_update(of=Game)
    game = db.scalar(query)
    if game is None:
        raise NotFound(f"There is no game {game_id}.")
    return game


_G = table(Game)
_S = table(Seat)
_U = table(User)
_A = table(Action)
_E = table(Event)
_SNAP = table(Snapshot)

_GAME_COLS = (
    _G.c.id,
    _G.c.scenario,
    _G.c.status,
    _G.c.host_id,
    _G.c.public,
    _G.c.pace,
    _G.c.options,
    _G.c.seed,
    _G.c.version,
    _G.c.last_action,
    _G.c.last_event,
    _G.c.state_seq,
    _G.c.state.isnot(None).label("started"),
    _G.c.deadlines,
    _G.c.next_deadline,
    _G.c.clocks,
    _G.c.outcome,
    _G.c.finished_at,
    _G.c.undo_seat,
    _G.c.server_turn,
    _G.c.result_notes,
)
_GAME_KEYS = [c.key for c in _GAME_COLS]
_SEAT_COLS = (
    _S.c.id.label("seat_id"),
    _S.c.index.label("seat_index"),
    _S.c.user_id.label("seat_user_id"),
    _S.c.bot_level,
    _S.c.power,
    _S.c.missed,
    _S.c.standin,
    _S.c.standing_orders,
    _U.c.username,
)

# Built once (building a statement costs more than running it on a warm cache).
_READ = (
    select(*_GAME_COLS, *_SEAT_COLS)
    .select_from(_G.outerjoin(_S, _S.c.game_id == _G.c.id).outerjoin(_U, _U.c.id == _S.c.user_id))
    .where(_G.c.id == bindparam("game_id"))
    .order_by(_S.c.index)
)
_READ_LOCKED = _READ.with_for_update(of=_G)


def _prior(column: Any) -> Any:
    return (
        select(column)
        .where(_A.c.game_id == bindparam("game_id"), _A.c.idempotency_key == bindparam("key"))
        .scalar_subquery()
    )


# The same read, and what an idempotency key already holds, in the one round trip.
_READ_KEYED = _READ.add_columns(
    _prior(_A.c.seat).label("prior_seat"),
    _prior(_A.c.user_id).label("prior_user_id"),
    _prior(_A.c.result).label("prior_result"),
)
_READ_LOCKED_KEYED = _READ_KEYED.with_for_update(of=_G)
# The snapshot the row names, read by its seq (see ``_snapshot_text``): the ``snapshots``
# row with the version it was written at, else (a game older than its snapshot rows) the
# game row's text while it is still that snapshot.
_SNAPSHOT_TEXT = select(_SNAP.c.state, _SNAP.c.version).where(
    _SNAP.c.game_id == bindparam("game_id"), _SNAP.c.action_seq == bindparam("seq")
)
_STATE_TEXT = select(_G.c.state).where(
    _G.c.id == bindparam("game_id"), _G.c.state_seq == bindparam("seq")
)
_LOG_AFTER = (
    select(_A.c.seat, _A.c.action, _A.c.version)
    .where(
        _A.c.game_id == bindparam("game_id"),
        _A.c.seq > bindparam("after"),
        _A.c.seq <= bindparam("upto"),
    )
    .order_by(_A.c.seq)
)
_INSERT_ACTION = insert(_A)
_INSERT_EVENT = insert(_E)
_INSERT_SNAPSHOT = insert(_SNAP)
_SNAPSHOT_AT = select(_SNAP.c.id).where(
    _SNAP.c.game_id == bindparam("game_id"), _SNAP.c.action_seq == bindparam("seq")
)
_UPDATE_GAME = update(_G).where(_G.c.id == bindparam("row_id"))


def read_row(db: Session, game_id: int, *, lock: bool = False, key: str | None = None) -> GameRow:
    """The game and its seats in ONE statement (``FOR UPDATE`` of the game row when
    `lock`: call ``lock_row`` for that), with the action stored under idempotency `key`
    when one is given."""
    conn = db.connection()
    locked = lock and conn.dialect.name != "sqlite"
    if key:
        statement = _READ_LOCKED_KEYED if locked else _READ_KEYED
        rows = conn.execute(statement, {"game_id": game_id, "key": key}).all()
    else:
        rows = conn.execute(_READ_LOCKED if locked else _READ, {"game_id": game_id}).all()
    if not rows:
        raise NotFound(f"There is no game {game_id}.")
    first = rows[0]
    seats = [
        SeatRow(
            r.seat_id,
            r.seat_index,
            r.seat_user_id,
            r.bot_level,
            r.power,
            r.missed,
            r.standin,
            r.standing_orders,
            SeatUser(r.username) if r.username is not None else None,
        )
        for r in rows
        if r.seat_id is not None
    ]
    values = {k: getattr(first, k) for k in _GAME_KEYS}
    prior = None
    if key and first.prior_seat is not None:
        prior = Prior(first.prior_seat, first.prior_user_id, first.prior_result)
    return GameRow(**values, seats=seats, prior=prior)


_PRIOR = select(_A.c.seat, _A.c.user_id, _A.c.result).where(
    _A.c.game_id == bindparam("game_id"), _A.c.idempotency_key == bindparam("key")
)


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
        got = db.connection().execute(_PRIOR, {"game_id": game_id, "key": key}).first()
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
        after = {"game_id": game.id, "after": seq, "upto": game.last_action}
        rows = db.connection().execute(_LOG_AFTER, after).all() if game.last_action > seq else []
        # An undo committed since the row was read removes its last action (and may
        # append another under the same seq, at a later version): not this version.
        if len(rows) != game.last_action - seq or any(v > game.version for _, _, v in rows):
            raise _moved_on(game.id)
        for seat, action, _ in rows:
            state, _ = engine.apply(state, seat, action)
        log.debug("game %s: replayed from its snapshot (%d actions)", game.id, len(rows))
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
    conn = db.connection()
    params = {"game_id": game_id, "seq": seq}
    snap = conn.execute(_SNAPSHOT_TEXT, params).first()
    if snap is not None:
        if snap.version > version:
            raise _moved_on(game_id)
        return str(snap.state)
    text = conn.execute(_STATE_TEXT, params).scalar()
    if text is None:  # an undo since removed it: the row read is no longer the game
        raise _moved_on(game_id)
    return str(text)


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
    conn = db.connection()
    if conn.execute(_SNAPSHOT_AT, {"game_id": game_id, "seq": seq}).first() is None:
        conn.execute(
            _INSERT_SNAPSHOT,
            {
                "game_id": game_id,
                "action_seq": seq,
                "version": version,
                "state": text,
                "state_hash": state_hash(state),
                "created_at": utcnow(),
            },
        )


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
        _insert(db, Appends([action_row], event_rows))
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


def _insert(db: Session, appends: Appends) -> None:
    conn = db.connection()
    for row in appends.actions:
        conn.execute(_INSERT_ACTION, row)
    if appends.events:
        conn.execute(_INSERT_EVENT, appends.events)


def set_result(db: Session, game_id: int, seq: int, result: dict[str, Any]) -> None:
    db.execute(
        update(Action).where(Action.game_id == game_id, Action.seq == seq).values(result=result)
    )


ROW_FIELDS = (
    "status",
    "version",
    "last_action",
    "last_event",
    "state_seq",
    "deadlines",
    "next_deadline",
    "clocks",
    "outcome",
    "finished_at",
    "undo_seat",
    "server_turn",
)


#: the most actions merged into the game row's UPDATE; a longer change (a chain of
#: standing orders) inserts its rows on their own, so the statement's shapes stay few
MERGE_MAX_ACTIONS = 4


@functools.lru_cache(maxsize=64)
def _update_appending(actions: int, keys: tuple[str, ...], columns: tuple[str, ...]) -> Any:
    """``UPDATE games SET <keys>`` that also inserts `actions` action rows of `columns`
    (those ``record`` fills), as data-modifying CTEs (PostgreSQL), their values bound as
    ``a{i}_{column}``. Built once per shape, and cacheable by SQLAlchemy (a multi-row
    ``VALUES`` is not, which is why the events keep their own statement: one round trip
    however many)."""
    statement = (
        update(_G)
        .where(_G.c.id == bindparam("row_id"))
        .values({k: bindparam(k, type_=_G.c[k].type) for k in keys})
    )
    for i in range(actions):
        bound = {n: bindparam(f"a{i}_{n}", type_=_A.c[n].type) for n in columns}
        statement = statement.add_cte(insert(_A).values(bound).cte(f"appended_action_{i}"))
    return statement


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
    conn = db.connection()
    postgres = conn.dialect.name == "postgresql"
    statement = _UPDATE_GAME
    if appends is not None:
        _pending(db).append(("moves", appends.actions))
        merge = 0 < len(appends.actions) <= MERGE_MAX_ACTIONS
        if merge and postgres:
            if appends.events:
                conn.execute(_INSERT_EVENT, appends.events)
            statement = _update_appending(
                len(appends.actions), tuple(values), tuple(appends.actions[0])
            )
            for i, row in enumerate(appends.actions):
                values.update({f"a{i}_{k}": v for k, v in row.items()})
        else:
            _insert(db, appends)
    values["row_id"] = game.id
    digest: str | None = None
    if postgres:
        digest = conn.execute(statement.returning(_DIGEST_COLUMN), values).scalar()
    else:
        conn.execute(statement, values)
    remember(db, game.id, game.version, game.seed, state)
    # The ORM's copy of this row in the session, if it holds one, is read again when
    # next used (a change without a move, ``moves.settle``, and undo hold one).
    orm = db.identity_map.get(identity_key(Game, game.id))
    if orm is not None:
        db.expire(orm)
    return digest


# --------------------------------------------------------------------------- one statement

#: PostgreSQL's fingerprint of everything the hot path reads of a game (``lock_row``'s
#: columns of the game row, and of its seats with their users): the same text whoever
#: reads it, since the database itself renders it. A write that matches it in its WHERE
#: knows the row it holds in memory is the row in the database, seats and all, without
#: reading it (``write_held``). Any change to these columns changes it, whether or not it
#: moved the version (standing orders, a stand-in, a missed deadline do not).
ROW_DIGEST = """md5(ROW(games.scenario, games.status, games.host_id, games.public, games.pace,
 games.options, games.seed, games.version, games.last_action, games.last_event,
 games.state_seq, games.state IS NOT NULL, games.deadlines, games.next_deadline,
 games.clocks, games.outcome, games.finished_at, games.undo_seat, games.server_turn,
 games.result_notes)::text || coalesce((SELECT array_agg(ROW(s.id, s."index", s.user_id,
 s.bot_level, s.power, s.missed, s.standin, s.standing_orders, u.username)
 ORDER BY s."index")::text FROM seats s LEFT JOIN users u ON u.id = s.user_id
 WHERE s.game_id = games.id), ''))"""
_DIGEST_COLUMN: Any = literal_column(ROW_DIGEST).label("digest")
