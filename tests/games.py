"""Games set up through the services (no server): shared by the platform and realtime
tests that drive a game from a session factory."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, clocks, gamelog, lobby, starting
from app.store.models import Game, User
from app.store.types import utcnow


def _started(
    db: Session, host_power: str | None = None, guest_power: str | None = None
) -> tuple[Game, User, User]:
    """Alice hosts a two-seat teaching game, Bob joins, Alice starts it."""
    alice = accounts.signup(db, "alice", "correct horse 1")
    bob = accounts.signup(db, "bob", "correct horse 1")
    seats = [lobby.SeatSpec("human"), lobby.SeatSpec("human")]
    game = lobby.create_game(db, alice, "teaching", seats, host_power=host_power)
    lobby.join(db, game, bob, power=guest_power)
    starting.start(db, game, alice)
    return game, alice, bob


def two_person_game(factory: sessionmaker[Session]) -> tuple[int, dict[int, int]]:
    """Alice hosts a two-seat teaching game, Bob joins, Alice starts it: the game's id,
    and the user id of each seat."""
    with factory() as db:
        game, _alice, _bob = _started(db)
        db.commit()
        return game.id, {s.index: s.user_id for s in game.seats if s.user_id is not None}


def two_person_game_at(
    factory: sessionmaker[Session], state: dict[str, Any]
) -> tuple[int, int, User, User]:
    """Alice (Kushan) and Bob (Han) at a started teaching table, put in `state`, a real
    position the test found by play: the game's id and version, Alice and Bob."""
    with factory() as db:
        game, alice, bob = _started(db, "kushan", "han")
        gamelog.save_state(db, game, state, snapshot=True)
        clocks.set_deadlines(game, state, set(), utcnow())
        db.commit()
        return game.id, game.version, alice, bob


def three_friends(factory: sessionmaker[Session], pace: str = "live") -> tuple[int, dict[int, int]]:
    """Alice hosts a three-person table of The Four Empires at `pace`, Bob and Carol join,
    Alice starts it: the game's id, and the user id of each seat."""
    with factory() as db:
        host = accounts.signup(db, "alice", "correct horse 1")
        seats = [lobby.SeatSpec("human")] * 3
        game = lobby.create_game(db, host, "four_empires", seats, pace=pace)
        for name in ("bob", "carol"):
            lobby.join(db, game, accounts.signup(db, name, "correct horse 1"))
        starting.start(db, game, host)
        db.commit()
        return game.id, {s.index: s.user_id for s in game.seats if s.user_id is not None}
