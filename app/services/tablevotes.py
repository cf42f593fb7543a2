"""The table's own votes, kept by the platform (not the engine's parleys): pause the
clocks, let them run again, and hand an absent person's seat to a stand-in before her
time runs out (as BGA's "expel" or webDiplomacy's civil disorder).

Who votes: the people present, that is the seats a person plays now (not a bot, not a
stand-in); for a seat handed over, everyone present but her. A vote passes the moment
more than half of them say yes, and is announced in the chronicle at each step, so the
table sees who asked for what. A vote may be withdrawn (``yes=False``) until it passes.
Votes live in ``games.clocks["votes"]`` (app/services/clocks.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.services import absence, clocks, standins, unit
from app.services.errors import Conflict, Invalid
from app.store.models import Game, Seat

KINDS = ("pause", "resume", "skip")


#: what a vote asks, in words ({who}: the seat to hand over)
ASKS = {
    "pause": "to pause the clocks",
    "resume": "to run the clocks again",
    "skip": "to hand the seat of {who} to a stand-in now",
}


def electorate(game: Game, kind: str, target: int | None) -> set[int]:
    """The seats whose person may vote on this: the people present, but the target."""
    present = clocks.people(game)
    return present - {target} if kind == "skip" and target is not None else present


def needed(voters: set[int]) -> int:
    """More than half."""
    return len(voters) // 2 + 1


def may_hand_over(game: Game, target: Seat, now: datetime) -> bool:
    """Whether the table may vote `target`'s seat to a stand-in now: its person has no
    socket on the game (shown gone, app/services/presence.py), or the decision her seat
    owes began more than ``clocks.hand_over_after()`` seconds ago (never beside a friend
    who is just thinking, issue 40)."""
    state = game.clocks or {}
    key = str(target.index)
    if key in (state.get("gone") or {}):
        return True
    began = (state.get("since") or {}).get(key)
    if not began or key not in (game.deadlines or {}):
        return False
    return (now - datetime.fromisoformat(began)).total_seconds() > clocks.hand_over_after()


def _check(game: Game, seat: Seat, kind: str, target: Seat | None, now: datetime) -> None:
    if kind not in KINDS:
        raise Invalid(f"A table vote is one of {', '.join(KINDS)}.", field="kind")
    if seat.standin:
        raise Conflict("A stand-in plays your seat: take it back to vote.")
    tc = clocks.control(game.pace)
    if kind == "pause":
        if tc is None:
            raise Invalid("This game has no clock to pause.", code="no_clock")
        if clocks.paused(game):
            raise Conflict("The clocks are paused already.")
    elif kind == "resume" and not clocks.paused(game):
        raise Conflict("The clocks are running.")
    elif kind == "skip":
        if target is None:
            raise Invalid("Say which seat to hand to a stand-in.", field="seat")
        if target.user_id is None:
            raise Invalid("A bot plays that seat already.", field="seat")
        if target is seat:
            raise Invalid('To leave your seat to a stand-in, press "I\'m away".', field="seat")
        if target.standin:
            raise Conflict("A stand-in plays that seat already.")
        if not may_hand_over(game, target, now):
            raise Conflict(
                f"{standins.who(target, game)} is at the table and has been deciding for "
                f"less than {clocks.span_words(clocks.hand_over_after())}: give them time.",
                code="not_absent",
            )


def vote(
    db: Session,
    game_id: int,
    user_id: int,
    kind: str,
    seat_index: int | None = None,
    yes: bool = True,
    now: datetime | None = None,
) -> Game:
    """Cast (or with `yes` False withdraw) my vote; the vote passes at a majority. One
    change through the unit of work (app/services/unit.py)."""

    def decide(work: unit.Work, game: Game) -> Game:
        _vote(db, work, game, user_id, kind, seat_index, yes)
        return game

    return unit.change(db, game_id, decide, now)


def _vote(
    db: Session,
    work: unit.Work,
    game: Game,
    user_id: int,
    kind: str,
    seat_index: int | None,
    yes: bool,
) -> None:
    mine = absence.seated(game, user_id)
    target = None
    if kind == "skip" and seat_index is not None:
        target = next((s for s in game.seats if s.index == seat_index), None)
        if target is None:
            raise Invalid(f"There is no seat {seat_index}.", field="seat")
    _check(game, mine, kind, target, work.now)
    key = kind if target is None else f"{kind}:{target.index}"
    voters = electorate(game, kind, None if target is None else target.index)
    state = clocks.fresh(game)
    ballots = {int(s) for s in state["votes"].get(key, [])} & voters
    ask = ASKS[kind].format(who=standins.who(target, game) if target is not None else "")
    if yes:
        ballots.add(mine.index)
    elif mine.index not in ballots:
        raise Conflict("You have not voted for that.")
    else:
        ballots.discard(mine.index)
    state["votes"][key] = sorted(ballots)
    if not ballots:
        state["votes"].pop(key)
    game.clocks = state
    who = standins.who(mine, game)
    verb = "votes" if yes else "withdraws the vote"
    standins.announce(
        db,
        game,
        f"{who} {verb} {ask} ({len(ballots)} of the {needed(voters)} needed).",
        "table_vote",
        {"vote": kind, "seat": mine.index, "target": seat_index, "yes": yes},
    )
    carried = yes and len(ballots) >= needed(voters)
    if carried:
        _carry(db, game, kind, key, target, work.now)
    # A vote carried lets the table's prompts run (a stand-in answers at once).
    work.changed(game, settle=carried)


def _carry(
    db: Session, game: Game, kind: str, key: str, target: Seat | None, now: datetime
) -> None:
    """The vote passed: do what it asked, say so, and let the table's prompts run."""
    state = clocks.fresh(game)
    state["votes"].pop(key, None)
    game.clocks = state
    if kind == "pause":
        clocks.pause(game, now)
        standins.announce(
            db,
            game,
            "The table pauses the clocks: nobody's time runs until a majority votes to "
            "run them again (moves may still be made).",
            "pause",
            {"paused": True},
        )
    elif kind == "resume":
        clocks.unpause(game)
        standins.announce(db, game, "The clocks run again.", "pause", {"paused": False})
    elif target is not None:
        standins.stand_in(db, game, target, "vote", now)
