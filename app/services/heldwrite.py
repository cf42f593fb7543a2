"""The one-statement write of a plain move (``writers.HeldWriter``; docs/performance.md,
"The write path"): what this process holds of a game it wrote last (its row, its state
and PostgreSQL's digest of the row, ``held``) is the starting point, and the move's whole
write (the row, the appended actions and events, the NOTIFY) is ONE autocommitted
statement that takes only if the row is still the one held (``write_held``)."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy.orm import Session

from app.services import changes, publisher
from app.services.gamelog import Appends, Frame, frames, states
from app.services.publisher import CHANNEL, DIGEST_MARK, encode_payload
from app.services.rows import GameRow, copy_row
from app.store import games
from app.store.types import utcnow


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
    (``store.games.write_held``) on `db`'s connection. The new digest when it was
    written; None when nothing was, because the game is no longer the row held (another
    writer, a seat changed) or the idempotency key is taken: then the caller takes the
    ordinary path, in a transaction on the same session."""
    row = {k: getattr(game, k) for k in games.HELD_FIELDS}
    row["deadlines"] = game.deadlines or {}
    moves, mark = changes.moves_of(appends.actions), DIGEST_MARK
    change = changes.row_change(game, digest, appends.events)
    params = {
        "id": game.id,
        "expected": expected,
        "digest": digest,
        "now": utcnow(),
        "actions": appends.actions,
        "events": appends.events,
        "channel": CHANNEL,
        # the new digest is put in by the statement, for chr(1) (DIGEST_MARK)
        "payload": encode_payload(
            game.id, game.version, publisher.origin(), expected, moves, mark, change
        ),
    }
    return games.write_held(db, row, params)


def keep_held(key: str, game: GameRow, state: dict[str, Any], frame: Frame) -> None:
    """After ``write_held`` committed: the new state and the change's frame go into this
    process's memory (database `key`) at once: no transaction's commit would move them."""
    states.put(key, game.id, game.version, game.seed, state)
    frame.committed_at = time.time()
    frames.put(key, frame)
