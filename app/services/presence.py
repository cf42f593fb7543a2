"""Who is at the table: which people have a socket open on each game, across server
processes and machines (issue 40), and what the table does when one leaves.

Each process keeps a row per (game, person) that it holds a socket of
(``store.presence``): opened with her first socket there (``arrived``), refreshed while
one stays open (``refresh``, every ``REFRESH_S``), marked left with her last
(``departed``). She is present while some row of hers is open and fresh: a process that
stops refreshing (it died) holds nobody after ``STALE_S``.

What follows, each a change through the unit of work (app/services/unit.py):

- ``sweep`` (every few seconds, in every process; the game's lock makes that safe): a
  person gone for ``SHOW_AFTER_S`` is shown gone to the table ("gone since 14:02" in
  the clock bar), so a reload or a brief network drop shows nothing; on the live pace,
  gone for ``GONE_AFTER_S`` while her seat owes a decision, her standing orders and a
  stand-in play for her (``standins.stand_in``, why "gone"), announced as any stand-in
  is: nobody waits for a closed tab. The daily pace keeps her bank and shows "gone".
- ``arrived``: her first socket clears "gone", and gives her seat back at once from a
  stand-in she did not ask for (her time ran out, the table voted, she left): she opens
  the game and plays. A stand-in she asked for ("I'm away") stays until "I'm back".

Only a person who has opened the game's page is judged: one who never did is left to
her clock, as before.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.services import clocks, gamelog, lobby, standins, unit
from app.store import presence as store
from app.store.models import Game
from app.store.types import utcnow

#: seconds between a process's refreshes of the rows it holds open
REFRESH_S = 15.0
#: an open row not refreshed for this long belongs to a process that is gone
STALE_S = 3 * REFRESH_S
#: gone this long (no socket anywhere) before the table is shown it
SHOW_AFTER_S = 10.0
#: gone this long on the live pace, owing a decision: a stand-in plays (issue 40)
GONE_AFTER_S = 60.0
#: the paces on which a closed tab hands the seat to a stand-in
STAND_IN_PACES = store.HANDS_OVER


def arrived(
    db: Session, game_id: int, user_id: int, origin: str, now: datetime | None = None
) -> None:
    """`user_id` opened a socket on `game_id` in process `origin` (its first there)."""

    def decide(work: unit.Work, game: Game) -> None:
        store.arrive(db, game_id, user_id, origin, work.now)
        if game.status != "active":
            return
        seat = lobby.seat_of(game, user_id)
        if seat is None:
            return
        state = clocks.fresh(game)
        key = str(seat.index)
        changed = state["gone"].pop(key, None) is not None
        if changed:
            game.clocks = state
        why = (state["away"].get(key) or {}).get("why")
        if seat.standin and why in standins.INVOLUNTARY:
            standins.take_back(db, game, seat, work.now)  # announced: the table sees her back
            changed = True
        if changed:
            work.changed(game)

    unit.change(db, game_id, decide, now)


def departed(
    db: Session, game_id: int, user_id: int, origin: str, now: datetime | None = None
) -> None:
    """The last socket of `user_id` on `game_id` in process `origin` closed. Nothing is
    shown yet: ``sweep`` judges, once she has been gone long enough."""
    store.depart(db, game_id, user_id, origin, now or utcnow())
    db.commit()


def refresh(db: Session, origin: str, now: datetime | None = None) -> None:
    """Process `origin` still holds the sockets it holds (one statement)."""
    store.refresh(db, origin, now or utcnow())
    db.commit()


def sweep(factory: sessionmaker[Session], now: datetime | None = None) -> list[int]:
    """Show the table who is gone, and hand a gone person's seat to a stand-in on the
    live pace when it owes a decision; each game one change. Returns the games changed."""
    now = now or utcnow()
    with factory() as db:
        gone = store.absent(db, now - timedelta(seconds=STALE_S))
        store.forget_ended(db)
        db.commit()
    changed: list[int] = []
    for game_id, user_id, since, settled in gone:
        if settled or (now - since).total_seconds() < SHOW_AFTER_S:
            continue  # settled: shown gone, and nothing more to do until she is back
        with factory() as db:
            if _judge(db, game_id, user_id, since, now) and game_id not in changed:
                changed.append(game_id)
    return changed


def _judge(db: Session, game_id: int, user_id: int, since: datetime, now: datetime) -> bool:
    """One gone person of one game, judged under the game's lock (she may be back)."""

    def decide(work: unit.Work, game: Game) -> bool:
        if game.status != "active" or store.present(
            db, game_id, user_id, now - timedelta(seconds=STALE_S)
        ):
            return False
        seat = lobby.seat_of(game, user_id)
        if seat is None:
            return False
        state = clocks.fresh(game)
        key = str(seat.index)
        changed = False
        if key not in state["gone"]:
            state["gone"][key] = since.isoformat()
            game.clocks = state
            changed = True
        if (
            not seat.standin
            and game.pace in STAND_IN_PACES
            and (now - since).total_seconds() >= GONE_AFTER_S
            and owes(game, seat.index)
        ):
            standins.stand_in(db, game, seat, "gone", now)
            changed = True
        if changed:
            work.changed(game)
        return changed

    return unit.change(db, game_id, decide, now)


def owes(game: Game, seat: int) -> bool:
    """Whether `seat` owes a decision now (a prompt of the engine's is its)."""
    return any(p["seat"] == seat for p in engine.pending(gamelog.load_state(game)))
