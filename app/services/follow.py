"""Another process's change of a game, as a ``gamelog.Frame`` of this process.

The process that commits a change pushes it to its own sockets from memory (its
``Frame``: the new state, the game's fields, the change's events). A process that only
hears of the change (NOTIFY) builds the same frame here, so that its hub pushes from
memory too instead of building every user's whole view again:

- ``in_memory``: when it holds the row the change started from (the frame of the
  version before, with the digest the writer started from) and the NOTIFY carried the
  change's columns and events (``changes.row_change``): no read at all;
- ``frame_of`` otherwise: one read of the game row, its state from the state cache moved
  on by the change's moves (``app/services/changes.py``: no replay of the log), and one
  read of the new events.
"""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session

from app.services import changes, gamelog, moves
from app.services.rows import copy_row
from app.store import log as store
from app.store.db import autocommit_reads

log = logging.getLogger(__name__)


def frame_of(
    db: Session, game_id: int, after_event: int, version: int, digest: str | None = None
) -> gamelog.Frame | None:
    """The game as committed now, with its events after `after_event`, as a frame; None
    for a game not started, or when the events read are not all of them (an undo
    removed some meanwhile: the caller reloads instead).

    `digest`: the database's digest of the row at `version`, as the change's writer
    had it. When the row read is at `version`, the frame holds it and its digest, so
    that this process's next move of the game is written in one statement
    (``heldwrite.write_held``, which checks that digest in the database: a row changed
    since, at the same version, is caught there)."""
    with autocommit_reads(db):
        row = gamelog.read_row(db, game_id)
        if not row.started or row.last_event < after_event:
            return None
        state = gamelog.load_state(row, db)
        events = [
            (r.seq, r.action_seq, r.visible_to, r.payload)
            for r in store.event_rows(db, game_id, after_event, row.last_event)
        ]
    if row.last_event > after_event and (not events or events[-1][0] != row.last_event):
        return None
    return gamelog.Frame(
        game_id=row.id,
        version=row.version,
        state=state,
        fields=moves.game_fields(row),
        deadlines=dict(row.deadlines or {}),
        undo_seat=row.undo_seat,
        first_event=after_event,
        last_event=row.last_event,
        events=events,
        seats={s.user_id: s.index for s in row.seats if s.user_id is not None},
        server_turn=row.server_turn,
        row=copy_row(row) if digest and row.version == version else None,
        digest=digest if row.version == version else None,
    )


def in_memory(db_key: str, game_id: int, version: int) -> gamelog.Frame | None:
    """The frame of `version` made from this process's frame of an earlier version and
    the changes heard since, each with its row change: no read. Each step's frame and
    state are kept (``gamelog.frames``, ``gamelog.states``), so that the hub's recent
    events stay one run and the next move of the game is a one-statement write. None
    when a step is missing or does not start from the row held (its digest differs: a
    seat or a setting changed without a move): the caller reads instead."""
    got = gamelog.frames.get(db_key, game_id)
    if got is None:
        return None
    frame = got[0]
    while frame.version < version:
        step = changes.changes.step(db_key, game_id, frame.version)
        if step is None or frame.row is None or frame.digest is None:
            return None
        since = frame.version
        to, moves_of_step, digest, change = step
        if change is None or digest is None or change.get("from") != frame.digest:
            return None
        seed = frame.row.seed
        state = frame.state
        if state is None:
            state = gamelog.states.get(db_key, game_id, frame.version, seed)
        if state is None:
            return None
        try:
            state = changes.advance(state, moves_of_step)
        except Exception:  # not what the log holds: the read and replay will say
            return None
        row = changes.changed_row(frame.row, change)
        if row.version != to:
            return None
        frame = gamelog.Frame(
            game_id=game_id,
            version=to,
            state=state,
            fields=moves.game_fields(row),
            deadlines=dict(row.deadlines or {}),
            undo_seat=row.undo_seat,
            first_event=frame.last_event,
            last_event=row.last_event,
            events=[(seq, aseq, to_, payload) for seq, aseq, to_, payload in change["events"]],
            seats=frame.seats,
            server_turn=row.server_turn,
            row=row,
            digest=digest,
        )
        gamelog.states.put(db_key, game_id, to, seed, state)
        gamelog.frames.put(db_key, frame)
        log.debug(
            "game %s: %d moves applied, %s -> %s, in memory",
            game_id,
            len(moves_of_step),
            since,
            to,
        )
    return frame if frame.version == version else None
