"""Starting a game: the lobby deals it (``lobby.deal``: powers, the seed, the first
state), then play answers at once what the first position asks of standing orders
and sets the deadlines (``moves.settle``). Its own module because it sits
above both: play reads the lobby, so the lobby cannot call play."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.services import lobby, moves
from app.store.models import Game, User


def start(db: Session, game: Game, user: User) -> Game:
    """`user`, the host, starts `game` (every seat taken); it is active on return."""
    state = lobby.deal(db, game, user)
    assert game.started_at is not None
    moves.settle(db, game, state, acted=set(), now=game.started_at)
    return game
