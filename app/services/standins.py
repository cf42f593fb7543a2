"""Stand-ins, said out loud: when a bot takes an absent player's seat (after repeated
missed deadlines, app/services/deadlines.py) and when they take it back, a line goes
into the chronicle for everyone; at the end the result says how many decisions a bot
made for each seat ("played by a bot for 14 decisions")."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.services import notifications
from app.store.models import Action, Event, Game, Seat


def who(seat: Seat) -> str:
    from app.services import lobby

    name = seat.user.username if seat.user else f"Seat {seat.index + 1}"
    power = lobby.power_name_or_none(seat)
    return f"{name} ({power})" if power else name


def announce(db: Session, game: Game, text: str, kind: str, data: dict[str, Any]) -> None:
    """A public chronicle line that is not the result of an action."""
    game.last_event += 1
    payload = {"text": text, "rule": None, "to": None, "kind": kind, "data": data}
    db.add(Event(game_id=game.id, seq=game.last_event, action_seq=None, payload=payload))
    db.flush()


def announce_standin(db: Session, game: Game, seat: Seat, missed: int) -> None:
    announce(
        db,
        game,
        f"A bot now plays for {who(seat)}, who missed {missed} deadlines in a row. "
        "They can take the seat back at any time; the result will say how many decisions "
        "the bot made.",
        "standin",
        {"seat": seat.index, "missed": missed},
    )
    notifications.standin_played(db, game, seat)


def announce_default(db: Session, game: Game, seat: Seat, action: dict[str, Any]) -> None:
    what = {
        "pass": "they pass",
        "decline": "they decline",
        "dismiss": "their advisor is dismissed",
        "end_turn": "their turn ends",
        "abstain": "they abstain",
    }.get(str(action.get("type")), f"the default ({action.get('type')}) is taken")
    announce(
        db,
        game,
        f"Time ran out for {who(seat)}: {what}.",
        "deadline",
        {"seat": seat.index, "action": action},
    )


def announce_return(db: Session, game: Game, seat: Seat) -> None:
    made = counts(db, game.id).get(seat.index, 0)
    announce(
        db,
        game,
        f"{who(seat)} takes the seat back from the bot "
        f"(it made {made} decision{'' if made == 1 else 's'} for them).",
        "standin_end",
        {"seat": seat.index, "decisions": made},
    )


def counts(db: Session, game_id: int, source: str = "standin") -> dict[int, int]:
    """seat -> decisions made for that seat by a stand-in bot (``standin``) or by the
    default when a deadline passed (``deadline``)."""
    rows = db.execute(
        select(Action.seat, func.count())
        .where(Action.game_id == game_id, Action.source == source)
        .group_by(Action.seat)
    )
    return {int(seat): int(n) for seat, n in rows}


def on_finish(db: Session, game: Game) -> None:
    """Called once when a game has just finished: its result notes record the stand-in
    decisions per seat, then the players' ratings move (app/services/ratings.py). The
    engine's `outcome` is left as the engine made it."""
    from app.services import ratings

    notes = dict(game.result_notes or {})
    if "standin" not in notes:
        notes["standin"] = {str(k): v for k, v in counts(db, game.id).items()}
        notes["defaulted"] = {str(k): v for k, v in counts(db, game.id, "deadline").items()}
        game.result_notes = notes
    ratings.rate_game(db, game)
