"""Seats: the few statements that write a seat without loading its game, and what the
log says was decided for a seat."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.store.models import Action, Seat

_SEATS: Any = Seat.__table__


def clear_standin(db: Session, seat_id: int) -> None:
    """The seat's stand-in steps aside (a Core statement: works whether the caller
    holds the ORM's seat or the hot path's row)."""
    db.connection().execute(update(_SEATS).where(_SEATS.c.id == seat_id).values(standin=None))


def move_seen_mark(db: Session, seat_id: int, seq: int) -> None:
    """One UPDATE of the seat's mark of the events it has seen, only forward (a later
    page's mark stays)."""
    db.execute(
        update(Seat)
        .where(Seat.id == seat_id, Seat.seen_event.is_(None) | (Seat.seen_event < seq))
        .values(seen_event=seq)
        .execution_options(synchronize_session=False)
    )


def decisions_by_source(db: Session, game_id: int, source: str) -> dict[int, int]:
    """seat -> how many of the game's actions came from `source` for that seat."""
    rows = db.execute(
        select(Action.seat, func.count())
        .where(Action.game_id == game_id, Action.source == source)
        .group_by(Action.seat)
    )
    return {int(seat): int(n) for seat, n in rows}
