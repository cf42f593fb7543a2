"""The game row as the hot path reads and writes it: ONE declaration of its columns
(``GAME_ROW``, and ``SEAT_ROW`` for its seats) from which every statement and list is
built: the one-statement read (``read_rows``, whose keys are ``GameRow``'s fields), the
columns a change writes back (``ROW_FIELDS``), PostgreSQL's digest of the row
(``ROW_DIGEST``) and the one-statement write of a plain move (``write_held``, whose SET
list is ``HELD_FIELDS``). A column added to the row is added here, once: the read, the
digest and the writes cannot disagree about it (docs/performance.md, "The write path").
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import psycopg
from psycopg.types.json import Jsonb
from sqlalchemy import JSON, bindparam, insert, literal_column, select, update
from sqlalchemy.orm import Session, selectinload

from app.store import blocking, log
from app.store.db import SQLITE_BUSY_TIMEOUT_MS
from app.store.models import Action, Game, Seat, User, table

_G = table(Game)
_S = table(Seat)
_U = table(User)
_A = table(Action)


@dataclass(frozen=True)
class Hot:
    """One column of the game row that the hot path holds (a field of ``GameRow``)."""

    name: str
    #: a change writes it back with the row (``write_row``)
    written: bool = False
    #: a plain move may change it, so the one-statement write sets it (``write_held``).
    #: ``state_seq`` moves only with a snapshot, ``outcome`` and ``finished_at`` only at
    #: the end of the game: neither is a plain move (``moves.Decided.plain``).
    held: bool = False
    #: read as ``<of> IS NOT NULL`` rather than as a column of its own
    of: str | None = None


#: the game row's columns as the hot path holds them, in ``GameRow``'s order
GAME_ROW: tuple[Hot, ...] = (
    Hot("id"),
    Hot("scenario"),
    Hot("status", written=True, held=True),
    Hot("host_id"),
    Hot("public"),
    Hot("pace"),
    Hot("options"),
    Hot("seed"),
    Hot("version", written=True, held=True),
    Hot("last_action", written=True, held=True),
    Hot("last_event", written=True, held=True),
    Hot("state_seq", written=True),
    Hot("started", of="state"),
    Hot("deadlines", written=True, held=True),
    Hot("next_deadline", written=True, held=True),
    Hot("clocks", written=True, held=True),
    Hot("outcome", written=True),
    Hot("finished_at", written=True),
    Hot("undo_seat", written=True, held=True),
    Hot("server_turn", written=True, held=True),
    Hot("result_notes"),
)
#: a seat's columns as the hot path reads them with the game row: (column, its label in
#: the joined read); the seat's user's name comes last, from ``users``
SEAT_ROW: tuple[tuple[str, str], ...] = (
    ("id", "seat_id"),
    ("index", "seat_index"),
    ("user_id", "seat_user_id"),
    ("bot_level", "bot_level"),
    ("power", "power"),
    ("missed", "missed"),
    ("standin", "standin"),
    ("standing_orders", "standing_orders"),
)

#: ``GameRow``'s fields that the read fills, in order
GAME_KEYS: tuple[str, ...] = tuple(h.name for h in GAME_ROW)
#: the columns a change writes back with the game row (``write_row``)
ROW_FIELDS: tuple[str, ...] = tuple(h.name for h in GAME_ROW if h.written)
#: the columns the one-statement write of a plain move sets, besides ``updated_at``
HELD_FIELDS: tuple[str, ...] = tuple(h.name for h in GAME_ROW if h.held)


def _read_column(h: Hot) -> Any:
    if h.of is not None:
        return _G.c[h.of].isnot(None).label(h.name)
    return _G.c[h.name]


def _digest_column(h: Hot) -> str:
    return f'games."{h.of}" IS NOT NULL' if h.of is not None else f'games."{h.name}"'


#: PostgreSQL's fingerprint of everything the hot path reads of a game (``GAME_ROW`` but
#: its id, and ``SEAT_ROW`` of its seats with their users): the same text whoever reads
#: it, since the database itself renders it. A write that matches it in its WHERE knows
#: the row it holds in memory is the row in the database, seats and all, without reading
#: it (``write_held``). Any change to these columns changes it, whether or not it moved
#: the version (standing orders, a stand-in, a missed deadline do not).
ROW_DIGEST = (
    "md5(ROW("
    + ", ".join(_digest_column(h) for h in GAME_ROW if h.name != "id")
    + ")::text || coalesce((SELECT array_agg(ROW("
    + ", ".join([*(f's."{column}"' for column, _ in SEAT_ROW), "u.username"])
    + ') ORDER BY s."index")::text FROM seats s LEFT JOIN users u ON u.id = s.user_id'
    + " WHERE s.game_id = games.id), ''))"
)
_DIGEST_COLUMN: Any = literal_column(ROW_DIGEST).label("digest")

# Built once (building a statement costs more than running it on a warm cache).
_READ = (
    select(
        *(_read_column(h) for h in GAME_ROW),
        *(_S.c[column].label(label) for column, label in SEAT_ROW),
        _U.c.username,
    )
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
_STATE_TEXT = select(_G.c.state).where(
    _G.c.id == bindparam("game_id"), _G.c.state_seq == bindparam("seq")
)
_UPDATE_GAME = update(_G).where(_G.c.id == bindparam("row_id"))
#: the most actions merged into the game row's UPDATE; a longer change (a chain of
#: standing orders) inserts its rows on their own, so the statement's shapes stay few
MERGE_MAX_ACTIONS = 4


def begin_write(db: Session) -> None:
    """SQLite: ``BEGIN IMMEDIATE`` takes the database's write lock before anything is
    read, so the version the writer checks is the latest one (the busy timeout makes the
    others wait). Must come before any other write of the transaction. A database server
    locks the row instead (``lock_game``, ``read_rows(lock=True)``)."""
    conn = db.connection()
    if conn.dialect.name == "sqlite":
        raw: Any = conn.connection.dbapi_connection
        if not raw.in_transaction:
            # On the event loop it does not wait for the lock (app/store/blocking.py).
            blocking.begin_immediate(raw, SQLITE_BUSY_TIMEOUT_MS)
    else:
        # The row lock that follows may wait: never on the loop (app/store/blocking.py).
        blocking.refuse_on_loop("a locking read")


def lock_game(db: Session, game_id: int) -> Game | None:
    """The game row (ORM, with its seats, read afresh), ``FOR UPDATE`` on a database
    server (call ``begin_write`` first)."""
    query = (
        select(Game)
        .where(Game.id == game_id)
        .options(selectinload(Game.seats))
        .execution_options(populate_existing=True)
    )
    if db.get_bind().dialect.name != "sqlite":
        query = query.with_for_update(of=Game)
    return db.scalar(query)


def read_rows(
    db: Session, game_id: int, *, lock: bool = False, key: str | None = None
) -> Sequence[Any]:
    """The game and its seats in ONE statement, a row per seat (one with no seat's
    columns when it has none; none when there is no such game): the keys ``GAME_KEYS``,
    the labels of ``SEAT_ROW`` and ``username``, and with an idempotency `key` the action
    stored under it (``prior_seat``, ``prior_user_id``, ``prior_result``). ``FOR UPDATE``
    of the game row when `lock`, on a database server."""
    conn = db.connection()
    locked = lock and conn.dialect.name != "sqlite"
    if key:
        statement = _READ_LOCKED_KEYED if locked else _READ_KEYED
        return conn.execute(statement, {"game_id": game_id, "key": key}).all()
    return conn.execute(_READ_LOCKED if locked else _READ, {"game_id": game_id}).all()


def state_text_at(db: Session, game_id: int, seq: int) -> str | None:
    """The game row's state text while it is still the snapshot after `seq` actions."""
    text = db.connection().execute(_STATE_TEXT, {"game_id": game_id, "seq": seq}).scalar()
    return None if text is None else str(text)


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
    game_id: int,
    values: Mapping[str, Any],
    appends: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None,
) -> str | None:
    """``UPDATE games SET <values>`` of game `game_id`, with the (actions, events) rows
    `appends` holds: on PostgreSQL up to ``MERGE_MAX_ACTIONS`` actions go into the
    UPDATE as data-modifying CTEs and the events into one insert before it; else they
    are inserted first (``log.insert_appends``). On PostgreSQL the UPDATE
    returns the row's ``ROW_DIGEST`` (None on SQLite)."""
    bound = dict(values)
    conn = db.connection()
    postgres = conn.dialect.name == "postgresql"
    statement = _UPDATE_GAME
    if appends is not None:
        actions, events = appends
        merge = 0 < len(actions) <= MERGE_MAX_ACTIONS
        if merge and postgres:
            if events:
                conn.execute(log.INSERT_EVENT, events)
            statement = _update_appending(len(actions), tuple(bound), tuple(actions[0]))
            for i, row in enumerate(actions):
                bound.update({f"a{i}_{k}": v for k, v in row.items()})
        else:
            log.insert_appends(db, actions, events)
    bound["row_id"] = game_id
    if postgres:
        digest: str | None = conn.execute(statement.returning(_DIGEST_COLUMN), bound).scalar()
        return digest
    conn.execute(statement, bound)
    return None


