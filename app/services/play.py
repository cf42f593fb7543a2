"""Playing a game: submit an action, server-side bots, deadlines bookkeeping,
per-seat views and the event feed. Used by the HTTP API and the websocket alike.

`submit_action` is one unit of work inside the caller's transaction: it locks the
game row, checks the expected version, applies through the engine, appends the
action and its events (standing orders answer at once), and updates the game row
(deadlines, whether its last action may be taken back, whether a bot is due). The
caller commits, then calls ``app.realtime.publish(game_id, version)``. Bots and
stand-ins do not think inside it: the bot worker (``app/realtime/bots.py``) answers
their prompts after the commit, through ``submit_server_move``, like any player.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, cast

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.bots.temperament import temperament_for
from app.services import clocks, eventlog, gamelog, idempotency, lobby, orders, standins
from app.services.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    ServiceError,
    StaleVersion,
)
from app.store.models import Action, Event, Game, Seat, Snapshot
from app.store.types import utcnow

log = logging.getLogger(__name__)

#: the bot that plays an absent person's seat (app/services/standins.py)
STANDIN_LEVEL = standins.LEVEL
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
    #: written in one statement, which sent the NOTIFY itself (``realtime.publish``)
    notified: bool = False

    def to_json(self) -> dict[str, Any]:
        # Shallow (``asdict`` deep-copies every event: a tenth of a submit's time).
        return {
            "game_id": self.game_id,
            "version": self.version,
            "seq": self.seq,
            "status": self.status,
            "events": self.events,
            "replayed": self.replayed,
        }


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
    """A person's action. The hot path: one locking read of the game and its seats,
    the state from memory, the action and its events appended, the game row updated
    (plain Core statements; no state rewrite, no bot thinking: the bot worker answers
    bot prompts after the commit, see app/realtime/bots.py).

    On PostgreSQL, when this process wrote the game's last change (and so holds its row
    and state at `expected_version`), the move is first tried without any read, as one
    statement (`_held_move`); the ordinary path below decides whatever that one does not
    write, every refusal included."""
    now = now or utcnow()
    key = idempotency_key or None
    mover = _person(user_id)
    fast = _held_move(db, game_id, expected_version, mover, action, now, user_id, key)
    if fast is not None:
        return fast
    game = gamelog.lock_row(db, game_id, idempotency_key, expected_version)
    if idempotency_key:
        prior = game.prior
        if prior is not None:  # a retry, or a reused key (app/services/idempotency.py)
            fp = idempotency.fingerprint(prior.seat, expected_version, action)
            saved = idempotency.replay_of(prior.user_id, prior.result, user_id, fp)
            return ActionResult(**{**saved, "replayed": True})
    if game.status != "active":
        raise Conflict(f"The game is not running (it is {game.status}).", status=game.status)
    seat = next((s for s in game.seats if s.user_id == user_id), None)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    if expected_version != game.version:
        raise StaleVersion(game.version)
    if seat.standin:
        # She is back: acting takes her seat back from the stand-in (issue 26).
        standins.take_back(db, game, seat, now)
    return _move(db, game, seat, action, "player", now, user_id=user_id, key=key)


def submit_server_move(
    db: Session,
    game_id: int,
    seat_index: int,
    action: dict[str, Any],
    expected_version: int,
    now: datetime | None = None,
) -> ActionResult:
    """A bot's or a stand-in's action, sent by the bot worker like any player's: the
    same lock, the same version check (a stale one is refused), the same path."""
    now = now or utcnow()

    def mover(game: gamelog.GameRow) -> gamelog.SeatRow | None:
        seat = next((s for s in game.seats if s.index == seat_index), None)
        return seat if seat is not None and bot_for(seat) else None  # type: ignore[arg-type]

    fast = _held_move(db, game_id, expected_version, mover, action, now)
    if fast is not None:
        return fast
    game = gamelog.lock_row(db, game_id)
    if game.status != "active":
        raise Conflict(f"The game is not running (it is {game.status}).", status=game.status)
    if expected_version != game.version:
        raise StaleVersion(game.version)
    seat = next((s for s in game.seats if s.index == seat_index), None)
    if seat is None or not bot_for(seat):  # type: ignore[arg-type]
        raise Conflict("No bot plays this seat now.", code="not_a_bot")
    return _move(db, game, seat, action, _source(seat), now)


def _source(seat: gamelog.SeatRow) -> str:
    """Who made a move, as the log records it: a person, or the bot that plays the seat."""
    if seat.user_id is not None and not seat.standin:
        return "player"
    return "bot" if seat.bot_level else "standin"


def _held_move(
    db: Session,
    game_id: int,
    expected_version: int,
    mover: Callable[[gamelog.GameRow], gamelog.SeatRow | None],
    action: dict[str, Any],
    now: datetime,
    user_id: int | None = None,
    key: str | None = None,
) -> ActionResult | None:
    """The move written in ONE statement from the row and state this process holds
    (``gamelog.held`` / ``write_held``; docs/performance.md, "The write path"); None when it cannot
    be: nothing held at `expected_version`, no seat `mover` may move, a refusal, a write
    that is not plain (a snapshot, the end, a seat's reset), or a database whose row is no
    longer the one held. The ordinary path then reads, decides and answers, so the answers
    of the two are the ordinary path's by construction."""
    from app import engine

    if db.get_bind().dialect.name != "postgresql" or db.in_transaction():
        return None
    db_key = gamelog.db_key(db)
    held = gamelog.held(db_key, game_id, expected_version)
    if held is None:
        return None
    game, state, digest = held
    seat = mover(game)
    if game.status != "active" or seat is None:
        return None
    try:
        decided = _decide(game, state, seat, action, _source(seat), now, user_id, key, frozen=True)
    except ServiceError:
        return None  # the held state may be stale: the ordinary path says what is wrong
    written = None
    try:
        if decided.plain:
            written = gamelog.write_held(db, game, expected_version, digest, decided.appends)
    finally:
        if written is None:
            engine.thaw(decided.final)  # let go of: the ordinary path decides again
    if written is None:
        return None
    gamelog.keep_held(db_key, game, decided.final, _frame(game, decided, written))
    decided.result.notified = True
    return decided.result


def _person(user_id: int) -> Callable[[gamelog.GameRow], gamelog.SeatRow | None]:
    """The seat a person moves for, if they may move for it now (not while a stand-in
    plays it): `submit_action`'s rule, for the held path."""

    def mover(game: gamelog.GameRow) -> gamelog.SeatRow | None:
        seat = next((s for s in game.seats if s.user_id == user_id), None)
        return None if seat is None or seat.standin else seat

    return mover


@dataclass
class _Decided:
    """What one move decided, in memory, before anything is written: the position after
    it (and after the standing orders it set off), the rows to append, the answer."""

    final: dict[str, Any]
    result: ActionResult
    appends: gamelog.Appends
    rows: list[tuple[int, int | None, list[int] | None, dict[str, Any]]]
    first_event: int
    was: str  # the game's status before the move
    snapshot: bool  # a snapshot of the state is due with this write

    @property
    def plain(self) -> bool:
        """Whether the write is only appends and the game row's counters: what the
        one-statement write (``gamelog.write_held``) covers. A snapshot and the end of
        the game take the ordinary transaction."""
        return not (self.snapshot or self.result.status != self.was)


def _move(
    db: Session,
    game: gamelog.GameRow,
    seat: gamelog.SeatRow,
    action: dict[str, Any],
    source: str,
    now: datetime,
    user_id: int | None = None,
    key: str | None = None,
) -> ActionResult:
    state = gamelog.load_state(game, db)
    decided = _decide(game, state, seat, action, source, now, user_id, key)
    digest = gamelog.write_row(
        db, game, decided.final, snapshot=decided.snapshot, appends=decided.appends
    )
    if decided.was == "active" and game.status == "finished":
        game.result_notes = _on_finish(db, game.id)
        digest = None  # the end wrote more; a finished game takes no more moves anyway
    gamelog.remember_frame(db, _frame(game, decided, digest))
    return decided.result


def _decide(
    game: gamelog.GameRow,
    state: dict[str, Any],
    seat: gamelog.SeatRow,
    action: dict[str, Any],
    source: str,
    now: datetime,
    user_id: int | None = None,
    key: str | None = None,
    frozen: bool = False,
) -> _Decided:
    """Apply `action` of `seat` and everything it sets off, on `game` (its counters,
    deadlines and flags move in memory) and into the rows to append: no database.

    `frozen`: the position reached is frozen at once (``engine.freeze``), so that the
    legal actions the standing orders ask of it here are the push's and the next move's
    too (a frozen position remembers them); the caller thaws it if it lets go of it."""
    from app import engine
    from app.engine.errors import IllegalAction

    request_fp = idempotency.fingerprint(seat.index, game.version, action)
    try:  # the engine's gate (engine.check) refuses whatever it does not list
        new_state, events = engine.apply(state, seat.index, action)
    except IllegalAction as exc:
        raise Invalid(exc.reason, code=exc.code) from exc
    # Standing orders answer at once, in this transaction (cheap: no search).
    moves: list[tuple[int, dict[str, Any], list[dict[str, Any]], str]] = []
    final = new_state
    by_index = {s.index: s for s in game.seats}
    if frozen:
        engine.freeze(final)
    try:
        for _ in range(MAX_BOT_STEPS):
            if engine.outcome(final) is not None:
                break
            step = next_server_move(game, final, by_index, bots=False)  # type: ignore[arg-type]
            if step is None:
                break
            other, ordered, how = step
            reached, more = engine.apply(final, other.index, ordered)
            if frozen:
                engine.thaw(final)
                engine.freeze(reached)
            final = reached
            moves.append((other.index, ordered, marked(more, how, other.index), how))
    except BaseException:
        if frozen:
            engine.thaw(final)
        raise
    can_undo = (
        source == "player"
        and not moves
        and undo_refusal(seat.index, state, new_state, any(e.get("to") is not None for e in events))
        is None
    )
    version = game.version + 1 + len(moves)
    status = "finished" if engine.outcome(final) is not None else game.status
    first = game.last_event
    mine = [
        {**ev, "seq": first + i + 1, "action_seq": game.last_action + 1}
        for i, ev in enumerate(events)
        if eventlog.visible(ev.get("to"), seat.index)
    ]
    result = ActionResult(game.id, version, game.last_action + 1, status, mine)
    stored = {k: v for k, v in result.to_json().items() if k != "replayed"}
    appends = gamelog.Appends()  # written with the game row (gamelog.write_row)
    rows = gamelog.record(
        None,
        game,
        seat.index,
        action,
        events,
        source,
        user_id,
        key,
        can_undo=can_undo,
        # 12: the request's fingerprint binds its idempotency key (app/services/idempotency.py)
        result=idempotency.stamped(stored, request_fp) if source == "player" else None,
        appends=appends,
    ).rows
    for index, ordered, more, how in moves:
        rows += gamelog.record(None, game, index, ordered, more, how, appends=appends).rows
    was = game.status
    finish_if_over(game, final, now)  # type: ignore[arg-type]
    clocks.set_deadlines(game, final, {seat.index} if source == "player" else set(), now)
    game.undo_seat = seat.index if can_undo else None
    game.server_turn = bots_due(game, final)  # type: ignore[arg-type]
    snapshot = gamelog.snapshot_due(game)
    return _Decided(final, result, appends, rows, first, was, snapshot)


def _frame(game: gamelog.GameRow, decided: _Decided, digest: str | None) -> gamelog.Frame:
    """The change as the hub pushes it from memory; with the row as written and the
    database's `digest` of it, the next move can be written in one statement."""
    return gamelog.Frame(
        game_id=game.id,
        version=game.version,
        state=decided.final,
        fields=game_fields(game),  # type: ignore[arg-type]
        deadlines=dict(game.deadlines or {}),
        undo_seat=game.undo_seat,
        first_event=decided.first_event,
        last_event=game.last_event,
        events=decided.rows,
        seats={s.user_id: s.index for s in game.seats if s.user_id is not None},
        server_turn=game.server_turn,
        row=gamelog.copy_row(game) if digest is not None else None,
        digest=digest,
    )


# --------------------------------------------------------------------------- after a change


def _on_finish(db: Session, game_id: int) -> dict[str, Any] | None:
    """The once-per-game end of the hot path: the ORM game (fresh from the row just
    written) gets its stand-in counts and the ratings move (app/services/standins.py)."""
    game = db.get(Game, game_id, populate_existing=True)
    assert game is not None
    standins.on_finish(db, game)
    db.flush()
    return game.result_notes


def after_change(
    db: Session, game: Game, state: dict[str, Any], acted: set[int], now: datetime
) -> dict[str, Any]:
    """The ORM path (start, deadlines, standing orders set): standing orders answer,
    the end is detected, state (as a snapshot when due) and deadlines saved. Bots and
    stand-ins are the bot worker's, after the commit (``server_turn`` tells it)."""
    state = run_orders(db, game, state)
    was = game.status
    finish_if_over(game, state, now)
    if was == "active" and game.status == "finished":
        standins.on_finish(db, game)  # stand-in counts into the result; ratings move
    gamelog.save_state(db, game, state)
    clocks.set_deadlines(game, state, acted, now)
    game.undo_seat = None
    game.server_turn = bots_due(game, state)
    db.flush()
    return state


def bot_for(seat: Seat) -> str | None:
    """The bot level playing this seat now: a bot seat, or a stand-in for an absent player."""
    return seat.bot_level or seat.standin


def bots_due(game: Game, state: dict[str, Any]) -> bool:
    """Whether a bot or a stand-in has a pending prompt (the bot worker's to-do)."""
    from app import engine

    if game.status != "active" or engine.outcome(state) is not None:
        return False
    by_index = {s.index: s for s in game.seats}
    return any(bot_for(by_index[p["seat"]]) for p in engine.pending(state))


def run_orders(db: Session, game: Game, state: dict[str, Any]) -> dict[str, Any]:
    """Answer the prompts people's standing orders (app/services/orders.py) answer,
    until a person or a bot must decide, or the end."""
    from app import engine

    by_index = {s.index: s for s in game.seats}
    for _ in range(MAX_BOT_STEPS):
        if engine.outcome(state) is not None:
            return state
        step = next_server_move(game, state, by_index, bots=False)
        if step is None:
            return state
        seat, action, source = step
        state, events = engine.apply(state, seat.index, action)
        gamelog.record(db, game, seat.index, action, marked(events, source, seat.index), source)
    log.error("game %s: orders still answering after %d steps", game.id, MAX_BOT_STEPS)
    return state


def bot_action(game: Game, state: dict[str, Any], seat: Seat) -> dict[str, Any]:
    """The bot's answer to `seat`'s prompt (may think: call it off the event loop).
    Deterministic per game and step, so a game with bots can be replayed."""
    from app import bots, engine

    level = bot_for(seat)
    assert level is not None
    legal = engine.legal_actions(state, seat.index)
    if not seat.bot_level:  # a stand-in keeps an absent person's seat, it does not trade it
        legal = standins.caretaker(legal)
    rng = random.Random(f"{game.seed}:{game.last_action}")
    action = bots.choose_action(
        level,
        cast(dict[str, Any], engine.seat_view(state, seat.index)),  # a read-only Mapping
        legal,
        rng,
        partial(engine.explain, state, seat.index),
        state=state,  # the strong level searches from it (app/bots/strong.py)
        temperament=temperament_for(game.seed, seat.index),  # shown once the game is over
    )
    try:
        engine.check(state, seat.index, action)
    except engine.IllegalAction:  # a bot bug must not stall
        log.error("bot %s chose an illegal action %r", level, action)
        prompt = next(p for p in engine.pending(state) if p["seat"] == seat.index)
        action = engine.default_action(state, prompt)
    return action


def bot_turn(game: Game, state: dict[str, Any]) -> Seat | None:
    """The first seat a bot or stand-in must answer for now, if any."""
    from app import engine

    if game.status != "active" or engine.outcome(state) is not None:
        return None
    by_index = {s.index: s for s in game.seats}
    for prompt in engine.pending(state):
        seat = by_index[prompt["seat"]]
        if bot_for(seat):
            return seat
    return None


def next_server_move(
    game: Game, state: dict[str, Any], by_index: dict[int, Seat], bots: bool = True
) -> tuple[Seat, dict[str, Any], str] | None:
    """The first prompt the server answers now: (seat, a legal action, log source).
    With `bots` False only people's prompts: a standing order (source ``order``) or a
    prompt with a single legal action, a choice the person does not have (``forced``,
    `forced_action`). Bots answer from the bot worker."""
    from app import engine

    for prompt in engine.pending(state):
        seat = by_index[prompt["seat"]]
        if seat.bot_level:
            if bots:
                return seat, bot_action(game, state, seat), "bot"
            continue
        # A person's seat, present or absent: her standing orders answer first; for an
        # absent person (a stand-in plays) the bot answers whatever they do not cover.
        legal = engine.legal_actions(state, seat.index)
        ordered = orders.order_action(seat.standing_orders, prompt, legal)
        if ordered is not None:
            return seat, ordered, "order"
        if seat.standin:
            if bots:
                return seat, bot_action(game, state, seat), "standin"
            continue
        forced = forced_action(legal)
        if forced is not None:
            return seat, forced, "forced"
    return None


#: the line a person's log gets when a move was played for them (`marked`)
FORCED_NOTE = "No choice: that was the only move open to you, so it was played at once."


def marked(events: list[dict[str, Any]], source: str, seat: int) -> list[dict[str, Any]]:
    """A move played for a person because it was no choice gets one more event, seen by
    that seat alone and tagged ``forced``, so their log says why nobody clicked. The
    move's own events are left as every seat sees them: whether a drawn card could be
    used at all is the drawer's secret (5.4), so the others are not told it was forced."""
    if source != "forced":
        return events
    note: dict[str, Any] = {"text": FORCED_NOTE, "rule": None, "to": [seat], "kind": "forced"}
    return [*events, {**note, "data": {}, "forced": True}]


def forced_action(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one action a person may take, when there is only one: the server plays it
    for them at once, as the best sites skip a move that is no choice (a dead draw
    with no petition open is dismissed, 5.4; a diplomatic phase with nothing to do
    is passed). An offer's listing is a template the person fills in, never forced."""
    if len(legal) == 1 and legal[0].get("type") != "offer":
        return legal[0]
    return None


def run_bots(db: Session, game: Game, state: dict[str, Any]) -> dict[str, Any]:
    """Every server answer (bots, stand-ins, orders) inside this transaction until a
    person must decide: for command-line tools and tests without a bot worker."""
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
        gamelog.record(db, game, seat.index, action, marked(events, source, seat.index), source)
    log.error("game %s: bots still answering after %d steps", game.id, MAX_BOT_STEPS)
    return state


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
    state: dict[str, Any] = gamelog.parse_state(snap.state)
    rows = db.execute(
        select(Action.seat, Action.action)
        .where(Action.game_id == game.id, Action.seq > snap.action_seq, Action.seq <= seq)
        .order_by(Action.seq)
    )
    for seat, action in rows:
        state, _ = engine.apply(state, seat, action)
    return state


NOT_LAST = "Your last decision is not the last thing that happened."
OTHERS_ASKED = "Another player has been asked to decide since."
REVEALED = "That decision revealed something; it cannot be taken back."


def undo_refusal(
    seat: int, before: dict[str, Any], after: dict[str, Any], private: bool
) -> str | None:
    """The one undo rule, for `seat`'s action that took `before` to `after` (`private`: it
    made an event only some seats see): None if its player may take it back while it is
    the last action, else the reason. Decided once when the action is submitted (stored
    as ``actions.can_undo`` / ``games.undo_seat``) and again by ``undo`` itself."""
    from app import engine

    if {p["seat"] for p in engine.pending(after)} - {seat}:
        return OTHERS_ASKED
    if private or hidden_parts(before) != hidden_parts(after):
        return REVEALED
    return None


def _last_action(db: Session, game: Game) -> Action | None:
    return db.scalar(
        select(Action).where(Action.game_id == game.id).order_by(Action.seq.desc()).limit(1)
    )


def _undo_check(
    db: Session, game: Game, seat: Seat, current: dict[str, Any], last: Action | None
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
    private = any(
        e.visible_to is not None
        for e in db.scalars(
            select(Event).where(Event.game_id == game.id, Event.action_seq == last.seq)
        )
    )
    before = state_before(db, game, last.seq - 1)
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
    db.execute(delete(Action).where(Action.id == last.id))
    db.expunge(last)
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
    gamelog.save_state(db, game, before, snapshot=True)
    clocks.set_deadlines(game, before, set(), now)
    # The decision before is now the last one: its own undo, decided when it was made.
    prior = _last_action(db, game)
    game.undo_seat = (
        prior.seat if prior is not None and prior.can_undo and prior.source == "player" else None
    )
    game.server_turn = bots_due(game, before)
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
    # One Core read of the game and its seats; the state from memory (the hot read).
    row: Any
    row, state = gamelog.read_current(db, game_id)
    if not lobby.can_see(db, row, user_id, code):
        raise Forbidden("This game is private.")
    prompts = prompts_with_deadlines(row, state) if state is not None else []
    mine = lobby.seat_of(row, user_id)
    undo_seat = undoable_seat(db, row, state) if mine is not None else None
    return seat_payload(row, state, prompts, mine, undo_seat=undo_seat)


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
        "seats": seats
        if seats is not None
        else [lobby.seat_summary(s, game.scenario) for s in game.seats],
        "outcome": game.outcome,
        # the time banks, the pause, the table's votes, who is away (app/services/clocks.py)
        "clock": clocks.view(game),
        # stand-in counts and rating changes once finished (app/services/standins.py)
        "result_notes": game.result_notes,
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
    return eventlog.events_between(db, game_id, seat, since_seq)


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
