"""A game's append-only log: its ``actions``, ``events`` and ``snapshots`` rows, written
and read (app/store/models.py says what each holds)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from app.store.models import Action, Event, Game, Snapshot, table

_G = table(Game)
_A = table(Action)
_E = table(Event)
_SNAP = table(Snapshot)

# Built once (building a statement costs more than running it on a warm cache).
_INSERT_ACTION = insert(_A)
INSERT_EVENT = insert(_E)
_INSERT_SNAPSHOT = insert(_SNAP)
_PRIOR = select(_A.c.seat, _A.c.user_id, _A.c.result).where(
    _A.c.game_id == bindparam("game_id"), _A.c.idempotency_key == bindparam("key")
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
# The snapshot the row names, read by its seq: the ``snapshots`` row with the version it
# was written at.
_SNAPSHOT_TEXT = select(_SNAP.c.state, _SNAP.c.version).where(
    _SNAP.c.game_id == bindparam("game_id"), _SNAP.c.action_seq == bindparam("seq")
)
_SNAPSHOT_AT = select(_SNAP.c.id).where(
    _SNAP.c.game_id == bindparam("game_id"), _SNAP.c.action_seq == bindparam("seq")
)
_EVENT_ROWS = (
    select(_E.c.seq, _E.c.action_seq, _E.c.visible_to, _E.c.payload)
    .where(
        _E.c.game_id == bindparam("game_id"),
        _E.c.seq > bindparam("after"),
        _E.c.seq <= bindparam("upto"),
    )
    .order_by(_E.c.seq)
)
_EVENTS_AT = (
    select(_G.c.version, _G.c.last_event, _E.c.seq, _E.c.action_seq, _E.c.visible_to, _E.c.payload)
    .select_from(_G.outerjoin(_E, (_E.c.game_id == _G.c.id) & (_E.c.seq > bindparam("after"))))
    .where(_G.c.id == bindparam("game_id"))
    .order_by(_E.c.seq)
)


# --------------------------------------------------------------------------- actions


def insert_appends(
    db: Session, actions: Sequence[dict[str, Any]], events: Sequence[dict[str, Any]]
) -> None:
    """Insert ``actions`` rows one by one, then the ``events`` rows in one statement."""
    conn = db.connection()
    for row in actions:
        conn.execute(_INSERT_ACTION, row)
    if events:
        conn.execute(INSERT_EVENT, list(events))


def prior(db: Session, game_id: int, key: str) -> Row[int, int | None, Any] | None:
    """(seat, user_id, result) of the action stored under idempotency `key`, if any."""
    return db.connection().execute(_PRIOR, {"game_id": game_id, "key": key}).first()


def moves_between(
    db: Session, game_id: int, after: int, upto: int
) -> Sequence[Row[int, dict[str, Any], int]]:
    """(seat, action, version) of the actions after `after` up to `upto`, in order."""
    params = {"game_id": game_id, "after": after, "upto": upto}
    return db.connection().execute(_LOG_AFTER, params).all()


def moves_from(
    db: Session, game_id: int, after: int, upto: int
) -> Sequence[Row[int, dict[str, Any]]]:
    """(seat, action) of the actions after `after` up to `upto`, in order (ORM read)."""
    return db.execute(
        select(Action.seat, Action.action)
        .where(Action.game_id == game_id, Action.seq > after, Action.seq <= upto)
        .order_by(Action.seq)
    ).all()


def set_result(db: Session, game_id: int, seq: int, result: dict[str, Any]) -> None:
    """The stored answer of action `seq` (replayed to a retry of its request)."""
    db.execute(
        update(Action).where(Action.game_id == game_id, Action.seq == seq).values(result=result)
    )


def last_action(db: Session, game_id: int) -> Action | None:
    return db.scalar(
        select(Action).where(Action.game_id == game_id).order_by(Action.seq.desc()).limit(1)
    )


def action_at(db: Session, game_id: int, seq: int) -> Action | None:
    return db.scalar(select(Action).where(Action.game_id == game_id, Action.seq == seq))


def actions(db: Session, game_id: int) -> Sequence[Action]:
    """The game's whole log of actions, in order."""
    return db.scalars(select(Action).where(Action.game_id == game_id).order_by(Action.seq)).all()


def last_actions(db: Session, game_id: int, count: int) -> Sequence[Action]:
    """The game's last `count` actions, the latest first."""
    return db.scalars(
        select(Action).where(Action.game_id == game_id).order_by(Action.seq.desc()).limit(count)
    ).all()


def count_actions(db: Session, game_id: int) -> int | None:
    return db.scalar(select(func.count(Action.id)).where(Action.game_id == game_id))


