"""The presence registry's statements (``presence``: app/services/presence.py): one row
per (game, person, server process) that has held a socket of hers on the game."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, and_, case, delete, func, insert, select, type_coerce, update
from sqlalchemy.orm import Session

from app.store.models import Game, Presence, Seat, table
from app.store.types import UTCDateTime

_P = table(Presence)
_G = table(Game)
_S = table(Seat)


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


def absent(db: Session, fresh_after: datetime) -> list[tuple[int, int, datetime, bool]]:
    """(game, person, since when, already settled) of every person of a running game who
    held a socket on it and holds none now: no open row refreshed after `fresh_after` (a
    process that stopped refreshing holds none); since = the latest moment any row saw
    her. Settled: the game's clocks already show her gone and there is nothing more to
    do (her seat has a stand-in, or the pace hands no seat over: `hands_over`)."""
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
    if not rows:
        return []
    games = {int(g) for g, _u, _s in rows}
    marks = {
        (int(g), int(u)): (pace, clocks, index, standin)
        for g, u, pace, clocks, index, standin in db.execute(
            select(_G.c.id, _S.c.user_id, _G.c.pace, _G.c.clocks, _S.c.index, _S.c.standin)
            .join(_S, _S.c.game_id == _G.c.id)
            .where(_G.c.id.in_(games), _S.c.user_id.is_not(None))
        )
    }
    out = []
    for g, u, s in rows:
        pace, clocks, index, standin = marks.get((int(g), int(u)), (None, None, None, None))
        shown = index is not None and str(index) in ((clocks or {}).get("gone") or {})
        settled = shown and (standin is not None or not hands_over(pace))
        out.append((int(g), int(u), s, settled))
    return out


#: the paces on which a gone person's seat passes to a stand-in (app/services/presence.py)
HANDS_OVER = frozenset({"live"})


def hands_over(pace: str | None) -> bool:
    return pace in HANDS_OVER


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
