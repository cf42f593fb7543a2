"""Games set up through the services (no server): shared by the platform and realtime
tests that drive a game from a session factory."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, gamelog, lobby, play
from app.store.models import User
from app.store.types import utcnow


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


def two_person_game_at(
    factory: sessionmaker[Session], state: dict[str, Any]
) -> tuple[int, int, User, User]:
    """Alice (Kushan) and Bob (Han) at a started teaching table, put in `state`, a real
    position the test found by play: the game's id and version, Alice and Bob."""
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        game = lobby.create_game(
            db,
            alice,
            "teaching",
            [lobby.SeatSpec("human"), lobby.SeatSpec("human")],
            host_power="kushan",
        )
        lobby.join(db, game, bob, power="han")
        lobby.start(db, game, alice)
        gamelog.save_state(db, game, state, snapshot=True)
        play.set_deadlines(game, state, set(), utcnow())
        db.commit()
        return game.id, game.version, alice, bob
