"""Stand-ins, said out loud: when a bot takes an absent person's seat (her time ran
out, app/services/deadlines.py; she said she is away, or the table voted,
app/services/absence.py and tablevotes.py) and when she takes it back, a line goes into
the chronicle for everyone; at the end the result says how many decisions a bot made
for each seat ("played by a bot for 14 decisions").

While a stand-in plays, the person's standing orders answer first (app/services/moves.py
``next_server_move``), the bot whatever they do not cover.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.bots.temperament import label as temperament_label
from app.bots.temperament import temperament_for
from app.services import clocks, lobby, metrics, notifications, ratings
from app.services.rows import GameRow, SeatRow
from app.store import seats
from app.store.models import Event, Game, Seat

#: the bot that stands in (the Standard level)
LEVEL = "heuristic"
#: why a stand-in plays: what the chronicle says first ({who}: "alice (Han)")
WHY = {
    "time": "Time ran out for {who}",
    "away": "{who} is away",
    "vote": "The table voted to hand the seat of {who} to a stand-in",
    "deleted": "{who} deleted their account",
    "gone": "{who} left the table",
    "suspended": "The account of {who} was suspended by the moderators",
}
#: why a stand-in plays that the person did not choose: her seat is hers again the
#: moment she opens the game (app/services/presence.py); a suspended account's once it
#: may sign in again (app/services/moderation.py ``unsuspend``)
INVOLUNTARY = frozenset({"time", "vote", "gone", "suspended"})


def who(seat: Any, game: Any = None) -> str:
    """ "alice (Han)": the seat's person and power (`game` names the scenario for a seat
    read without its game, the hot path's ``gamelog.SeatRow``)."""
    name = seat.user.username if seat.user else f"Seat {seat.index + 1}"
    if game is not None:
        power = lobby.power_name(game.scenario, seat.power)
    else:
        power = lobby.power_name_or_none(seat)
    return f"{name} ({power})" if power else name


