"""Playing a game: submit an action, server-side bots, deadlines bookkeeping,
per-seat views and the event feed. Used by the HTTP API and the websocket alike.

`submit_action` is one unit of work inside the caller's transaction: it locks the
game row, checks the expected version, applies through the engine, appends the
action and its events, lets the bots answer, saves the state and the deadlines.
The caller commits, then calls ``app.realtime.publish(game_id, version)``.
"""

from __future__ import annotations

import logging
import random
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.services import gamelog, lobby, orders
from app.services.errors import Conflict, Forbidden, Invalid, NotFound, StaleVersion
from app.store.models import Action, Event, Game, Seat, Snapshot
from app.store.types import utcnow

log = logging.getLogger(__name__)

#: consecutive missed deadlines after which a bot plays the seat until its player returns
MISSES_BEFORE_STANDIN = 3
STANDIN_LEVEL = "heuristic"
#: safety valve: bots answering one another inside one request
MAX_BOT_STEPS = 5000


@dataclass
class ActionResult:
    game_id: int
    version: int
    seq: int
    status: str
    events: list[dict[str, Any]] = field(default_factory=list)
    replayed: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------- submit


def submit_action(
    db: Session,
    game_id: int,
    user_id: int,
    action: dict[str, Any],
    expected_version: int,
    idempotency_key: str | None,
    now: datetime | None = None,
) -> ActionResult:
    from app import engine
    from app.engine.errors import IllegalAction

    now = now or utcnow()
    game = gamelog.lock_game(db, game_id)
    if idempotency_key:
        prior = db.scalar(
            select(Action).where(
                Action.game_id == game.id, Action.idempotency_key == idempotency_key
            )
        )
        if prior is not None:
            if prior.user_id != user_id or prior.result is None:
                raise Conflict("That idempotency key was already used for another action.")
            return ActionResult(**{**prior.result, "replayed": True})
    if game.status != "active":
        raise Conflict(f"The game is not running (it is {game.status}).", status=game.status)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if expected_version != game.version:
        raise StaleVersion(game.version)
    if seat.standin:
        raise Invalid(
            "A bot is playing your seat while you were away: take it back first.",
            code="standin",
        )
    state = gamelog.load_state(game)
    if seat.index not in {p["seat"] for p in engine.pending(state)}:
        raise Invalid("It is not your decision now.", code="not_your_turn")
    try:
        new_state, events = engine.apply(state, seat.index, action)
    except IllegalAction as exc:
        raise Invalid(exc.reason, code=exc.code) from exc
    seat.missed = 0
    row = gamelog.record(
        db, game, seat.index, action, events, "player", user_id, idempotency_key or None
    )
    after_change(db, game, new_state, acted={seat.index}, now=now)
    mine = [
        {**ev, "seq": row.first_event + i + 1, "action_seq": row.seq}
        for i, ev in enumerate(events)
        if gamelog.visible(ev.get("to"), seat.index)
    ]
    result = ActionResult(game.id, game.version, row.seq, game.status, mine)
    row.result = {k: v for k, v in result.to_json().items() if k != "replayed"}
    db.flush()
    return result


# --------------------------------------------------------------------------- after a change


def after_change(
    db: Session, game: Game, state: dict[str, Any], acted: set[int], now: datetime
) -> dict[str, Any]:
    """Bots answer their prompts, the end is detected, state and deadlines saved."""
    state = run_bots(db, game, state)
    finish_if_over(game, state, now)
    gamelog.save_state(db, game, state)
    set_deadlines(game, state, acted, now)
    db.flush()
    return state


def bot_for(seat: Seat) -> str | None:
    """The bot level playing this seat now: a bot seat, or a stand-in for an absent player."""
    return seat.bot_level or seat.standin


def run_bots(db: Session, game: Game, state: dict[str, Any]) -> dict[str, Any]:
    """Answer every prompt the server answers itself: bot seats, stand-ins, and people's
    standing orders (app/services/orders.py) — until a person must decide or the end."""
    from app import engine

    by_index = {s.index: s for s in game.seats}
    for _ in range(MAX_BOT_STEPS):
        if engine.outcome(state) is not None:
            return state
        step = next_server_move(game, state, by_index)
        if step is None:
            return state
        seat, action, source = step
        state, events = engine.apply(state, seat.index, action)
        gamelog.record(db, game, seat.index, action, events, source)
    log.error("game %s: bots still answering after %d steps", game.id, MAX_BOT_STEPS)
    return state


