"""The statements of the bench-only account route (``app/services/bench.py``).

Many accounts and their sessions are written with one multi-row ``INSERT`` each
(``insertmanyvalues``: a few statements for thousands of rows, on SQLite and PostgreSQL
alike) instead of one ORM object each; nothing here commits (the router does).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from app.store.models import User, UserSession

#: names looked up per statement (SQLite allows 32,766 bound parameters per statement)
_IN_CHUNK = 5_000


def taken_names(db: Session, keys: Sequence[str]) -> list[str]:
    """Which of the lower-cased usernames `keys` already belong to someone."""
    found: list[str] = []
    for start in range(0, len(keys), _IN_CHUNK):
        chunk = list(keys[start : start + _IN_CHUNK])
        found += db.scalars(select(User.username_key).where(User.username_key.in_(chunk))).all()
    return found


def insert_users(
    db: Session, names: Sequence[str], password_hash: str, created_at: datetime
) -> list[int]:
    """New users named `names` (in order), all with `password_hash`; their ids, in order."""
    rows: list[dict[str, Any]] = [
        {
            "username": name,
            "username_key": name.lower(),
            "password_hash": password_hash,
            "created_at": created_at,
        }
        for name in names
    ]
    if not rows:
        return []
    result = db.execute(
        insert(User).returning(User.id, sort_by_parameter_order=True), rows
    ).scalars()
    return list(result)


def insert_sessions(
    db: Session,
    sessions: Sequence[tuple[int, str, str]],
    created_at: datetime,
    expires_at: datetime,
) -> None:
    """A session row for each ``(user_id, token_hash, csrf_token)``."""
    rows: list[dict[str, Any]] = [
        {
            "user_id": user_id,
            "token_hash": token_hash,
            "csrf_token": csrf,
            "created_at": created_at,
            "expires_at": expires_at,
        }
        for user_id, token_hash, csrf in sessions
    ]
    if rows:
        db.execute(insert(UserSession), rows)
