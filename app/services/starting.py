"""Starting a game, and every change to a game in the lobby, through the unit of work
(app/services/unit.py): the lobby decides (``lobby.join``, ``leave``, ``set_bot``,
``open_seat``, ``deal``: powers, the seed, the first state), then the unit moves the
version, lets play answer at once what the first position asks of standing orders and
sets the deadlines (``moves.settle``), commits and publishes. Its own module because it
sits above both: play reads the lobby, so the lobby cannot call play."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from app.services import lobby, unit
from app.store.models import Game, User


def start(db: Session, game: Game, user: User, work: unit.Work | None = None) -> Game:
    """`user`, the host, starts `game` (every seat taken); it is active on return, its
    version moved and its first prompts settled in `work` (a new one, not committed,
    when none is given: the caller's transaction)."""
    state = lobby.deal(db, game, user)
    assert game.started_at is not None
    (work or unit.Work(db, game.started_at)).changed(game, state=state)
    return game


def lobby_change(db: Session, game_id: int, change: Callable[[unit.Work, Game], object]) -> Game:
    """One change to game `game_id` in the lobby (a seat taken, left, given to a bot or
    opened; the start): `change` decides it on the locked game, the unit of work moves
    the version, commits and publishes."""

    def decide(work: unit.Work, game: Game) -> Game:
        change(work, game)
        work.changed(game)
        return game

    return unit.change(db, game_id, decide)


def new_game(db: Session, make: Callable[[unit.Work], Game]) -> Game:
    """A game created (and, with only bots besides its host, started) by `make`, then
    committed and published by the unit of work."""
    work = unit.Work(db)
    game = work.add(make(work))
    work.commit()
    return game
