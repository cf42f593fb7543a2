"""Notices: the ``notifications`` rows (a notice sent, or queued to be), and the claims
that let one process of several send each notice or digest once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from app.store.models import Game, Notification, Seat, User


def last_sent(db: Session, user_id: int, game_id: int, kind: str) -> datetime | None:
    """When `user_id` was last sent a notice of `kind` about `game_id`."""
    return db.scalar(
        select(func.max(Notification.created_at)).where(
            Notification.user_id == user_id,
            Notification.game_id == game_id,
            Notification.kind == kind,
        )
    )


def claim_queued(db: Session, row_id: int) -> bool:
    """Take queued notice `row_id` for sending (atomically: one process wins)."""
    taken = db.execute(
        update(Notification)
        .where(Notification.id == row_id, Notification.status == "queued")
        .values(status="sending")
    )
    return getattr(taken, "rowcount", 0) == 1


def queued(db: Session, limit: int) -> list[int]:
    """Up to `limit` notices queued to send."""
    return list(
        db.scalars(select(Notification.id).where(Notification.status == "queued").limit(limit))
    )


def games_waiting(
    db: Session, cutoffs: Sequence[tuple[str, datetime]]
) -> list[tuple[int, str, dict[str, Any] | None, dict[str, Any] | None, bool]]:
    """The running games with a deadline at or before the cutoff of their pace:
    `cutoffs` holds (pace, latest next deadline). Each as (id, pace, deadlines, clocks,
    whether it has a table hook), read without a lock."""
    old_enough = [(Game.pace == pace) & (Game.next_deadline <= cutoff) for pace, cutoff in cutoffs]
    rows = db.execute(
        select(
            Game.id, Game.pace, Game.deadlines, Game.clocks, Game.webhook_url.is_not(None)
        ).where(Game.status == "active", Game.next_deadline.is_not(None), or_(*old_enough))
    )
    return [(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]


def last_turn_notices(
    db: Session, game_ids: Sequence[int]
) -> dict[tuple[int, int], tuple[int | None, datetime | None]]:
    """(game, seat index) -> (the seat's person, when she was last sent a turn notice
    about that game), for every seat of `game_ids`."""
    if not game_ids:
        return {}
    sent = (Notification.user_id == Seat.user_id) & (Notification.game_id == Seat.game_id)
    rows = db.execute(
        select(Seat.game_id, Seat.index, Seat.user_id, func.max(Notification.created_at))
        .outerjoin(Notification, sent & (Notification.kind == "turn"))
        .where(Seat.game_id.in_(list(game_ids)))
        .group_by(Seat.game_id, Seat.index, Seat.user_id)
    )
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


def digest_users(db: Session, now: datetime, every: timedelta) -> list[int]:
    """The users who want a daily digest and have had none for `every`."""
    return list(
        db.scalars(
            select(User.id).where(
                User.daily_digest.is_(True),
                User.last_digest_at.is_(None) | (User.last_digest_at <= now - every),
            )
        )
    )


def claim_digest(db: Session, user_id: int, now: datetime, every: timedelta) -> bool:
    """Take `user_id`'s digest for now (atomically: one process wins), if one is due."""
    taken = db.execute(
        update(User)
        .where(
            User.id == user_id,
            User.daily_digest.is_(True),
            User.last_digest_at.is_(None) | (User.last_digest_at <= now - every),
        )
        .values(last_digest_at=now)
    )
    return getattr(taken, "rowcount", 0) == 1
