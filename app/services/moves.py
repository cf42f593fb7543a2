"""One module plays a move, whoever makes it (issue 28).

Every source comes here: a person over HTTP or a socket (``submit_action``), the bot
worker for a bot or a stand-in (``submit_server_move``), and every change of the game
made without a move (a start, a deadline, "I'm away", a table vote, standing orders
given: ``settle``), whose prompts the server then answers. Each is the same three steps:

1. **decide** (``_decide``, ``_answer``): the engine's check and apply (``engine.apply``
   goes through ``engine.check``, the one legality test), then whatever the server
   answers at once: standing orders (app/services/orders.py) and forced moves (a prompt
   with one legal action); the end of the game; the clocks and the bot worker's cue.
   Nothing is written while deciding.
2. **write** through the one writer interface (app/services/writers.py): the held
   one-statement write where this process holds the game, else the caller's
   transaction. A writer that cannot write hands on to the next, which decides again
   from what it read.
3. **commit and publish**: the unit of work that called in here (app/services/unit.py:
   ``unit.move``, ``unit.server_move``, ``Work.changed`` for ``settle``) commits and
   publishes through the realtime layer injected at start-up; services never import it.

Bots and stand-ins never think in here: the bot worker (app/realtime/bots.py) answers
their prompts after the commit through ``submit_server_move``, like any player.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Protocol, cast

from sqlalchemy.orm import Session

from app import bots, engine
from app.bots.temperament import temperament_for
from app.engine.errors import IllegalAction
from app.services import clocks, eventlog, gamelog, idempotency, lobby, orders, standins
from app.services.errors import Conflict, Forbidden, Invalid, ServiceError, StaleVersion
from app.services.rows import GameRow, SeatRow, copy_row
from app.services.writers import Writer, writers
from app.store.models import Game, Seat
from app.store.types import utcnow

log = logging.getLogger(__name__)

#: the bot that plays an absent person's seat (app/services/standins.py)
STANDIN_LEVEL = standins.LEVEL
#: safety valve: server answers chained inside one change
MAX_BOT_STEPS = 5000

#: one appended event: (seq, action_seq, visible_to, payload)
EventRow = tuple[int, int | None, list[int] | None, dict[str, Any]]


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


# --------------------------------------------------------------------------- sources


def submit_action(
    db: Session,
    game_id: int,
    user_id: int,
    action: dict[str, Any],
    expected_version: int,
    idempotency_key: str | None,
    now: datetime | None = None,
) -> ActionResult:
    """A person's action, from the HTTP API or a socket. A move of hers while a stand-in
    plays her seat takes the seat back (issue 26), as part of the move: nothing is
    written unless the move is."""
    at = now or utcnow()  # one clock reading for the move and a seat taken back with it

    def seat_of(game: GameRow, writer: Writer) -> tuple[SeatRow, dict[str, Any] | None]:
        seat = next((s for s in game.seats if s.user_id == user_id), None)
        if seat is None:
            raise Forbidden("You have no seat in this game.")
        if expected_version != game.version:
            raise StaleVersion(game.version)
        if not seat.standin:
            return seat, None
        if not writer.answers:  # taking the seat back writes the seat's row
            raise Conflict("A stand-in plays this seat.", code="standin")
        back = standins.return_line(db, game, seat)  # said before the move's own lines
        seat.standin = None  # on the row as decided: written with the move
        return seat, back

    return _play(db, game_id, expected_version, seat_of, action, at, user_id, idempotency_key)


def submit_server_move(
    db: Session,
    game_id: int,
    seat_index: int,
    action: dict[str, Any],
    expected_version: int,
    now: datetime | None = None,
) -> ActionResult:
    """A bot's or a stand-in's action, sent by the bot worker like any player's: the
    same writers, the same version check (a stale one is refused first, so the worker
    simply looks again), the same path."""

    def seat_of(game: GameRow, writer: Writer) -> tuple[SeatRow, dict[str, Any] | None]:
        if expected_version != game.version:
            raise StaleVersion(game.version)
        seat = next((s for s in game.seats if s.index == seat_index), None)
        if seat is None or not bot_for(seat):
            raise Conflict("No bot plays this seat now.", code="not_a_bot")
        return seat, None

    return _play(db, game_id, expected_version, seat_of, action, now)


def _play(
    db: Session,
    game_id: int,
    expected: int,
    seat_of: Callable[[GameRow, Writer], tuple[SeatRow, dict[str, Any] | None]],
    action: dict[str, Any],
    now: datetime | None,
    user_id: int | None = None,
    key: str | None = None,
) -> ActionResult:
    """Decide and write one move with the first writer that can (app/services/writers.py)."""
    now = now or utcnow()
    key = key or None
    for writer in writers(db):
        game = writer.open(db, game_id, expected, key)
        if game is None:
            continue
        try:
            replay = _replay(game, user_id, expected, action)
            if replay is not None:
                return replay
            if game.status != "active":
                raise Conflict(
                    f"The game is not running (it is {game.status}).", status=game.status
                )
            seat, back = seat_of(game, writer)
            state = writer.state(db, game)
            source = _source(seat)
            decided = _decide(
                game, state, seat, action, source, now, user_id, key, writer.frozen, back
            )
        except ServiceError:
            if writer.answers:
                raise
            continue  # what it holds may be stale: the next writer says what is wrong
        written = None
        try:
            written = writer.write(db, game, decided)
        finally:
            if written is None and writer.frozen:
                engine.thaw(decided.final)  # let go of: the next writer decides again
        if written is None:
            continue
        digest = written.digest
        if decided.ends:
            game.result_notes = _on_finish(db, game.id)
            digest = None  # the end wrote more; a finished game takes no more moves anyway
        writer.keep(db, game, decided.final, _frame(game, decided, digest))
        decided.result.notified = writer.notifies
        return decided.result
    raise AssertionError("the transaction writer always writes or refuses")


def _replay(
    game: GameRow, user_id: int | None, expected: int, action: dict[str, Any]
) -> ActionResult | None:
    """The stored answer when this request was made before under its idempotency key
    (a retry, or a key reused for another request: app/services/idempotency.py)."""
    prior = game.prior
    if prior is None:
        return None
    assert user_id is not None
    fp = idempotency.fingerprint(prior.seat, expected, action)
    saved = idempotency.replay_of(prior.user_id, prior.result, user_id, fp)
    return ActionResult(**{**saved, "replayed": True})


def _source(seat: SeatRow) -> str:
    """Who made a move, as the log records it: a person, or the bot that plays the seat."""
    if seat.user_id is not None and not seat.standin:
        return "player"
    return "bot" if seat.bot_level else "standin"


# --------------------------------------------------------------------------- decide


@dataclass
class Decided:
    """What one move decided, in memory, before anything is written: the position after
    it (and after the server's answers it set off), the rows to append, the answer."""

    final: dict[str, Any]
    result: ActionResult
    appends: gamelog.Appends
    rows: list[EventRow]
    first_event: int
    was: str  # the game's status before the move
    snapshot: bool  # a snapshot of the state is due with this write
    #: seats (their ids) whose person took them back from a stand-in with this move
    returned: list[int] = field(default_factory=list)

    @property
    def ends(self) -> bool:
        return self.was == "active" and self.result.status == "finished"

    @property
    def plain(self) -> bool:
        """Whether the write is only appends and the game row's counters: what the
        one-statement write (``heldwrite.write_held``) covers. A snapshot, the end of
        the game and a seat taken back take the ordinary transaction."""
        return not (self.snapshot or self.result.status != self.was or self.returned)


@dataclass
class Answered:
    """A move the server made for a seat: (seat, action, its events, the log's source)."""

    seat: int
    action: dict[str, Any]
    events: list[dict[str, Any]]
    source: str


def _answer(
    game: GameRow, state: dict[str, Any], *, bots: bool, frozen: bool = False
) -> tuple[dict[str, Any], list[Answered]]:
    """Every prompt the server answers from `state` on (``next_server_move``: standing
    orders and forced moves; bots and stand-ins too when `bots`), until a person must
    decide or the game ends: the position reached and the moves made, in order.

    `frozen`: each position reached is frozen (``engine.freeze``) as the one before is
    let go of, so the legal actions asked of it here are the push's and the next move's."""
    by_index = {s.index: s for s in game.seats}
    made: list[Answered] = []
    try:
        for _ in range(MAX_BOT_STEPS):
            if engine.outcome(state) is not None:
                break
            step = next_server_move(game, state, by_index, bots=bots)
            if step is None:
                break
            seat, action, source = step
            reached, events = engine.apply(state, seat.index, action)
            if frozen:
                engine.thaw(state)
                engine.freeze(reached)
            state = reached
            made.append(Answered(seat.index, action, marked(events, source, seat.index), source))
        else:
            log.error("game %s: the server still answering after %d steps", game.id, MAX_BOT_STEPS)
    except BaseException:
        if frozen:
            engine.thaw(state)
        raise
    return state, made


def _decide(
    game: GameRow,
    state: dict[str, Any],
    seat: SeatRow,
    action: dict[str, Any],
    source: str,
    now: datetime,
    user_id: int | None = None,
    key: str | None = None,
    frozen: bool = False,
    back: dict[str, Any] | None = None,
) -> Decided:
    """Apply `action` of `seat` and everything it sets off, on `game` (its counters,
    deadlines and flags move in memory) and into the rows to append: no database.

    `frozen`: the position reached is frozen at once (the held writer's state is shared);
    the caller thaws it if it lets go of it. `back`: the seat's person takes it back from
    its stand-in with this move (``submit_action``): her bank holds at least the comeback
    time and the table is told, before the move's own lines."""
    request_fp = idempotency.fingerprint(seat.index, game.version, action)
    try:  # the engine's gate (engine.check) refuses whatever it does not list
        new_state, events = engine.apply(state, seat.index, action)
    except IllegalAction as exc:
        raise Invalid(exc.reason, code=exc.code) from exc
    if frozen:
        engine.freeze(new_state)
    appends = gamelog.Appends()  # written with the game row
    returned: list[EventRow] = []
    if back is not None:
        clocks.comeback(game, seat.index)
        gamelog.note(game, back, appends)
        returned.append((game.last_event, None, None, back))
    final, made = _answer(game, new_state, bots=False, frozen=frozen)
    can_undo = (
        source == "player"
        and not made
        and undo_refusal(seat.index, state, new_state, any(e.get("to") is not None for e in events))
        is None
    )
    version = game.version + 1 + len(made)
    status = "finished" if engine.outcome(final) is not None else game.status
    start = game.last_event  # the move's own events follow the line of a seat taken back
    first = start - len(returned)  # the change's first event, for the push (``_frame``)
    mine = [
        {**ev, "seq": start + i + 1, "action_seq": game.last_action + 1}
        for i, ev in enumerate(events)
        if eventlog.visible(ev.get("to"), seat.index)
    ]
    result = ActionResult(game.id, version, game.last_action + 1, status, mine)
    stored = {k: v for k, v in result.to_json().items() if k != "replayed"}
    rows = (
        returned
        + gamelog.record(
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
    )
    for move in made:
        rows += gamelog.record(
            None, game, move.seat, move.action, move.events, move.source, appends=appends
        ).rows
    was = game.status
    _bookkeep(game, final, {seat.index} if source == "player" else set(), now)
    game.undo_seat = seat.index if can_undo else None
    snapshot = gamelog.snapshot_due(game)
    taken = [seat.id] if back is not None else []
    return Decided(final, result, appends, rows, first, was, snapshot, taken)


def _bookkeep(game: GameRow, state: dict[str, Any], acted: set[int], now: datetime) -> None:
    """After any change: the end of the game, the clocks (who owes a decision now), the
    bot worker's cue."""
    finish_if_over(game, state, now)
    clocks.set_deadlines(game, state, acted, now)
    game.server_turn = bots_due(game, state)


def _frame(game: GameRow, decided: Decided, digest: str | None) -> gamelog.Frame:
    """The change as the hub pushes it from memory; with the row as written and the
    database's `digest` of it, the next move can be written in one statement."""
    return gamelog.Frame(
        game_id=game.id,
        version=game.version,
        state=decided.final,
        fields=game_fields(game),
        deadlines=dict(game.deadlines or {}),
        undo_seat=game.undo_seat,
        first_event=decided.first_event,
        last_event=game.last_event,
        events=decided.rows,
        seats={s.user_id: s.index for s in game.seats if s.user_id is not None},
        server_turn=game.server_turn,
        row=copy_row(game) if digest is not None else None,
        digest=digest,
    )


def _on_finish(db: Session, game_id: int) -> dict[str, Any] | None:
    """The once-per-game end of a move: the ORM game (fresh from the row just written)
    gets its stand-in counts and the ratings move (app/services/standins.py)."""
    game = db.get(Game, game_id, populate_existing=True)
    assert game is not None
    standins.on_finish(db, game)
    db.flush()
    return game.result_notes


# --------------------------------------------------------------------------- changes without a move


def settle(
    db: Session,
    game: Game,
    state: dict[str, Any],
    acted: set[int],
    now: datetime,
    defaults: Sequence[int] = (),
) -> dict[str, Any]:
    """A change made without a move (a start, a deadline, "I'm away" or back, a table
    vote, standing orders given) on the locked ORM `game`, whose version the unit of work has
    moved. Its changes are flushed and the game read as a move reads it (``GameRow``,
    under the caller's lock); then the move's own steps: the prompts' defaults of the
    seats in `defaults` (their time ran out and no stand-in level is installed,
    app/services/deadlines.py), each told to the table, and whatever the server answers
    at once (``_answer``); the end, the clocks and the bot worker's cue (``_bookkeep``);
    one write of the row with what it appends (``gamelog.write_row``, a snapshot when
    due). The ORM `game` is expired, so the caller reads it as written; the unit of
    work that called (``unit.Work.changed``) commits and publishes."""
    db.flush()
    row = gamelog.read_row(db, game.id)
    appends = gamelog.Appends()
    played: set[int] = set()
    for index in defaults:
        prompt = next((p for p in engine.pending(state) if p["seat"] == index), None)
        if prompt is None:
            continue
        action = engine.default_action(state, prompt)
        state, events = engine.apply(state, index, action)
        gamelog.record(None, row, index, action, events, "deadline", appends=appends)
        seat = next(s for s in row.seats if s.index == index)
        gamelog.note(row, standins.default_line(row, seat, action), appends)
        played.add(index)
    state, made = _answer(row, state, bots=False)
    for move in made:
        gamelog.record(None, row, move.seat, move.action, move.events, move.source, appends=appends)
    was = row.status
    _bookkeep(row, state, acted | played, now)
    row.undo_seat = None
    snapshot = gamelog.snapshot_due(row) or not row.started
    gamelog.write_row(db, row, state, snapshot=snapshot, appends=appends)  # expires `game`
    if was == "active" and row.status == "finished":
        _on_finish(db, game.id)  # stand-in counts into the result; ratings move
    return state


# --------------------------------------------------------------------------- who answers


def bot_for(seat: SeatRow) -> str | None:
    """The bot level playing this seat now: a bot seat, or a stand-in for an absent player."""
    return seat.bot_level or seat.standin


def bots_due(game: GameRow, state: dict[str, Any]) -> bool:
    """Whether a bot or a stand-in has a pending prompt (the bot worker's to-do)."""
    if game.status != "active" or engine.outcome(state) is not None:
        return False
    by_index = {s.index: s for s in game.seats}
    return any(bot_for(by_index[p["seat"]]) for p in engine.pending(state))


def bot_turn(game: GameRow, state: dict[str, Any]) -> SeatRow | None:
    """The first seat a bot or stand-in must answer for now, if any."""
    if game.status != "active" or engine.outcome(state) is not None:
        return None
    by_index = {s.index: s for s in game.seats}
    for prompt in engine.pending(state):
        seat = by_index[prompt["seat"]]
        if bot_for(seat):
            return seat
    return None


#: what a stand-in says when it refuses an offer made to the absent person (20.14):
#: it refuses every one (``standins.caretaker``), whatever the bot would have thought
CARETAKER_REASON = "a stand-in keeps this seat for its absent player and signs nothing in her name."


def bot_action(game: GameRow, state: dict[str, Any], seat: SeatRow) -> dict[str, Any]:
    """The bot's answer to `seat`'s prompt (may think: call it off the event loop).
    Deterministic per game and step, so a game with bots can be replayed."""
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
    if not seat.bot_level and action.get("answer") == "refuse" and "reason" in action:
        action = {**action, "reason": CARETAKER_REASON}  # 20.14: its real reason
    try:
        engine.check(state, seat.index, action)
    except engine.IllegalAction:  # a bot bug must not stall
        log.error("bot %s chose an illegal action %r", level, action)
        prompt = next(p for p in engine.pending(state) if p["seat"] == seat.index)
        action = engine.default_action(state, prompt)
    return action


def next_server_move(
    game: GameRow, state: dict[str, Any], by_index: dict[int, Any], bots: bool = True
) -> tuple[SeatRow, dict[str, Any], str] | None:
    """The first prompt the server answers now: (seat, a legal action, log source).
    With `bots` False only people's prompts: a standing order (source ``order``) or a
    prompt with a single legal action, a choice the person does not have (``forced``,
    `forced_action`). Bots answer from the bot worker."""
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


def finish_if_over(game: GameRow, state: dict[str, Any], now: datetime) -> None:
    outcome = engine.outcome(state)
    if outcome is not None and game.status == "active":
        game.status = "finished"
        game.outcome = outcome
        game.finished_at = now


# --------------------------------------------------------------------------- what every payload carries


class Shown(Protocol):
    """What a payload reads of a game (``game_fields``): the hot path's ``GameRow`` has
    it, and so has the ORM's ``Game`` the lobby, replays and table votes hold. Read
    only: nothing that takes a ``Shown`` writes a game."""

    @property
    def id(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def scenario(self) -> str: ...
    @property
    def pace(self) -> str: ...
    @property
    def public(self) -> bool: ...
    @property
    def host_id(self) -> int: ...
    @property
    def outcome(self) -> dict[str, Any] | None: ...
    @property
    def result_notes(self) -> dict[str, Any] | None: ...
    @property
    def clocks(self) -> dict[str, Any] | None: ...
    @property
    def deadlines(self) -> Mapping[str, str | None] | None: ...
    @property
    def seats(self) -> Sequence[Seat | SeatRow]: ...


def game_fields(game: Shown, seats: list[dict[str, Any]] | None = None) -> dict[str, Any]:
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


# --------------------------------------------------------------------------- undo's rule


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


OTHERS_ASKED = "Another player has been asked to decide since."
REVEALED = "That decision revealed something; it cannot be taken back."


def undo_refusal(
    seat: int, before: dict[str, Any], after: dict[str, Any], private: bool
) -> str | None:
    """The one undo rule, for `seat`'s action that took `before` to `after` (`private`: it
    made an event only some seats see): None if its player may take it back while it is
    the last action, else the reason. Decided once when the action is submitted (stored
    as ``actions.can_undo`` / ``games.undo_seat``) and again by ``play.undo`` itself."""
    if {p["seat"] for p in engine.pending(after)} - {seat}:
        return OTHERS_ASKED
    if private or hidden_parts(before) != hidden_parts(after):
        return REVEALED
    return None
