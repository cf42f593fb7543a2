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

from app.services import gamelog, lobby, moves, publisher, standins
from app.store import lobby as store
from app.store.types import utcnow

log = logging.getLogger(__name__)


def due_games(db: Session, now: datetime) -> list[int]:
    return store.deadline_due(db, now)


def expire(db: Session, game_id: int, now: datetime) -> int | None:
    """Hand the seats whose time ran out to their orders and a stand-in; the new
    version, or None if nothing was due."""
    game = gamelog.lock_game(db, game_id)
    if game.status != "active" or game.next_deadline is None or game.next_deadline > now:
        return None
    state = gamelog.load_state(game)
    overdue = sorted(
        int(k) for k, v in (game.deadlines or {}).items() if v and datetime.fromisoformat(v) <= now
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
    game.version += 1
    moves.settle(db, game, state, acted=set(), now=now, defaults=defaults)
    return game.version


def run_once(
    factory: sessionmaker[Session],
    now: datetime | None = None,
    publish: Callable[[int, int], None] = publisher.publish,
) -> list[tuple[int, int]]:
    """Expire every overdue game, one transaction each, each published after its commit
    (through the publisher installed at start-up); returns (game_id, version) changed."""
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
            publish(game_id, version)
    return changed
