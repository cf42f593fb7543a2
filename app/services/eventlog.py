"""Reading a game's event log for one seat: only the events it may see
(``visible``), as the API and the sockets send them (``event_json``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.services.errors import NotFound
from app.store import log
from app.store.models import Event


def visible(visible_to: list[int] | None, seat: int | None) -> bool:
    return visible_to is None or (seat is not None and seat in visible_to)


def event_json(row: Event) -> dict[str, Any]:
    return {**row.payload, "seq": row.seq, "action_seq": row.action_seq}


def events_snapshot(
    db: Session, game_id: int, seat: int | None, after: int
) -> tuple[int, int, list[dict[str, Any]]]:
    """The game's version and last event seq, and the events after `after` that `seat`
    may see, read by ONE statement: one snapshot, so an action committed during the read
    is in all three or in none (two statements on PostgreSQL could give a ``last_seq``
    older than the events sent, and a client resuming from it got those twice)."""
    rows = log.events_at(db, game_id, after)
    if not rows:
        raise NotFound(f"There is no game {game_id}.")
    events = [
        {**r.payload, "seq": r.seq, "action_seq": r.action_seq}
        for r in rows
        if r.seq is not None and visible(r.visible_to, seat)
    ]
    return rows[0].version, rows[0].last_event, events


def events_between(
    db: Session, game_id: int, seat: int | None, after: int, upto: int | None = None
) -> list[dict[str, Any]]:
    rows = log.events(db, game_id, after, upto)
    return [event_json(r) for r in rows if visible(r.visible_to, seat)]
