"""A person's own hold on her seat and her clock: "I'm away" (her standing orders and a
stand-in play at once), "I'm back" (she takes the seat back; any move of hers does too,
app/services/moves.py ``submit_action``) and "more time" (an extension of her own bank,
a few per game).

Each is one short transaction on the locked game that moves its version, through the
ORM path every platform change takes (``moves.settle``: standing orders answer, the
clocks and the bot worker's cue are set); the caller commits and publishes.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.services import clocks, gamelog, lobby, moves, standins
from app.services.errors import Conflict, Forbidden, Invalid
from app.store.models import Game, Seat
from app.store.types import utcnow


def seated(db: Session, game_id: int, user_id: int) -> tuple[Game, Seat]:
    """The locked running game and my seat in it (403 with none, 409 when not running)."""
    game = gamelog.lock_game(db, game_id)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if game.status != "active":
        raise Conflict(f"The game is not running (it is {game.status}).", status=game.status)
    return game, seat


def go_away(db: Session, game_id: int, user_id: int, now: datetime | None = None) -> Game:
    """I'm away: my standing orders and a stand-in play my seat from now on."""
    now = now or utcnow()
    game, seat = seated(db, game_id, user_id)
    if seat.standin:
        raise Conflict('A stand-in already plays your seat; press "I\'m back" to return.')
    standins.stand_in(db, game, seat, "away", now)
    game.version += 1
    moves.settle(db, game, gamelog.load_state(game), acted=set(), now=now)
    return game


def come_back(db: Session, game_id: int, user_id: int, now: datetime | None = None) -> Game:
    """I'm back: the stand-in steps aside and my clock holds at least the comeback time."""
    now = now or utcnow()
    game = gamelog.lock_game(db, game_id)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if seat.standin is None:
        raise Conflict("Your seat is already yours.")
    standins.take_back(db, game, seat, now)
    game.version += 1
    if game.status == "active":
        moves.settle(db, game, gamelog.load_state(game), acted=set(), now=now)
    db.flush()
    return game


def extend(db: Session, game_id: int, user_id: int, now: datetime | None = None) -> Game:
    """More time for me: one extension of my own bank (the pace says how much and how
    many per game); said in the chronicle, so the table knows why it waits."""
    now = now or utcnow()
    game, seat = seated(db, game_id, user_id)
    tc = clocks.control(game.pace)
    if tc is None:
        raise Invalid("This game has no clock: there is no time to extend.", code="no_clock")
    if seat.standin:
        raise Conflict("A stand-in plays your seat: take it back first.")
    if clocks.extension_left(game, seat.index) <= 0:
        raise Invalid(
            f"You have taken all {tc.extensions} extensions of this game.", code="no_extension"
        )
    added = clocks.extend(game, seat.index, now)
    left = clocks.extension_left(game, seat.index)
    standins.announce(
        db,
        game,
        f"{standins.who(seat)} takes {clocks.span_words(added)} more "
        f"({left} extension{'' if left == 1 else 's'} left).",
        "extend",
        {"seat": seat.index, "seconds": added},
    )
    game.version += 1
    db.flush()
    return game
