"""Deadlines: when a person's time bank runs out (app/services/clocks.py), her seat
goes at once to her standing orders and a Standard stand-in (app/services/standins.py),
and the table is told; she takes it back by acting. Nobody waits for the absent.

`run_once` is called periodically by the web app's lifespan (every few seconds,
in every process: the game-row lock makes concurrent runners harmless).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy.orm import Session, sessionmaker

from app.services import lobby, moves, standins, unit
from app.store import lobby as store
from app.store.models import Game
from app.store.types import utcnow

log = logging.getLogger(__name__)


def due_games(db: Session, now: datetime) -> list[int]:
    return store.deadline_due(db, now)


def expire(
    db: Session, game_id: int, now: datetime, publish: unit.Publish | None = None
) -> int | None:
    """Hand the seats whose time ran out to their orders and a stand-in, as one change
    through the unit of work (committed and published there); the new version, or None
    if nothing was due."""

    def decide(work: unit.Work, game: Game) -> int | None:
        if game.status != "active" or game.next_deadline is None or game.next_deadline > now:
            return None
        overdue = sorted(
            int(k)
            for k, v in (game.deadlines or {}).items()
            if v and datetime.fromisoformat(v) <= now
        )
        standin = moves.STANDIN_LEVEL in lobby.bot_labels()  # every accepted level id
        defaults: list[int] = []
        for index in overdue:
            if not standin:  # no stand-in level installed: the prompt's default (settle)
                defaults.append(index)
                continue
            seat = next(s for s in game.seats if s.index == index)
            standins.stand_in(db, game, seat, "time", now)
            log.info("game %s seat %s: out of time, a stand-in plays", game.id, index)
        work.changed(game, defaults=defaults)
        return game.version

    return unit.change(db, game_id, decide, now, publish, source="clock")


def run_once(
    factory: sessionmaker[Session],
    now: datetime | None = None,
    publish: Callable[[int, int], None] | None = None,
) -> list[tuple[int, int]]:
    """Expire every overdue game, one change each through the unit of work, each
    published after its commit (through the publisher installed at start-up, or
    `publish`); returns (game_id, version) changed."""
    now = now or utcnow()
    with factory() as db:
        ids = due_games(db, now)
    changed: list[tuple[int, int]] = []
    for game_id in ids:
        db = factory()
        try:
            version = expire(db, game_id, now, unit.by_version(publish))
        except Exception:
            db.rollback()
            log.exception("deadline of game %s failed", game_id)
            continue
        finally:
            db.close()
        if version is not None:
            changed.append((game_id, version))
    return changed
