"""The one-statement write of a plain move (``writers.HeldWriter``; docs/performance.md,
"The write path"): what this process holds of a game it wrote last (its row, its state
and PostgreSQL's digest of the row, ``held``) is the starting point, and the move's whole
write (the row, the appended actions and events, the NOTIFY) is ONE autocommitted
statement that takes only if the row is still the one held (``write_held``)."""

from __future__ import annotations

import time
from typing import Any

import orjson
import psycopg
from psycopg.types.json import Jsonb
from sqlalchemy.orm import Session

from app.services import changes, publisher
from app.services.gamelog import ROW_DIGEST, Appends, Frame, frames, states
from app.services.publisher import CHANNEL, DIGEST_MARK, encode_payload
from app.services.rows import GameRow, copy_row
from app.store.types import utcnow

#: The whole write of a plain move (``moves.Decided.plain``) as ONE statement, run on its
#: own (autocommit): the game row's UPDATE, only if its version and digest are still those
#: held; the actions and events inserted from JSON arrays only if that UPDATE took; the
#: NOTIFY for the other processes (app/realtime/pg.py), delivered by the commit. One round
#: trip where the transaction takes five (BEGIN, the locking read, the events, the row,
#: COMMIT) and the NOTIFY a sixth; nothing is written or sent unless all of it is.
_HELD_WRITE = f"""
WITH g AS (
  UPDATE games SET status = %(status)s, version = %(version)s,
    last_action = %(last_action)s, last_event = %(last_event)s, deadlines = %(deadlines)s,
    next_deadline = %(next_deadline)s, clocks = %(clocks)s, undo_seat = %(undo_seat)s,
    server_turn = %(server_turn)s, updated_at = %(now)s
  WHERE id = %(id)s AND version = %(expected)s AND {ROW_DIGEST} = %(digest)s
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


def held(key: str, game_id: int, version: int) -> tuple[GameRow, dict[str, Any], str] | None:
    """The game at `version` as this process last wrote it to database `key`, when it
    holds it: a private copy of its row, its state (shared: never mutate) and the
    database's digest of the row (only PostgreSQL's writes leave one). None for a
    version or game it did not write last."""
    got = frames.get(key, game_id)
    if got is None:
        return None
    frame = got[0]
    if frame.version != version or frame.row is None or frame.digest is None:
        return None
    state = states.get(key, game_id, version, frame.row.seed)
    if state is None:
        return None
    return copy_row(frame.row), state, frame.digest


def write_held(
    db: Session, game: GameRow, expected: int, digest: str, appends: Appends
) -> str | None:
    """Write a plain move of `game` (its row already moved on in memory from
    `expected`, whose digest was `digest`) in one autocommitted statement
    (``_HELD_WRITE``) on `db`'s connection. The new digest when it was written; None
    when nothing was, because the game is no longer the row held (another writer, a seat
    changed) or the idempotency key is taken: then the caller takes the ordinary path,
    in a transaction on the same session."""
    conn = db.connection()
    raw: Any = conn.connection.driver_connection
    if raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        return None
    raw.autocommit = True  # the statement is its own transaction: no BEGIN, no COMMIT
    try:
        params = _held_params(game, expected, digest, appends)
        got = raw.execute(_HELD_WRITE, params, prepare=True).fetchone()
    except psycopg.errors.UniqueViolation:
        return None  # the idempotency key is taken: the ordinary path answers it
    finally:
        raw.autocommit = False
    return None if got is None else str(got[0])


def _held_params(game: GameRow, expected: int, digest: str, appends: Appends) -> dict[str, Any]:
    """``_HELD_WRITE``'s parameters for a move of `game` from version `expected`."""
    moves, mark = changes.moves_of(appends.actions), DIGEST_MARK
    row = changes.row_change(game, digest, appends.events)
    return {
        "id": game.id,
        "expected": expected,
        "digest": digest,
        "status": game.status,
        "version": game.version,
        "last_action": game.last_action,
        "last_event": game.last_event,
        "deadlines": Jsonb(game.deadlines or {}, _json_bytes),
        "next_deadline": game.next_deadline,
        "clocks": Jsonb(game.clocks, _json_bytes) if game.clocks is not None else None,
        "undo_seat": game.undo_seat,
        "server_turn": game.server_turn,
        "now": utcnow(),
        "actions": Jsonb(appends.actions, _json_bytes),
        "events": Jsonb(appends.events, _json_bytes),
        "channel": CHANNEL,
        # the new digest is put in by the statement, for chr(1) (DIGEST_MARK)
        "payload": encode_payload(
            game.id, game.version, publisher.origin(), expected, moves, mark, row
        ),
    }


def _json_bytes(value: Any) -> bytes:
    """The JSON columns' encoding (``store.db.json_text``), as bytes for psycopg."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def keep_held(key: str, game: GameRow, state: dict[str, Any], frame: Frame) -> None:
    """After ``write_held`` committed: the new state and the change's frame go into this
    process's memory (database `key`) at once: no transaction's commit would move them."""
    states.put(key, game.id, game.version, game.seed, state)
    frame.committed_at = time.time()
    frames.put(key, frame)
