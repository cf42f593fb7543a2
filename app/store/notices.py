"""Notices: the ``notifications`` rows (a notice sent, or queued to be), and the claims
that let one process of several send each notice or digest once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from app.store.models import Game, Notification, User


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


def games_waiting(db: Session, cutoffs: Sequence[tuple[str, datetime]]) -> list[int]:
    """The running games with a deadline at or before the cutoff of their pace:
    `cutoffs` holds (pace, latest next deadline)."""
    old_enough = [(Game.pace == pace) & (Game.next_deadline <= cutoff) for pace, cutoff in cutoffs]
    return list(
        db.scalars(
            select(Game.id).where(
                Game.status == "active", Game.next_deadline.is_not(None), or_(*old_enough)
            )
        )
    )


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
