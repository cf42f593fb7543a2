"""Moderation's statements (app/services/moderation.py): blocks, chat mutes, reports,
suspended accounts and the moderation log."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, text, update
from sqlalchemy.orm import Session

from app.store.models import (
    Block,
    ChatMessage,
    ChatMute,
    ModerationEntry,
    Report,
    User,
    table,
)


def _rowcount(result: Any) -> int:
    return getattr(result, "rowcount", 0) or 0


# --------------------------------------------------------------------------- blocks


def blocked_ids(db: Session, user_id: int) -> set[int]:
    """The people `user_id` blocks."""
    return set(db.scalars(select(Block.blocked_id).where(Block.user_id == user_id)))


def blocks_of(db: Session, user_id: int) -> Sequence[Block]:
    """`user_id`'s blocks (with the person blocked), the newest first."""
    return db.scalars(
        select(Block).where(Block.user_id == user_id).order_by(Block.created_at.desc())
    ).all()


def blocks(db: Session, user_id: int, blocked_id: int) -> bool:
    """Whether `user_id` blocks `blocked_id`."""
    query = select(Block.user_id).where(Block.user_id == user_id, Block.blocked_id == blocked_id)
    return db.scalar(query) is not None


def add_block(db: Session, user_id: int, blocked_id: int, now: datetime) -> bool:
    """`user_id` blocks `blocked_id` from now; False if she did already."""
    if blocks(db, user_id, blocked_id):
        return False
    db.execute(insert(table(Block)).values(user_id=user_id, blocked_id=blocked_id, created_at=now))
    return True


def remove_block(db: Session, user_id: int, blocked_id: int) -> bool:
    """`user_id` no longer blocks `blocked_id`; False if she did not."""
    done = db.execute(delete(Block).where(Block.user_id == user_id, Block.blocked_id == blocked_id))
    return _rowcount(done) > 0


def blocks_among(db: Session, user_ids: Collection[int]) -> dict[int, set[int]]:
    """For each of `user_ids` who blocks anyone: whom (the readers of one table)."""
    if not user_ids:
        return {}
    rows = db.execute(
        select(Block.user_id, Block.blocked_id).where(Block.user_id.in_(list(user_ids)))
    )
    out: dict[int, set[int]] = {}
    for user_id, blocked_id in rows:
        out.setdefault(user_id, set()).add(blocked_id)
    return out


def blocks_across(
    db: Session, user_id: int, others: Collection[int]
) -> tuple[list[int], list[int]]:
    """Between `user_id` and `others` (the people of one table): (those of them who
    block her, those she blocks)."""
    if not others:
        return [], []
    rows = db.execute(
        select(Block.user_id, Block.blocked_id).where(
            or_(
                (Block.blocked_id == user_id) & Block.user_id.in_(list(others)),
                (Block.user_id == user_id) & Block.blocked_id.in_(list(others)),
            )
        )
    ).all()
    by = sorted(u for u, b in rows if b == user_id)
    mine = sorted(b for u, b in rows if u == user_id)
    return by, mine


def blocks_within(db: Session, user_ids: Collection[int]) -> list[tuple[int, int]]:
    """Every (blocker, blocked) pair among `user_ids` (the people of one table)."""
    if len(user_ids) < 2:
        return []
    ids = list(user_ids)
    rows = db.execute(
        select(Block.user_id, Block.blocked_id).where(
            Block.user_id.in_(ids), Block.blocked_id.in_(ids)
        )
    )
    return [(int(a), int(b)) for a, b in rows]


# --------------------------------------------------------------------------- mutes


def muted(db: Session, user_id: int, game_id: int) -> bool:
    query = select(ChatMute.user_id).where(ChatMute.user_id == user_id, ChatMute.game_id == game_id)
    return db.scalar(query) is not None


def set_muted(db: Session, user_id: int, game_id: int, on: bool, now: datetime) -> bool:
    """Mute (`on`) or unmute `game_id`'s chat for `user_id`; False if it already was so."""
    if muted(db, user_id, game_id) == on:
        return False
    if on:
        db.execute(insert(table(ChatMute)).values(user_id=user_id, game_id=game_id, created_at=now))
    else:
        db.execute(delete(ChatMute).where(ChatMute.user_id == user_id, ChatMute.game_id == game_id))
    return True


