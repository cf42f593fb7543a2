"""A person's own hold on her seat and her clock: "I'm away" (her standing orders and a
stand-in play at once), "I'm back" (she takes the seat back; any move of hers does too,
app/services/moves.py ``submit_action``) and "more time" (an extension of her own bank,
a few per game).

Each is one change through the unit of work (app/services/unit.py): the game locked,
the seat's change decided here, the version moved and the game settled there
(``moves.settle``: standing orders answer, the clocks and the bot worker's cue are set),
then committed and published.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.services import clocks, lobby, orders, standins, unit
from app.services.errors import Conflict, Forbidden, Invalid
from app.store.models import Game, Seat


def seated(game: Game, user_id: int) -> Seat:
    """My seat in the locked running `game` (403 with none, 409 when not running)."""
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if game.status != "active":
        raise Conflict(f"The game is not running (it is {game.status}).", status=game.status)
    return seat


def go_away(db: Session, game_id: int, user_id: int, now: datetime | None = None) -> Game:
    """I'm away: my standing orders and a stand-in play my seat from now on."""

    def decide(work: unit.Work, game: Game) -> Game:
        seat = seated(game, user_id)
        if seat.standin:
            raise Conflict('A stand-in already plays your seat; press "I\'m back" to return.')
        standins.stand_in(db, game, seat, "away", work.now)
        work.changed(game)
        return game

    return unit.change(db, game_id, decide, now)


def come_back(db: Session, game_id: int, user_id: int, now: datetime | None = None) -> Game:
    """I'm back: the stand-in steps aside and my clock holds at least the comeback time."""

    def decide(work: unit.Work, game: Game) -> Game:
        seat = lobby.seat_of(game, user_id)
        if seat is None:
            raise Forbidden("You have no seat in this game.")
        if seat.standin is None:
            raise Conflict("Your seat is already yours.")
        standins.take_back(db, game, seat, work.now)
        work.changed(game)
        return game

    return unit.change(db, game_id, decide, now)


def extend(db: Session, game_id: int, user_id: int, now: datetime | None = None) -> Game:
    """More time for me: one extension of my own bank (the pace says how much and how
    many per game); said in the chronicle, so the table knows why it waits."""
    return unit.change(db, game_id, lambda work, game: _extend(db, work, game, user_id), now)


def _extend(db: Session, work: unit.Work, game: Game, user_id: int) -> Game:
    seat = seated(game, user_id)
    tc = clocks.control(game.pace)
    if tc is None:
        raise Invalid("This game has no clock: there is no time to extend.", code="no_clock")
    if seat.standin:
        raise Conflict("A stand-in plays your seat: take it back first.")
    if clocks.extension_left(game, seat.index) <= 0:
        raise Invalid(
            f"You have taken all {tc.extensions} extensions of this game.", code="no_extension"
        )
    added = clocks.extend(game, seat.index, work.now)
    left = clocks.extension_left(game, seat.index)
    standins.announce(
        db,
        game,
        f"{standins.who(seat)} takes {clocks.span_words(added)} more "
        f"({left} extension{'' if left == 1 else 's'} left).",
        "extend",
        {"seat": seat.index, "seconds": added},
    )
    work.changed(game, settle=False)  # more time answers no prompt
    return game


def set_orders(
    db: Session,
    game_id: int,
    user_id: int,
    standing: dict[str, Any] | None,
    now: datetime | None = None,
) -> Game:
    """Give (or clear) my standing orders; a matching pending prompt is answered at once.
    Orders are private to the seat: the version moves only if they answer a prompt."""

    def decide(work: unit.Work, game: Game) -> Game:
        seat = lobby.seat_of(game, user_id)
        if seat is None:
            raise Forbidden("You have no seat in this game.")
        seat.standing_orders = orders.validate(standing)
        work.settled(game)
        return game

    return unit.change(db, game_id, decide, now)
