"""Deadlines: when a person's decision is overdue, the engine's default applies
(pass, decline, abstain); after repeated misses a bot stands in for them.

`run_once` is called periodically by the web app's lifespan (every few seconds,
in every process: the game-row lock makes concurrent runners harmless).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.services import gamelog, lobby, play, standins
from app.store.models import Game
from app.store.types import utcnow

log = logging.getLogger(__name__)


def due_games(db: Session, now: datetime) -> list[int]:
    return list(
        db.scalars(
            select(Game.id)
            .where(Game.status == "active", Game.next_deadline <= now)
            .order_by(Game.next_deadline)
        )
    )


def expire(db: Session, game_id: int, now: datetime) -> int | None:
    """Apply the defaults of `game_id`'s overdue prompts; the new version, or None."""
    from app import engine

    game = gamelog.lock_game(db, game_id)
    if game.status != "active" or game.next_deadline is None or game.next_deadline > now:
        return None
    state = gamelog.load_state(game)
    overdue = sorted(
        int(k) for k, v in (game.deadlines or {}).items() if v and datetime.fromisoformat(v) <= now
    )
    acted: set[int] = set()
    for index in overdue:
        prompt = next((p for p in engine.pending(state) if p["seat"] == index), None)
        if prompt is None:
            continue
        action = engine.default_action(state, prompt)
        state, events = engine.apply(state, index, action)
        gamelog.record(db, game, index, action, events, "deadline")
        acted.add(index)
        seat = next(s for s in game.seats if s.index == index)
        standins.announce_default(db, game, seat, action)
        seat.missed += 1
        levels = lobby.bot_labels()  # every accepted level id, old ids too
        if seat.missed >= play.MISSES_BEFORE_STANDIN and play.STANDIN_LEVEL in levels:
            seat.standin = play.STANDIN_LEVEL
            standins.announce_standin(db, game, seat, seat.missed)
            log.info(
                "game %s seat %s: a bot stands in after %s misses", game.id, index, seat.missed
            )
    play.after_change(db, game, state, acted=acted, now=now)
    return game.version


def run_once(
    factory: sessionmaker[Session],
    now: datetime | None = None,
    publish: Callable[[int, int], None] | None = None,
) -> list[tuple[int, int]]:
    """Expire every overdue game, one transaction each; returns (game_id, version) changed."""
    now = now or utcnow()
    with factory() as db:
        ids = due_games(db, now)
    changed: list[tuple[int, int]] = []
    for game_id in ids:
        db = factory()
        try:
            version = expire(db, game_id, now)
            db.commit()
        except Exception:
            db.rollback()
            log.exception("deadline of game %s failed", game_id)
            continue
        finally:
            db.close()
        if version is not None:
            changed.append((game_id, version))
            if publish is not None:
                publish(game_id, version)
    return changed