def action_types(db: Session, game_id: int, seat: int) -> set[str]:
    """The types of the actions `seat` has taken in the game."""
    return set(
        db.scalars(
            select(Action.action["type"].as_string()).where(
                Action.game_id == game_id, Action.seat == seat
            )
        )
    )


def actions_by_source(db: Session, game_id: int, seat: int, source: str, after: int) -> set[int]:
    """The seqs of `seat`'s actions from `source` after action `after` (the catch-up tells
    her own stand-in's moves as "your stand-in …")."""
    return set(
        db.scalars(
            select(Action.seq).where(
                Action.game_id == game_id,
                Action.seat == seat,
                Action.source == source,
                Action.seq > after,
            )
        )
    )


def take_back(db: Session, game_id: int, last: Action) -> None:
    """Remove action `last` (the game's last) with its events and any snapshot from it on."""
    db.execute(delete(Event).where(Event.game_id == game_id, Event.action_seq == last.seq))
    db.execute(delete(Snapshot).where(Snapshot.game_id == game_id, Snapshot.action_seq >= last.seq))
    db.execute(delete(Action).where(Action.id == last.id))


# --------------------------------------------------------------------------- events


def event_rows(
    db: Session, game_id: int, after: int, upto: int
) -> Sequence[Row[int, int | None, list[int] | None, dict[str, Any]]]:
    """(seq, action_seq, visible_to, payload) of the events after `after` up to `upto`."""
    params = {"game_id": game_id, "after": after, "upto": upto}
    return db.connection().execute(_EVENT_ROWS, params).all()


def events_at(db: Session, game_id: int, after: int) -> Sequence[Any]:
    """The game's version and last event with the events after `after`, in ONE statement
    (one snapshot): a row per event, (version, last_event, seq, action_seq, visible_to,
    payload); one row of ``None`` events when there are none after; none for no game."""
    return db.connection().execute(_EVENTS_AT, {"game_id": game_id, "after": after}).all()


def events(db: Session, game_id: int, after: int, upto: int | None = None) -> Sequence[Event]:
    """The game's events after `after` (up to `upto`), in order."""
    query = select(Event).where(Event.game_id == game_id, Event.seq > after)
    if upto is not None:
        query = query.where(Event.seq <= upto)
    return db.scalars(query.order_by(Event.seq)).all()


def events_of_action(db: Session, game_id: int, action_seq: int) -> Sequence[Event]:
    return db.scalars(
        select(Event).where(Event.game_id == game_id, Event.action_seq == action_seq)
    ).all()


def events_upto_action(db: Session, game_id: int, action_seq: int, count: int) -> Sequence[Event]:
    """The last `count` events up to those of action `action_seq`, the latest first."""
    return db.scalars(
        select(Event)
        .where(Event.game_id == game_id, Event.action_seq <= action_seq)
        .order_by(Event.seq.desc())
        .limit(count)
    ).all()


def action_of_event(db: Session, game_id: int, seq: int) -> int | None:
    """How many actions had been played when event `seq` was written."""
    return db.scalar(
        select(Event.action_seq)
        .where(Event.game_id == game_id, Event.seq <= seq, Event.action_seq.isnot(None))
        .order_by(Event.seq.desc())
        .limit(1)
    )


def payloads(db: Session, game_id: int) -> Sequence[dict[str, Any]]:
    """Every event's payload of the game."""
    return db.scalars(select(Event.payload).where(Event.game_id == game_id)).all()


# --------------------------------------------------------------------------- snapshots


def snapshot_at(db: Session, game_id: int, seq: int) -> Row[str, int] | None:
    """(state, version) of the snapshot after `seq` actions, if there is one."""
    return db.connection().execute(_SNAPSHOT_TEXT, {"game_id": game_id, "seq": seq}).first()


def add_snapshot(
    db: Session, game_id: int, seq: int, version: int, text: str, digest: str, at: datetime
) -> None:
    """A ``snapshots`` row for the state after `seq` actions, unless one is there."""
    conn = db.connection()
    if conn.execute(_SNAPSHOT_AT, {"game_id": game_id, "seq": seq}).first() is None:
        conn.execute(
            _INSERT_SNAPSHOT,
            {
                "game_id": game_id,
                "action_seq": seq,
                "version": version,
                "state": text,
                "state_hash": digest,
                "created_at": at,
            },
        )


def snapshot_before(db: Session, game_id: int, seq: int) -> Snapshot | None:
    """The latest snapshot at or before `seq` actions."""
    return db.scalar(
        select(Snapshot)
        .where(Snapshot.game_id == game_id, Snapshot.action_seq <= seq)
        .order_by(Snapshot.action_seq.desc())
        .limit(1)
    )
