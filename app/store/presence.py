"""The presence registry's statements (``presence``: app/services/presence.py): one row
per (game, person, server process) that has held a socket of hers on the game."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, and_, case, delete, func, insert, select, type_coerce, update
from sqlalchemy.orm import Session

from app.store.models import Game, Presence, table
from app.store.types import UTCDateTime

_P = table(Presence)
_G = table(Game)


def arrive(db: Session, game_id: int, user_id: int, origin: str, now: datetime) -> None:
    """This process holds a socket of `user_id` on `game_id` now."""
    key = and_(_P.c.game_id == game_id, _P.c.user_id == user_id, _P.c.origin == origin)
    done = db.execute(update(_P).where(key).values(seen_at=now, left_at=None))
    if not getattr(done, "rowcount", 0):
        db.execute(
            insert(_P).values(
                game_id=game_id, user_id=user_id, origin=origin, seen_at=now, left_at=None
            )
        )


def depart(db: Session, game_id: int, user_id: int, origin: str, now: datetime) -> None:
    """This process's last socket of `user_id` on `game_id` closed at `now`."""
    key = and_(_P.c.game_id == game_id, _P.c.user_id == user_id, _P.c.origin == origin)
    db.execute(update(_P).where(key).values(seen_at=now, left_at=now))


def refresh(db: Session, origin: str, now: datetime) -> None:
    """Every row this process holds open is still open at `now` (one statement)."""
    db.execute(update(_P).where(_P.c.origin == origin, _P.c.left_at.is_(None)).values(seen_at=now))


def _open(fresh_after: datetime) -> ColumnElement[bool]:
    return and_(_P.c.left_at.is_(None), _P.c.seen_at > fresh_after)


def absent(db: Session, fresh_after: datetime) -> list[tuple[int, int, datetime]]:
    """(game, person, since when) of every person of a running game who held a socket on
    it and holds none now: no open row refreshed after `fresh_after` (a process that
    stopped refreshing holds none); since = the latest moment any row saw her."""
    is_open = case((_open(fresh_after), 1), else_=0)
    since = type_coerce(func.max(func.coalesce(_P.c.left_at, _P.c.seen_at)), UTCDateTime())
    rows = db.execute(
        select(_P.c.game_id, _P.c.user_id, since)
        .join(_G, _G.c.id == _P.c.game_id)
        .where(_G.c.status == "active")
        .group_by(_P.c.game_id, _P.c.user_id)
        .having(func.sum(is_open) == 0)
        .order_by(_P.c.game_id, _P.c.user_id)
    ).all()
    return [(int(g), int(u), s) for g, u, s in rows]


def present(db: Session, game_id: int, user_id: int, fresh_after: datetime) -> bool:
    """Whether some process holds an open socket of `user_id` on `game_id` now."""
    got = db.execute(
        select(_P.c.origin)
        .where(_P.c.game_id == game_id, _P.c.user_id == user_id, _open(fresh_after))
        .limit(1)
    ).first()
    return got is not None


def forget_ended(db: Session) -> None:
    """Drop the rows of games no longer running (nobody needs their presence)."""
    ended = select(_G.c.id).where(_G.c.status.in_(("finished", "aborted")))
    db.execute(delete(_P).where(_P.c.game_id.in_(ended)))
