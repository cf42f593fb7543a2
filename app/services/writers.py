"""The one writer interface of a move (app/services/moves.py), and its two kinds.

A move is decided in memory and then written; *how* it is written is the writer's:

- ``HeldWriter``: the game as this process last wrote it to PostgreSQL (its row, its
  state and the database's digest of the row, ``heldwrite.held``) is the starting point,
  and the move is written as ONE autocommitted statement that sends its own NOTIFY
  (``heldwrite.write_held``; docs/performance.md, "The write path"). It covers a *plain*
  move only (appends and the game row's counters) and hands on anything else: nothing
  held at the expected version, a refusal, a snapshot or the end of the game due, a race
  lost to another writer.
- ``TransactionWriter``: the ordinary path, inside the caller's transaction: a locking
  read of the row (``gamelog.lock_row``), the state from memory or the log, the game row
  updated with the appended rows (``gamelog.write_row``), the end of the game recorded.
  It answers everything, refusals included, so its answers are the game's answers.

``writers(db)`` lists the ones to try, in order; the move module tries each until one
writes. A writer never commits (the held statement is its own transaction by nature:
it begins and ends in one round trip, or does nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.orm import Session

from app.services import gamelog, heldwrite
from app.services.rows import GameRow
from app.store import games, seats


class Decision(Protocol):
    """What a writer needs of a decided move (``moves.Decided``)."""

    final: dict[str, Any]
    appends: gamelog.Appends
    snapshot: bool
    #: seats (ids) taken back from a stand-in with the move: their rows are written too
    returned: list[int]

    @property
    def plain(self) -> bool: ...


@dataclass
class Written:
    """A move written: PostgreSQL's digest of the game row as written (the next move's
    one statement starts from it), None where there is none (SQLite)."""

    digest: str | None


class Writer(Protocol):
    #: whether its refusals are the game's answer (else the next writer decides again)
    answers: bool
    #: whether the position it decides from must be frozen at once (a held one is shared)
    frozen: bool
    #: whether its write sends the NOTIFY itself (``moves.ActionResult.notified``)
    notifies: bool

    def open(self, db: Session, game_id: int, expected: int, key: str | None) -> GameRow | None:
        """The game row to decide from, locked or held; None: this writer cannot."""

    def state(self, db: Session, game: GameRow) -> dict[str, Any]:
        """The position at the row's version."""

    def write(self, db: Session, game: GameRow, decided: Decision) -> Written | None:
        """Write the decided move; None when this writer could not write it."""

    def keep(self, db: Session, game: GameRow, state: dict[str, Any], frame: gamelog.Frame) -> None:
        """The new position and the change's frame, for this process's memory: at once
        after a statement that committed itself, else once the transaction commits."""


@dataclass
class HeldWriter:
    """One statement from what this process holds (PostgreSQL, outside a transaction)."""

    answers: bool = False
    frozen: bool = True
    notifies: bool = True
    _state: dict[str, Any] | None = None
    _digest: str = ""
    _expected: int = 0

    def open(self, db: Session, game_id: int, expected: int, key: str | None) -> GameRow | None:
        held = heldwrite.held(gamelog.db_key(db), game_id, expected)
        if held is None:
            return None
        game, self._state, self._digest = held
        self._expected = expected
        return game

    def state(self, db: Session, game: GameRow) -> dict[str, Any]:
        assert self._state is not None
        return self._state

    def write(self, db: Session, game: GameRow, decided: Decision) -> Written | None:
        if not decided.plain:
            return None  # a snapshot or the end: the transaction writes it
        digest = heldwrite.write_held(db, game, self._expected, self._digest, decided.appends)
        return None if digest is None else Written(digest)

    def keep(self, db: Session, game: GameRow, state: dict[str, Any], frame: gamelog.Frame) -> None:
        heldwrite.keep_held(gamelog.db_key(db), game, state, frame)


@dataclass
class TransactionWriter:
    """The locking read and the write inside the caller's transaction."""

    answers: bool = True
    frozen: bool = False
    notifies: bool = False

    def open(self, db: Session, game_id: int, expected: int, key: str | None) -> GameRow | None:
        return gamelog.lock_row(db, game_id, key, expected)

    def state(self, db: Session, game: GameRow) -> dict[str, Any]:
        return gamelog.load_state(game, db)

    def write(self, db: Session, game: GameRow, decided: Decision) -> Written | None:
        for seat_id in decided.returned:  # before the row: its digest covers the seats
            seats.clear_standin(db, seat_id)
        digest = gamelog.write_row(
            db, game, decided.final, snapshot=decided.snapshot, appends=decided.appends
        )
        return Written(digest)

    def keep(self, db: Session, game: GameRow, state: dict[str, Any], frame: gamelog.Frame) -> None:
        gamelog.remember_frame(db, frame)  # the state: ``write_row`` remembered it


def writers(db: Session) -> list[Writer]:
    """The writers to try, in order: the held statement where it can be (PostgreSQL,
    no database transaction begun on `db` and nothing in it to flush: ``games.untouched``),
    then the transaction."""
    if db.get_bind().dialect.name == "postgresql" and games.untouched(db):
        return [HeldWriter(), TransactionWriter()]
    return [TransactionWriter()]
