"""Accounts: users, their login sessions and the failed log-ins that throttle guessing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, inspect, select
from sqlalchemy.orm import Session

from app.store.models import Game, LoginFailure, Seat, User, UserSession


def _rowcount(result: Any) -> int:
    return getattr(result, "rowcount", 0) or 0


# --------------------------------------------------------------------------- users


def name_taken(db: Session, username_key: str) -> bool:
    return db.scalar(select(User.id).where(User.username_key == username_key)) is not None


def user_named(db: Session, username_key: str) -> User | None:
    """The user whose lower-cased name is `username_key`."""
    return db.scalar(select(User).where(User.username_key == username_key))


def user_with_email(db: Session, email: str) -> User | None:
    """A user with `email`, whatever its case."""
    return db.scalar(select(User).where(func.lower(User.email) == email.lower()).limit(1))


def games_in_play(db: Session, user_id: int) -> Sequence[int]:
    """The ids of the lobby and running games where `user_id` holds a seat (a game may
    come once per seat)."""
    return db.scalars(
        select(Seat.game_id)
        .join(Game, Game.id == Seat.game_id)
        .where(Seat.user_id == user_id, Game.status.in_(("lobby", "active")))
    ).all()


# --------------------------------------------------------------------------- sessions


def session_by_hash(db: Session, token_hash: str) -> UserSession | None:
    return db.scalar(select(UserSession).where(UserSession.token_hash == token_hash))


#: a login's mapped attributes and those of its user, in the order ``login_by_hash``
#: selects their columns
SESSION_ATTRS = [a.key for a in inspect(UserSession).column_attrs]
USER_ATTRS = [a.key for a in inspect(User).column_attrs]
_LOGIN = select(
    *(a.columns[0] for a in inspect(UserSession).column_attrs),
    *(a.columns[0] for a in inspect(User).column_attrs),
).join_from(UserSession, User, UserSession.user_id == User.id)


def login_by_hash(db: Session, token_hash: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The session `token_hash` names and its user, as {attribute: value} each, in one
    statement and without ORM rows (the login cache keeps these: app/services/logins.py)."""
    row = db.execute(_LOGIN.where(UserSession.token_hash == token_hash)).first()
    if row is None:
        return None
    n = len(SESSION_ATTRS)
    return dict(zip(SESSION_ATTRS, row[:n], strict=True)), dict(
        zip(USER_ATTRS, row[n:], strict=True)
    )


def delete_session(db: Session, token_hash: str) -> None:
    db.execute(delete(UserSession).where(UserSession.token_hash == token_hash))


def delete_sessions_of(db: Session, user_id: int) -> int:
    """End every session of `user_id`; how many there were."""
    return _rowcount(db.execute(delete(UserSession).where(UserSession.user_id == user_id)))


def purge(db: Session, now: datetime, failures_before: datetime) -> tuple[int, int]:
    """Delete the sessions expired by `now` and the failed log-ins older than
    `failures_before`: (sessions, failures) deleted."""
    sessions = db.execute(delete(UserSession).where(UserSession.expires_at <= now))
    failures = db.execute(delete(LoginFailure).where(LoginFailure.created_at <= failures_before))
    return _rowcount(sessions), _rowcount(failures)


# --------------------------------------------------------------------------- failed log-ins


def failures_since(
    db: Session, username_key: str, ip: str, since: datetime
) -> tuple[int | None, datetime | None]:
    """(how many, the oldest) failed log-ins to `username_key` from `ip` after `since`."""
    count, oldest = db.execute(
        select(func.count(LoginFailure.id), func.min(LoginFailure.created_at)).where(
            LoginFailure.username_key == username_key,
            LoginFailure.ip == ip,
            LoginFailure.created_at > since,
        )
    ).one()
    return count, oldest


def forget_failures(db: Session, username_key: str, ip: str | None = None) -> None:
    """Delete the failed log-ins to `username_key` (from `ip` only, if given)."""
    query = delete(LoginFailure).where(LoginFailure.username_key == username_key)
    if ip is not None:
        query = query.where(LoginFailure.ip == ip)
    db.execute(query)