def next_server_move(
    game: Game, state: dict[str, Any], by_index: dict[int, Seat]
) -> tuple[Seat, dict[str, Any], str] | None:
    """The first prompt the server answers now: (seat, a legal action, log source)."""
    from app import bots, engine

    for prompt in engine.pending(state):
        seat = by_index[prompt["seat"]]
        level = bot_for(seat)
        if not level and not seat.standing_orders:
            continue  # a person decides
        legal = engine.legal_actions(state, seat.index)
        if level:
            # Deterministic per game and step, so a game with bots can be replayed.
            rng = random.Random(f"{game.seed}:{game.last_action}")
            index = seat.index
            action = bots.choose_action(
                level,
                engine.view(state, index),
                legal,
                rng,
                partial(engine.explain, state, index),
                state=state,
            )
            if action not in legal:  # a bot bug must not stall the table
                log.error("bot %s chose an illegal action %r", level, action)
                action = engine.default_action(state, prompt)
            return seat, action, "bot" if seat.bot_level else "standin"
        ordered = orders.order_action(seat.standing_orders, prompt, legal)
        if ordered is not None:
            return seat, ordered, "order"
    return None


def set_orders(
    db: Session,
    game_id: int,
    user_id: int,
    standing: dict[str, Any] | None,
    now: datetime | None = None,
) -> Game:
    """Give (or clear) my standing orders; a matching pending prompt is answered at once."""
    game = gamelog.lock_game(db, game_id)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    seat.standing_orders = orders.validate(standing)
    if game.status == "active":
        # Orders are private to the seat: the version moves only if they answer a prompt.
        after_change(db, game, gamelog.load_state(game), acted=set(), now=now or utcnow())
    db.flush()
    return game


def finish_if_over(game: Game, state: dict[str, Any], now: datetime) -> None:
    from app import engine

    outcome = engine.outcome(state)
    if outcome is not None and game.status == "active":
        game.status = "finished"
        game.outcome = outcome
        game.finished_at = now


def set_deadlines(game: Game, state: dict[str, Any], acted: set[int], now: datetime) -> None:
    """Each person's pending decision gets a deadline from the pace; a seat that did not
    act in this change keeps the deadline it already had."""
    from app import engine

    if game.status != "active":
        game.deadlines = {}
        game.next_deadline = None
        return
    people = {s.index for s in game.seats if s.user_id is not None and not s.standin}
    old = dict(game.deadlines or {})
    new: dict[str, str] = {}
    span = timedelta(seconds=lobby.PACES.get(game.pace, lobby.PACES["live"]))
    for prompt in engine.pending(state):
        index = prompt["seat"]
        if index not in people:
            continue
        key = str(index)
        if key in old and index not in acted:
            new[key] = old[key]
        else:
            new[key] = (now + span).isoformat()
    game.deadlines = new
    game.next_deadline = min((datetime.fromisoformat(v) for v in new.values()), default=None)


def reclaim(db: Session, game_id: int, user_id: int) -> Game:
    """A player back from absence takes their seat back from the stand-in bot."""
    game = gamelog.lock_game(db, game_id)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if seat.standin is None:
        raise Conflict("Your seat is already yours.")
    seat.standin = None
    seat.missed = 0
    game.version += 1
    if game.status == "active":
        set_deadlines(game, gamelog.load_state(game), {seat.index}, utcnow())
    db.flush()
    return game


# --------------------------------------------------------------------------- undo


def hidden_parts(state: dict[str, Any]) -> list[Any]:
    """What no player may see: if an action changed any of it, it revealed something
    (a draw, a counter, a card) and cannot be taken back."""
    players = state.get("players", [])
    return [
        state.get("rng"),
        [p.get("deck", {}).get("draw") for p in players],
        [p.get("holdings") for p in players],
        state.get("market", {}).get("deck"),
        state.get("counters", {}).get("pool"),
        state.get("fate", {}).get("deck"),
    ]


def state_before(db: Session, game: Game, seq: int) -> dict[str, Any]:
    """The state after `seq` actions: the nearest snapshot, then the log from there."""
    from app import engine

    snap = db.scalar(
        select(Snapshot)
        .where(Snapshot.game_id == game.id, Snapshot.action_seq <= seq)
        .order_by(Snapshot.action_seq.desc())
        .limit(1)
    )
    if snap is None:
        raise Conflict("This game has no snapshot to rebuild from.")
    state: dict[str, Any] = engine.loads(snap.state)
    rows = db.scalars(
        select(Action)
        .where(Action.game_id == game.id, Action.seq > snap.action_seq, Action.seq <= seq)
        .order_by(Action.seq)
    )
    for row in rows:
        state, _ = engine.apply(state, row.seat, row.action)
    return state


def _last_action(db: Session, game: Game) -> Action | None:
    return db.scalar(
        select(Action).where(Action.game_id == game.id).order_by(Action.seq.desc()).limit(1)
    )