def line(text: str, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """A public chronicle line that is not the result of an action (its event's payload)."""
    return {"text": text, "rule": None, "to": None, "kind": kind, "data": data}


def announce(db: Session, game: Any, text: str, kind: str, data: dict[str, Any]) -> None:
    """Tell the table `text` now, as the next event of the ORM `game`."""
    game.last_event += 1
    payload = line(text, kind, data)
    db.add(Event(game_id=game.id, seq=game.last_event, action_seq=None, payload=payload))
    db.flush()


def stand_in(db: Session, game: Any, seat: Any, why: str, now: datetime) -> None:
    """A stand-in plays `seat` from now on (her standing orders first): her clock stops,
    the table is told. The caller runs the seat's prompts (``moves.settle``)."""
    seat.standin = LEVEL
    if why == "time":
        seat.missed += 1
    clocks.stop(game, seat.index, now)
    state = clocks.fresh(game)
    state["away"][str(seat.index)] = {"since": now.isoformat(), "why": why}
    state["votes"].pop(f"skip:{seat.index}", None)
    game.clocks = state
    announce_standin(db, game, seat, why)
    metrics.standin_started(why)


def announce_standin(db: Session, game: Any, seat: Any, why: str) -> None:
    until = (
        "to the end of the game"
        if why == "deleted"  # nobody comes back to an account that is gone
        else "until the account is restored (opening the game then takes the seat back)"
        if why == "suspended"
        else "until they are back (opening the game takes the seat back)"
        if why in INVOLUNTARY
        else 'until they are back (any move of theirs, or "I\'m back", takes the seat back)'
    )
    announce(
        db,
        game,
        WHY[why].format(who=who(seat, game))
        + f": their standing orders and a Standard bot play for them at once, {until}. "
        "The result will say how many decisions the bot made.",
        "standin",
        {"seat": seat.index, "why": why},
    )
    # She said so, or did it, herself: no need to tell her; a suspended account is told
    # why when it tries to sign in.
    if why not in ("away", "deleted", "suspended"):
        notifications.standin_played(db, game, seat)


def take_back(db: Session, game: Game, seat: Seat, now: datetime) -> None:
    """`seat`'s person is back ("I'm back"): the stand-in steps aside, her bank holds at
    least the comeback time, the table is told. A move of hers takes the seat back as
    part of the move itself (``moves._decide`` with ``return_line``)."""
    seat.standin = None
    seats.clear_standin(db, seat.id)
    clocks.comeback(game, seat.index)
    announce_return(db, game, seat)


def default_line(game: GameRow, seat: SeatRow, action: dict[str, Any]) -> dict[str, Any]:
    """What the table is told when a prompt's default was played for `seat` whose time
    ran out (``moves.settle``)."""
    what = {
        "pass": "they pass",
        "decline": "they decline",
        "dismiss": "their advisor is dismissed",
        "end_turn": "their turn ends",
        "abstain": "they abstain",
    }.get(str(action.get("type")), f"the default ({action.get('type')}) is taken")
    return line(
        f"Time ran out for {who(seat, game)}: {what}.",
        "deadline",
        {"seat": seat.index, "action": action},
    )


def return_line(db: Session, game: Any, seat: Any) -> dict[str, Any]:
    """What the table is told when `seat`'s person takes her seat back (one read: how
    many decisions the stand-in made for her)."""
    made = counts(db, game.id).get(seat.index, 0)
    return line(
        f"{who(seat, game)} takes the seat back from the bot "
        f"(it made {made} decision{'' if made == 1 else 's'} for them).",
        "standin_end",
        {"seat": seat.index, "decisions": made},
    )


def announce_return(db: Session, game: Any, seat: Any) -> None:
    said = return_line(db, game, seat)
    announce(db, game, said["text"], said["kind"], said["data"])


def counts(db: Session, game_id: int, source: str = "standin") -> dict[int, int]:
    """seat -> decisions made for that seat by a stand-in bot (``standin``) or by the
    default when a deadline passed (``deadline``)."""
    return seats.decisions_by_source(db, game_id, source)


#: the sources of a person's seat's decisions (actions.source): hers ("player", "forced",
#: "order": her click, her only choice, her standing orders), the stand-in's, and the
#: defaults played when her time ran out
DECISIONS = ("player", "forced", "order", "standin", "deadline")


def on_finish(db: Session, game: Game) -> None:
    """Called once when a game has just finished: its result notes record the stand-in
    decisions per seat, every person's seat's decisions in all, and every bot seat's
    temperament, then the players' ratings move (app/services/ratings.py: a seat a
    stand-in played for more than half of its decisions is unrated for its person). The
    engine's `outcome` is left as the engine made it."""
    notes = dict(game.result_notes or {})
    if "standin" not in notes:
        made = {source: counts(db, game.id, source) for source in DECISIONS}
        notes["standin"] = {str(k): v for k, v in made["standin"].items()}
        notes["defaulted"] = {str(k): v for k, v in made["deadline"].items()}
        # Every decision of each person's seat, whoever made it: a seat whose stand-in
        # made more than half is unrated for its person (ratings.stood_in, issue 40).
        people = {s.index for s in game.seats if s.user_id is not None}
        notes["decisions"] = {
            str(i): n
            for i in sorted(people)
            if (n := sum(made[source].get(i, 0) for source in DECISIONS))
        }
        # Each bot seat's temperament (app/bots/temperament.py), kept from the table
        # while the game ran, shown on its result.
        notes["temperaments"] = {
            str(s.index): temperament_label(temperament_for(game.seed, s.index))
            for s in game.seats
            if s.bot_level
        }
        game.result_notes = notes
    ratings.rate_game(db, game)


#: what a stand-in never does for an absent person: bind her to a new agreement (20.14 an
#: offer or a counter, accepting one), or end one of hers (20.3 cancel, 20.44 renounce)
_BINDING = {"offer", "cancel", "renounce"}


def caretaker(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legal actions a stand-in may choose among for an absent person.

    A stand-in keeps the seat as she left it (as webDiplomacy's civil disorder holds its
    units): it plays the board, but signs nothing binding in her name, breaks none of
    her agreements and refuses the offers made to her, so she never comes back to a
    claim or her talents traded away. Where that would leave nothing, the list is kept.
    """
    kept = [
        a
        for a in legal
        if a.get("type") not in _BINDING
        and not (a.get("type") == "answer_offer" and a.get("answer") != "refuse")
    ]
    return kept or legal
