"""Ratings: each player's ``player_stats`` row, and the games a profile lists."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from app.store.models import Game, PlayerStats, Seat


def stats_for(db: Session, user_id: int, lock: bool, mu: float, sigma: float) -> PlayerStats:
    """The user's row, made (at `mu` ± `sigma`, no games) on first need. Two requests
    making it at once are safe (the loser's insert rolls back to a savepoint and reads
    the winner's row); `lock` holds the row until the transaction ends."""
    query = select(PlayerStats).where(PlayerStats.user_id == user_id)
    if lock:
        query = query.with_for_update(of=PlayerStats)
    stats = db.scalar(query)
    if stats is None:
        try:
            with db.begin_nested():
                stats = PlayerStats(user_id=user_id, mu=mu, sigma=sigma, games=0, wins=0)
                db.add(stats)
        except IntegrityError:
            stats = db.scalars(query).one()
    return stats


def stats_of(db: Session, user_ids: list[int]) -> Sequence[PlayerStats]:
    """The rows of those of `user_ids` who have one."""
    return db.scalars(select(PlayerStats).where(PlayerStats.user_id.in_(user_ids))).all()


def seen_since(db: Session, since: datetime, limit: int) -> Sequence[PlayerStats]:
    """The rows of the people seen since `since`, most recent first."""
    return db.scalars(
        select(PlayerStats)
        .where(PlayerStats.last_seen_at >= since)
        .order_by(PlayerStats.last_seen_at.desc())
        .limit(limit)
    ).all()


def played_games(db: Session, user_id: int, viewer_id: int | None, limit: int) -> Sequence[Game]:
    """The running and finished games `user_id` played, newest first: all of them for
    `user_id` itself, else the public ones and those `viewer_id` shared."""
    shared = select(Seat.game_id).where(Seat.user_id == viewer_id) if viewer_id else None
    query = (
        select(Game)
        .join(Seat, Seat.game_id == Game.id)
        .where(Seat.user_id == user_id, Game.status.in_(("active", "finished")))
        .options(selectinload(Game.seats))
        .order_by(Game.id.desc())
        .limit(limit)
    )
    if viewer_id != user_id:
        # A finished tutorial is on the profile for everyone (issue 40: a player who
        # finished it had a profile with no games): it is a game against a bot, with no
        # one else's play in it to keep private.
        tutorial = (Game.scenario == "tutorial") & (Game.status == "finished")
        query = query.where(
            Game.public.is_(True)
            | tutorial
            | (Game.id.in_(shared) if shared is not None else False)
        )
    return db.scalars(query).unique().all()