#: The whole write of a plain move as ONE statement, run on its own (autocommit): the
#: game row's UPDATE (``HELD_FIELDS``), only if its version and digest are still those
#: held; the actions and events inserted from JSON arrays only if that UPDATE took; the
#: NOTIFY for the other processes (app/realtime/pg.py), delivered by the commit. One round
#: trip where the transaction takes five (BEGIN, the locking read, the events, the row,
#: COMMIT) and the NOTIFY a sixth; nothing is written or sent unless all of it is. It
#: never waits for another writer: the row is locked ``NOWAIT`` first (``l``), and a
#: row locked elsewhere is a write not made (that writer is moving the game on), so it
#: may run on the event loop (app/store/blocking.py).
_HELD_WRITE = f"""
WITH l AS (
  SELECT id FROM games WHERE id = %(id)s FOR UPDATE NOWAIT
), g AS (
  UPDATE games SET {", ".join(f"{k} = %({k})s" for k in HELD_FIELDS)}, updated_at = %(now)s
  WHERE id = (SELECT id FROM l) AND version = %(expected)s AND {ROW_DIGEST} = %(digest)s
  RETURNING games.id, {ROW_DIGEST} AS digest
), a AS (
  INSERT INTO actions (game_id, seq, seat, action, source, user_id, idempotency_key,
    version, can_undo, result, first_event, last_event, created_at)
  SELECT g.id, r.seq, r.seat, r.action, r.source, r.user_id, r.idempotency_key, r.version,
    r.can_undo, r.result, r.first_event, r.last_event, %(now)s
  FROM g, jsonb_to_recordset(%(actions)s) AS r(seq int, seat int, action jsonb,
    source text, user_id int, idempotency_key text, version int, can_undo bool,
    result jsonb, first_event int, last_event int)
), e AS (
  INSERT INTO events (game_id, seq, action_seq, visible_to, payload, created_at)
  SELECT g.id, r.seq, r.action_seq, r.visible_to, r.payload, %(now)s
  FROM g, jsonb_to_recordset(%(events)s) AS r(seq int, action_seq int, visible_to jsonb,
    payload jsonb)
)
SELECT g.digest, pg_notify(%(channel)s, replace(%(payload)s, chr(1), g.digest)) FROM g
"""
#: ``HELD_FIELDS`` of a JSON type: sent as JSONB
_HELD_JSON = frozenset(k for k in HELD_FIELDS if isinstance(_G.c[k].type, JSON))


