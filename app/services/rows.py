"""The game as the hot path holds it: its row and seats read in one statement
(``GameRow``, ``SeatRow``: they duck-type the ORM's ``Game`` and ``Seat`` for play and
the lobby), and its state's JSON, byte for byte the engine's."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import orjson

from app import engine
from app.engine.errors import ContentMismatch
from app.services.errors import Conflict


def dumps(state: dict[str, Any]) -> str:
    """Canonical JSON, byte for byte ``engine.dumps`` (sorted keys, compact, UTF-8 as
    is), at a tenth of the cost; hashes and stored states do not change."""
    return orjson.dumps(state, option=orjson.OPT_SORT_KEYS).decode()


def state_hash(state: dict[str, Any]) -> str:
    """``engine.state_hash`` through orjson (the same bytes, so the same hash)."""
    return hashlib.sha256(orjson.dumps(state, option=orjson.OPT_SORT_KEYS)).hexdigest()


def parse_state(text: str) -> dict[str, Any]:
    """A stored state; refused (409) when saved under another content pack."""
    try:
        state: dict[str, Any] = engine.loads(text)
    except ContentMismatch as exc:
        raise Conflict(
            "This game was saved with another version of the game's content "
            "and cannot continue on this server.",
            code="content_mismatch",
        ) from exc
    return state


@dataclass
class SeatUser:
    username: str


@dataclass
class SeatRow:
    """A seat as the hot path reads it (duck-types ``Seat`` for play and lobby)."""

    id: int
    index: int
    user_id: int | None
    bot_level: str | None
    power: str | None
    missed: int
    standin: str | None
    standing_orders: dict[str, Any] | None
    user: SeatUser | None

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and self.bot_level is None


@dataclass
class GameRow:
    """The game row as the hot path reads it (duck-types ``Game``), without its state
    text: ``load_state`` reads that only when the cache misses."""

    id: int
    scenario: str
    status: str
    host_id: int
    public: bool
    pace: str
    options: dict[str, Any] | None
    seed: int | None
    version: int
    last_action: int
    last_event: int
    state_seq: int
    started: bool
    deadlines: dict[str, str] | None
    next_deadline: datetime | None
    clocks: dict[str, Any] | None
    outcome: dict[str, Any] | None
    finished_at: datetime | None
    undo_seat: int | None
    server_turn: bool
    result_notes: dict[str, Any] | None
    seats: list[SeatRow]
    state_text: str | None = None
    #: the action already stored under the request's idempotency key, read with the lock
    prior: Prior | None = None


_R = TypeVar("_R", "GameRow", "SeatRow")


def copy_row(game: GameRow) -> GameRow:
    """A private copy of a hot-path row (its seats too: a move changes ``missed``), as
    ``dataclasses.replace`` makes it (neither class has a ``__post_init__``) at a tenth of
    its cost: twice a move."""
    row = _shallow(game)
    row.seats = [_shallow(s) for s in game.seats]
    row.prior = None
    row.state_text = None
    return row


def _shallow(obj: _R) -> _R:
    new: _R = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


@dataclass
class Prior:
    """An action stored under an idempotency key: who sent it and its stored answer."""

    seat: int
    user_id: int | None
    result: dict[str, Any] | None
