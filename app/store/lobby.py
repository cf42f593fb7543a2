"""The games as the lobby, the pages and the background jobs find them: one by its id or
its invite, and the lists (open tables, a player's games, the finished ones, those with
a deadline or a bot due)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from app.store.models import Game, Invite, Seat


def game(db: Session, game_id: int) -> Game | None:
    """The game (ORM) with its seats."""
    return db.scalar(select(Game).where(Game.id == game_id).options(selectinload(Game.seats)))


def invite_code(db: Session, game_id: int) -> str | None:
    """The game's first invite code, if it has one."""
    return db.scalar(select(Invite.code).where(Invite.game_id == game_id).order_by(Invite.id))


def invite(db: Session, code: str) -> Invite | None:
    return db.scalar(select(Invite).where(Invite.code == code))


def _query() -> Any:
    return select(Game).options(selectinload(Game.seats), selectinload(Game.host))


def open_games(db: Session, limit: int) -> Sequence[Game]:
    """The newest public games still in their lobby."""
    return db.scalars(
        _query()
        .where(Game.status == "lobby", Game.public.is_(True))
        .order_by(Game.created_at.desc())
        .limit(limit)
    ).all()


def games_of(db: Session, user_id: int, limit: int) -> list[Game]:
    """The lobby and running games where `user_id` holds a seat, the latest changed first."""
    return list(
        db.scalars(
            _query()
            .join(Seat, Seat.game_id == Game.id)
            .where(Seat.user_id == user_id, Game.status.in_(("lobby", "active")))
            .order_by(Game.updated_at.desc())
            .limit(limit)
        ).unique()
    )


def finished_games_of(db: Session, user_id: int, limit: int) -> list[Game]:
    """The finished (and cancelled) games where `user_id` held a seat, newest first."""
    mine = select(Seat.game_id).where(Seat.user_id == user_id)
    return list(
        db.scalars(
            _query()
            .where(Game.status.in_(("finished", "aborted")), Game.id.in_(mine))
            .order_by(Game.updated_at.desc())
            .limit(limit)
        )
    )


def finished_games(db: Session, user_id: int | None, limit: int) -> list[Game]:
    """Recently finished games: public ones and those where `user_id` held a seat."""
    query = _query().where(Game.status == "finished")
    if user_id is not None:
        mine = select(Seat.game_id).where(Seat.user_id == user_id)
        query = query.where(Game.public.is_(True) | Game.id.in_(mine))
    else:
        query = query.where(Game.public.is_(True))
    return list(db.scalars(query.order_by(Game.finished_at.desc()).limit(limit)))


def running_of(db: Session, user_id: int, scenario: str) -> Sequence[Game]:
    """The running games of `scenario` where `user_id` holds a seat, newest first."""
    return db.scalars(
        select(Game)
        .join(Seat, Seat.game_id == Game.id)
        .where(Seat.user_id == user_id, Game.status == "active", Game.scenario == scenario)
        .order_by(Game.id.desc())
    ).all()


def latest_games(db: Session, limit: int, status: str | None = None) -> Sequence[Game]:
    """The newest games (of `status`, if given), newest first."""
    query = select(Game).order_by(Game.id.desc()).limit(limit)
    if status:
        query = query.where(Game.status == status)
    return db.scalars(query).all()


def deadline_due(db: Session, now: datetime) -> list[int]:
    """The running games whose next deadline has passed by `now`, the earliest first."""
    return list(
        db.scalars(
            select(Game.id)
            .where(Game.status == "active", Game.next_deadline <= now)
            .order_by(Game.next_deadline)
        )
    )


def server_turn_due(db: Session) -> list[int]:
    """The running games where a bot or a stand-in is prompted (``games.server_turn``)."""
    return list(
        db.scalars(select(Game.id).where(Game.server_turn.is_(True), Game.status == "active"))
    )


def count_by_status(db: Session) -> dict[str, int]:
    """status -> how many games have it (the metrics' live games: ``active``)."""
    rows = db.execute(select(Game.status, func.count()).group_by(Game.status))
    return {str(status): int(n) for status, n in rows}


def started_ids(db: Session) -> list[int]:
    """Every game that was started (it has a seed and a log), oldest first."""
    return list(db.scalars(select(Game.id).where(Game.started_at.is_not(None)).order_by(Game.id)))