def _undo_check(
    db: Session, game: Game, seat: Seat, current: dict[str, Any], last: Action | None
) -> tuple[dict[str, Any] | None, str | None]:
    """Whether `seat` may take back `last` (the game's last action) now: (the state
    before it, None) if so, else (None, the reason in words). The one place undo is
    decided, for the undo itself and for the `can_undo` flag of the seat's view."""
    from app import engine

    if (
        last is None
        or seat.user_id is None
        or last.user_id != seat.user_id
        or last.seat != seat.index
        or last.source != "player"
    ):
        return None, "Your last decision is not the last thing that happened."
    others = {p["seat"] for p in engine.pending(current)} - {seat.index}
    if others:
        return None, "Another player has been asked to decide since."
    # (visible_to is a JSON column: a public event holds JSON null, so filter in Python.)
    private = any(
        e.visible_to is not None
        for e in db.scalars(
            select(Event).where(Event.game_id == game.id, Event.action_seq == last.seq)
        )
    )
    if private:
        return None, "That decision revealed something; it cannot be taken back."
    before = state_before(db, game, last.seq - 1)
    if hidden_parts(before) != hidden_parts(current):
        return None, "That decision revealed something; it cannot be taken back."
    return before, None


def undoable_seat(db: Session, game: Game, state: dict[str, Any] | None) -> int | None:
    """The seat that may take back the last action right now, if any (at most one: the
    seat whose decision it was)."""
    if state is None or game.status != "active":
        return None
    last = _last_action(db, game)
    if last is None or last.source != "player":
        return None
    seat = next((s for s in game.seats if s.index == last.seat), None)
    if seat is None or seat.standin:
        return None
    _, refusal = _undo_check(db, game, seat, state, last)
    return seat.index if refusal is None else None


def undo(
    db: Session, game_id: int, user_id: int, expected_version: int, now: datetime | None = None
) -> ActionResult:
    """Take back my last decision — only while nothing random or hidden was revealed
    by it and nobody else has been prompted since (so nobody learnt anything)."""

    now = now or utcnow()
    game = gamelog.lock_game(db, game_id)
    if game.status != "active":
        raise Conflict(f"The game is not running (it is {game.status}).", status=game.status)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if expected_version != game.version:
        raise StaleVersion(game.version)
    last = _last_action(db, game)
    before, refusal = _undo_check(db, game, seat, gamelog.load_state(game), last)
    if before is None or last is None:
        raise Invalid(refusal or "Nothing to take back.", code="no_undo")
    db.execute(delete(Event).where(Event.game_id == game.id, Event.action_seq == last.seq))
    db.execute(delete(Snapshot).where(Snapshot.game_id == game.id, Snapshot.action_seq >= last.seq))
    db.delete(last)
    db.flush()
    game.last_action -= 1
    game.version += 1
    name = seat.user.username if seat.user else f"seat {seat.index + 1}"
    game.last_event += 1
    note = {
        "text": f"{name} takes back their last decision.",
        "rule": None,
        "to": None,
        "kind": "undo",
        "data": {"seat": seat.index, "undone": last.seq},
    }
    db.add(Event(game_id=game.id, seq=game.last_event, action_seq=None, payload=note))
    gamelog.save_state(db, game, before)
    set_deadlines(game, before, {seat.index}, now)
    db.flush()
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
    from app import engine

    if game.status != "active":
        return []
    deadlines = game.deadlines or {}
    return [{**p, "deadline": deadlines.get(str(p["seat"]))} for p in engine.pending(state)]


def seat_view(
    db: Session, game_id: int, user_id: int | None, code: str | None = None
) -> dict[str, Any]:
    """What `user_id` (None = a spectator) may see of the game, with their legal actions."""
    game = _visible_game(db, game_id, user_id, code)
    state = gamelog.load_state(game) if game.state is not None else None
    prompts = prompts_with_deadlines(game, state) if state is not None else []
    mine = lobby.seat_of(game, user_id)
    undo_seat = undoable_seat(db, game, state) if mine is not None else None
    return seat_payload(game, state, prompts, mine, undo_seat=undo_seat)


def game_fields(game: Game, seats: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What every payload about a game carries, whoever it is for (the seat view, the
    socket's messages, a replay step)."""
    return {
        "game_id": game.id,
        "status": game.status,
        "scenario": game.scenario,
        "pace": game.pace,
        "public": game.public,
        "host_id": game.host_id,
        "seats": seats if seats is not None else [lobby.seat_summary(s) for s in game.seats],
        "outcome": game.outcome,
    }


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
    from app import engine

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
    return gamelog.events_between(db, game_id, seat, since_seq)


def explain(
    db: Session, game_id: int, user_id: int | None, action: dict[str, Any]
) -> dict[str, Any]:
    from app import engine
    from app.engine.errors import IllegalAction

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
