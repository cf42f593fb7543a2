"""Games set up through the services (no server): shared by the platform and realtime
tests that drive a game from a session factory."""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, lobby


def two_person_game(factory: sessionmaker[Session]) -> tuple[int, dict[int, int]]:
    """Alice hosts a two-seat teaching game, Bob joins, Alice starts it: the game's id,
    and the user id of each seat."""
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("human")]
        )
        lobby.join(db, game, bob)
        lobby.start(db, game, alice)
        db.commit()
        return game.id, {s.index: s.user_id for s in game.seats if s.user_id is not None}