def _json_bytes(value: Any) -> bytes:
    """The JSON columns' encoding (``store.db.json_text``), as bytes for psycopg."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _jsonb(value: Any) -> Jsonb | None:
    return None if value is None else Jsonb(value, _json_bytes)


def untouched(db: Session) -> bool:
    """Whether `db` (PostgreSQL) has begun no database transaction and holds no change
    to flush, so that a statement may be its own transaction (``write_held``). A session
    that only attached rows it did not read (the login cache's) is untouched; one whose
    connection ran a statement is not, until it ends that transaction."""
    if db.new or db.dirty or db.deleted:
        return False
    raw: Any = db.connection().connection.driver_connection
    return bool(raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)


def write_held(db: Session, row: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    """Run ``_HELD_WRITE`` on its own (autocommitted) on `db`'s connection: `row` holds
    the new values of ``HELD_FIELDS``; `params` the game's ``id``, the ``expected``
    version and its ``digest``, ``now``, the ``actions`` and ``events`` rows, the NOTIFY's
    ``channel`` and ``payload`` (``chr(1)`` stands for the new digest). The new digest
    when it wrote; None when it did not: a transaction is open on the connection, the row
    is no longer the one held, or the idempotency key is taken."""
    conn = db.connection()
    raw: Any = conn.connection.driver_connection
    if raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        return None
    bound = {k: _jsonb(row[k]) if k in _HELD_JSON else row[k] for k in HELD_FIELDS}
    bound.update(params)
    bound["actions"] = Jsonb(params["actions"], _json_bytes)
    bound["events"] = Jsonb(params["events"], _json_bytes)
    raw.autocommit = True  # the statement is its own transaction: no BEGIN, no COMMIT
    try:
        got = raw.execute(_HELD_WRITE, bound, prepare=True).fetchone()
    except psycopg.errors.UniqueViolation:
        return None  # the idempotency key is taken: the ordinary path answers it
    except psycopg.errors.LockNotAvailable:
        return None  # another writer holds the row: the ordinary path waits for it
    finally:
        raw.autocommit = False
    return None if got is None else str(got[0])


def clear_server_turn(db: Session, game_id: int, version: int) -> None:
    """Clear the bot worker's to-do flag of `game_id` if it is still at `version`."""
    db.execute(
        update(Game).where(Game.id == game_id, Game.version == version).values(server_turn=False)
    )
