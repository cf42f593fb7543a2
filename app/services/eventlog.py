"""Reading a game's event log for one seat: only the events it may see
(``visible``), as the API and the sockets send them (``event_json``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app.services.errors import NotFound
from app.store.models import Event, Game, table

_G = table(Game)
_E = table(Event)


def visible(visible_to: list[int] | None, seat: int | None) -> bool:
    return visible_to is None or (seat is not None and seat in visible_to)


def event_json(row: Event) -> dict[str, Any]:
    return {**row.payload, "seq": row.seq, "action_seq": row.action_seq}


_EVENTS_AT = (
    select(_G.c.version, _G.c.last_event, _E.c.seq, _E.c.action_seq, _E.c.visible_to, _E.c.payload)
    .select_from(_G.outerjoin(_E, (_E.c.game_id == _G.c.id) & (_E.c.seq > bindparam("after"))))
    .where(_G.c.id == bindparam("game_id"))
    .order_by(_E.c.seq)
)


def events_snapshot(
    db: Session, game_id: int, seat: int | None, after: int
) -> tuple[int, int, list[dict[str, Any]]]:
    """The game's version and last event seq, and the events after `after` that `seat`
    may see, read by ONE statement: one snapshot, so an action committed during the read
    is in all three or in none (two statements on PostgreSQL could give a ``last_seq``
    older than the events sent, and a client resuming from it got those twice)."""
    rows = db.connection().execute(_EVENTS_AT, {"game_id": game_id, "after": after}).all()
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
    query = select(Event).where(Event.game_id == game_id, Event.seq > after)
    if upto is not None:
        query = query.where(Event.seq <= upto)
    rows = db.scalars(query.order_by(Event.seq)).all()
    return [event_json(r) for r in rows if visible(r.visible_to, seat)]
