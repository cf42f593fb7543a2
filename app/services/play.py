"""Reading a game and taking a decision back: per-seat views, the event feed,
`explain`, and undo. Moves are app/services/moves.py's (one module plays a move, from
every source); the view a seat gets is built here, by allowlist, from the engine's own
``view`` and ``legal_actions``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app import engine
from app.engine.errors import IllegalAction
from app.services import clocks, eventlog, gamelog, lobby, standins, unit
from app.services.errors import Conflict, Forbidden, Invalid, NotFound, StaleVersion
from app.services.moves import ActionResult, bots_due, game_fields, undo_refusal
from app.services.rows import GameRow, SeatRow
from app.store import log
from app.store.models import Action, Game, Seat
from app.store.types import utcnow

# --------------------------------------------------------------------------- undo

NOT_LAST = "Your last decision is not the last thing that happened."


def state_before(db: Session, game_id: int, seq: int) -> dict[str, Any]:
    """The state after `seq` actions: the nearest snapshot, then the log from there."""

    snap = log.snapshot_before(db, game_id, seq)
    if snap is None:
        raise Conflict("This game has no snapshot to rebuild from.")
    state: dict[str, Any] = gamelog.parse_state(snap.state)
    for seat, action in log.moves_from(db, game_id, snap.action_seq, seq):
        state, _ = engine.apply(state, seat, action)
    return state


def _last_action(db: Session, game_id: int) -> Action | None:
    return log.last_action(db, game_id)


def _undo_check(
    db: Session, game: GameRow, seat: SeatRow, current: dict[str, Any], last: Action | None
) -> tuple[dict[str, Any] | None, str | None]:
    """Whether `seat` may take back `last` (the game's last action) now: (the state
    before it, None) if so, else (None, the reason in words)."""
    if (
        last is None
        or seat.user_id is None
        or last.user_id != seat.user_id
        or last.seat != seat.index
        or last.source != "player"
    ):
        return None, NOT_LAST
    private = any(e.visible_to is not None for e in log.events_of_action(db, game.id, last.seq))
    before = state_before(db, game.id, last.seq - 1)
    refusal = undo_refusal(seat.index, before, current, private)
    return (None, refusal) if refusal else (before, None)


def undoable_seat(db: Session, game: Game, state: dict[str, Any] | None) -> int | None:
    """The seat that may take back the last action right now, if any: decided when that
    action was submitted (``games.undo_seat``), so a view costs no replay."""
    if state is None or game.status != "active" or game.undo_seat is None:
        return None
    seat = next((s for s in game.seats if s.index == game.undo_seat), None)
    if seat is None or seat.standin or seat.user_id is None:
        return None
    return seat.index


def undo(
    db: Session, game_id: int, user_id: int, expected_version: int, now: datetime | None = None
) -> ActionResult:
    """Take back my last decision — only while nothing random or hidden was revealed
    by it and nobody else has been prompted since (so nobody learnt anything). One
    change through the unit of work (app/services/unit.py): committed and published."""
    return unit.row_change(db, lambda db: _undo(db, game_id, user_id, expected_version, now))


def _undo(
    db: Session, game_id: int, user_id: int, expected_version: int, now: datetime | None
) -> ActionResult:
    now = now or utcnow()
    game = gamelog.lock_row(db, game_id)
    if game.status != "active":
        raise Conflict(f"The game is not running (it is {game.status}).", status=game.status)
    seat = next((s for s in game.seats if s.user_id == user_id), None)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if expected_version != game.version:
        raise StaleVersion(game.version)
    last = _last_action(db, game.id)
    before, refusal = _undo_check(db, game, seat, gamelog.load_state(game, db), last)
    if before is None or last is None:
        raise Invalid(refusal or "Nothing to take back.", code="no_undo")
    log.take_back(db, game.id, last)
    db.expunge(last)
    game.last_action -= 1
    unit.bump(game)
    name = seat.user.username if seat.user else f"seat {seat.index + 1}"
    note = standins.line(
        f"{name} takes back their last decision.",
        "undo",
        {"seat": seat.index, "undone": last.seq},
    )
    appends = gamelog.Appends()
    gamelog.note(game, note, appends)
    clocks.set_deadlines(game, before, set(), now)
    # The decision before is now the last one: its own undo, decided when it was made.
    prior = _last_action(db, game.id)
    game.undo_seat = (
        prior.seat if prior is not None and prior.can_undo and prior.source == "player" else None
    )
    game.server_turn = bots_due(game, before)
    gamelog.write_row(db, game, before, snapshot=True, appends=appends)
    return ActionResult(
        game.id, game.version, game.last_action, game.status, [{**note, "seq": game.last_event}]
    )


# --------------------------------------------------------------------------- reading


def _visible_game(db: Session, game_id: int, user_id: int | None, code: str | None = None) -> Game:
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, user_id, code):
        raise Forbidden("This game is private.")
    return game


def prompts_with_deadlines(game: Game, state: dict[str, Any]) -> list[dict[str, Any]]:

    if game.status != "active":
        return []
    deadlines = game.deadlines or {}
    return [{**p, "deadline": deadlines.get(str(p["seat"]))} for p in engine.pending(state)]


def seat_view(
    db: Session, game_id: int, user_id: int | None, code: str | None = None
) -> dict[str, Any]:
    """What `user_id` (None = a spectator) may see of the game, with their legal actions."""
    # One Core read of the game and its seats; the state from memory (the hot read).
    row: Any
    row, state = gamelog.read_current(db, game_id)
    if not lobby.can_see(db, row, user_id, code):
        raise Forbidden("This game is private.")
    prompts = prompts_with_deadlines(row, state) if state is not None else []
    mine = lobby.seat_of(row, user_id)
    undo_seat = undoable_seat(db, row, state) if mine is not None else None
    return seat_payload(row, state, prompts, mine, undo_seat=undo_seat)


def seat_payload(
    game: Game,
    state: dict[str, Any] | None,
    prompts: list[dict[str, Any]],
    mine: Seat | None,
    views: dict[int | None, Any] | None = None,
    seats: list[dict[str, Any]] | None = None,
    undo_seat: int | None = None,
) -> dict[str, Any]:
    """The seat view of one loaded game for the holder of `mine` (None = a spectator).
    `undo_seat` is `undoable_seat` of the game: it sets this seat's `can_undo`.

    The realtime hub builds every socket's payload with this from one load of the game,
    sharing `views` (one engine view per seat) and `seats` between users."""

    seat = mine.index if mine else None
    result: dict[str, Any] = {
        **game_fields(game, seats),
        "version": game.version,
        "seat": seat,
        "view": None,
        "legal_actions": [],
        "prompts": [],
        "last_seq": game.last_event,
        "can_undo": seat is not None and seat == undo_seat,
    }
    if state is None:
        return result
    views = {} if views is None else views
    if seat not in views:
        views[seat] = engine.view(state, seat)
    result["view"] = views[seat]
    result["prompts"] = prompts
    if mine is not None and game.status == "active" and not mine.standin:
        result["legal_actions"] = engine.legal_actions(state, mine.index)
    return result


def events_since(
    db: Session, game_id: int, seat: int | None, since_seq: int
) -> list[dict[str, Any]]:
    """The events after `since_seq` that `seat` (None = spectator) may see, in order."""
    return eventlog.events_between(db, game_id, seat, since_seq)


def explain(
    db: Session, game_id: int, user_id: int | None, action: dict[str, Any]
) -> dict[str, Any]:

    game = _visible_game(db, game_id, user_id)
    mine = lobby.seat_of(game, user_id)
    if mine is None:
        raise Forbidden("You have no seat in this game.")
    if game.state is None:
        raise NotFound("This game has not started yet.")
    state = gamelog.load_state(game)
    try:
        result: dict[str, Any] = engine.explain(state, mine.index, action)
    except IllegalAction as exc:
        raise Invalid(exc.reason, code=exc.code) from exc
    return result