def muted_among(db: Session, game_id: int, user_ids: Collection[int]) -> set[int]:
    """Those of `user_ids` who muted `game_id`'s chat."""
    if not user_ids:
        return set()
    return set(
        db.scalars(
            select(ChatMute.user_id).where(
                ChatMute.game_id == game_id, ChatMute.user_id.in_(list(user_ids))
            )
        )
    )


# --------------------------------------------------------------------------- chat lines


def line(db: Session, message_id: int) -> ChatMessage | None:
    return db.get(ChatMessage, message_id)


def lines_around(db: Session, game_id: int, message_id: int, n: int) -> list[ChatMessage]:
    """The game's chat line `message_id` with up to `n` lines before and after it."""
    before = db.scalars(
        select(ChatMessage)
        .where(ChatMessage.game_id == game_id, ChatMessage.id < message_id)
        .order_by(ChatMessage.id.desc())
        .limit(n)
    ).all()
    rest = db.scalars(
        select(ChatMessage)
        .where(ChatMessage.game_id == game_id, ChatMessage.id >= message_id)
        .order_by(ChatMessage.id)
        .limit(n + 1)
    ).all()
    return [*reversed(before), *rest]


# --------------------------------------------------------------------------- reports


def report_of_line(db: Session, reporter_id: int, message_id: int) -> Report | None:
    return db.scalar(
        select(Report).where(Report.reporter_id == reporter_id, Report.message_id == message_id)
    )


def open_report_of_player(db: Session, reporter_id: int, reported_id: int) -> Report | None:
    """`reporter_id`'s open report of `reported_id` as a player (no chat line)."""
    return db.scalar(
        select(Report).where(
            Report.reporter_id == reporter_id,
            Report.reported_id == reported_id,
            Report.message_id.is_(None),
            Report.status == "open",
        )
    )


def open_reports(db: Session, limit: int) -> Sequence[Report]:
    """The open reports, the oldest first (the queue)."""
    return db.scalars(
        select(Report).where(Report.status == "open").order_by(Report.id).limit(limit)
    ).all()


def count_open(db: Session) -> int:
    return int(db.scalar(select(func.count(Report.id)).where(Report.status == "open")) or 0)


def resolve_reports_on(
    db: Session, reported_id: int, status: str, by: int | None, now: datetime, note: str
) -> list[int]:
    """Close every open report of `reported_id` with `status`; the ids closed."""
    ids = list(
        db.scalars(
            select(Report.id).where(Report.reported_id == reported_id, Report.status == "open")
        )
    )
    if ids:
        db.execute(
            update(Report)
            .where(Report.id.in_(ids))
            .values(status=status, resolved_by=by, resolved_at=now, resolution=note[:500])
        )
    return ids


# --------------------------------------------------------------------------- accounts


def suspended(db: Session) -> Sequence[User]:
    """The suspended accounts, the latest suspended first."""
    return db.scalars(
        select(User).where(User.suspended_at.is_not(None)).order_by(User.suspended_at.desc())
    ).all()


def suspension_of(db: Session, user_id: int) -> datetime | None:
    """When `user_id` was suspended (None: she is not); one primary-key read."""
    return db.scalar(select(User.suspended_at).where(User.id == user_id))


def last_entry(db: Session, action: str, target_id: int) -> ModerationEntry | None:
    """The latest log entry of `action` on `target_id` (who suspended her, and when)."""
    return db.scalar(
        select(ModerationEntry)
        .where(ModerationEntry.action == action, ModerationEntry.target_id == target_id)
        .order_by(ModerationEntry.id.desc())
        .limit(1)
    )


def log_entries(
    db: Session, limit: int, actions: Collection[str] | None = None
) -> Sequence[ModerationEntry]:
    """The latest entries of the moderation log (of `actions` only, if given)."""
    query = select(ModerationEntry)
    if actions is not None:
        query = query.where(ModerationEntry.action.in_(list(actions)))
    return db.scalars(query.order_by(ModerationEntry.id.desc()).limit(limit)).all()


def notify_on_commit(db: Session, channel: str, payload: str) -> None:
    """PostgreSQL: NOTIFY every server process listening on `channel` when this
    transaction commits (nothing is sent if it rolls back). SQLite has no other process
    to tell: nothing."""
    if db.get_bind().dialect.name == "postgresql":
        db.execute(
            text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload}
        )
