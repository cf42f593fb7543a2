"""Where realtime meets the platform: every database touch of the websocket layer.

Synchronous methods (run in worker threads), each its own short transaction, built on
the platform's services (the only SQL here: one read of the event log for all seats
at once, filtered by the platform's visibility rule, and the newest chat line id):

- ``open_access``: session cookie -> user, and may this user watch this game?
- ``load``: the hub's reload of one game for all the users watching it in this
  process: the game row is read and its state parsed ONCE, then each user gets exactly
  what ``play.seat_view`` would give them (both are built by ``play.seat_payload``), plus the events
  after their ``last_seq`` that their seat may see (``play.events_since``) and new chat.
- ``submit``: an action received on a socket, with the HTTP API's exact semantics (the
  same body model, the same unit of work (app/services/unit.py), the same errors).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session, sessionmaker

from app.realtime.hub import STATE_TAIL, GameLoad, SeatLoad, Want
from app.services import (
    changes,
    chat,
    eventlog,
    follow,
    gamelog,
    lobby,
    logins,
    moderation,
    play,
    unit,
)
from app.services.errors import ServiceError
from app.services.inputs import ActionBody
from app.store import blocking
from app.store import chat as chat_rows
from app.store import log as event_rows

log = logging.getLogger("app.realtime.source")

#: chat lines sent at most per reload (the page reads older ones over HTTP)
CHAT_BATCH = 200


@dataclass
class Access:
    user_id: int | None
    seat: int | None
    error: tuple[int, str] | None = None


def _close_code(status: int) -> int:
    return {401: 4401, 403: 4403, 404: 4404}.get(status, 4403)


class ServiceSource:
    """The hub's ``GameSource`` and the socket's gateway to the services."""

    def __init__(
        self, factory: sessionmaker[Session], loop_factory: sessionmaker[Session] | None = None
    ) -> None:
        self.factory = factory
        bind: Any = factory.kw.get("bind")
        self._db_key = str(bind.engine.url) if bind is not None else None
        #: whether the socket's calls run on the loop (SQLite; app/store/blocking.py)
        self.inline = blocking.inline(factory)
        #: a database server's sessions for the calls on the loop: a connection of the
        #: loop's own (``store.db.loop_engine``); None: such calls go to the pool
        self.loop_factory = loop_factory

    @property
    def moves_on_loop(self) -> bool:
        """Whether a socket's move is tried on the event loop: always with SQLite, and
        with a database server when the loop has its connection. There a move of a game
        this process holds is one statement that waits for no lock; any other (a game
        not held, a row locked elsewhere, a snapshot due) raises ``blocking.Busy``
        before it writes anything and runs again in the pool (app/store/blocking.py)."""
        return self.inline or self.loop_factory is not None

    # -- memory ------------------------------------------------------------------------
    def frame(self, game_id: int) -> Any:
        """This process's newest committed change of `game_id` (``gamelog.Frame`` and the
        recent events), or None: what the hub pushes from without a reload."""
        if self._db_key is None:
            return None
        return gamelog.frames.get(self._db_key, game_id)

    def follow(self, game_id: int, after_event: int, version: int) -> bool:
        """Another process committed `version` of `game_id`: make it this process's
        frame (``follow.frame_of``, the events after `after_event`), for the hub to push
        from memory. False when it cannot (no new version: chat, a lobby change; a
        game not started): the hub reloads instead."""
        if self._db_key is None:
            return False
        held = gamelog.frames.get(self._db_key, game_id)
        if held is not None and held[0].version >= version:
            return False  # nothing new to this process: the reload finds what changed
        if follow.in_memory(self._db_key, game_id, version) is not None:
            return True
        try:
            with self.session() as db:
                got = changes.changes.ending(self._db_key, game_id, version)
                digest = got[2] if got is not None else None
                frame = gamelog.reread(
                    lambda: follow.frame_of(db, game_id, after_event, version, digest),
                    before_again=db.rollback,
                )
        except ServiceError:
            return False
        if frame is None or frame.version < version:
            return False
        gamelog.frames.put(self._db_key, frame)
        log.debug("game %s: followed to %s by reading", game_id, version)
        return True

    def change(self, game_id: int, version: int) -> tuple[int, Any, str | None] | None:
        """(since, moves, digest) of this process's change that made `version` of
        `game_id`, when it is held: what its NOTIFY carries (``app/services/changes.py``;
        the digest of the row it wrote, from its frame)."""
        if self._db_key is None:
            return None
        change = changes.changes.ending(self._db_key, game_id, version)
        if change is None:
            return None
        held = gamelog.frames.get(self._db_key, game_id)
        digest = held[0].digest if held is not None and held[0].version == version else None
        return change[0], change[1], digest

    def heard(
        self, game_id: int, since: int, version: int, change: str, digest: str | None = None
    ) -> None:
        """Another process's NOTIFY carried its change `since` -> `version` (its moves,
        maybe its row change: ``changes.parse``) and the digest of the row it wrote: kept
        for this process's next load of the game (``changes.catch_up``) and its frame
        (``follow``)."""
        # Only for a game whose state is held: the others would be replayed anyway.
        if self._db_key is None or not gamelog.states.latest(self._db_key, game_id):
            return
        try:
            moves, row = changes.parse(change)
        except (ValueError, KeyError, TypeError):
            log.warning("game %s: a change heard could not be read", game_id)
            return
        changes.changes.put(self._db_key, game_id, since, version, moves, digest, row)

    @contextmanager
    def session(self, factory: sessionmaker[Session] | None = None) -> Iterator[Session]:
        """A session for one read (a write commits through the unit of work); from
        `factory` when given (the loop's own)."""
        db = (factory or self.factory)()
        try:
            yield db
        finally:
            db.rollback()
            db.close()

    # -- access ----------------------------------------------------------------------
    def open_access(self, game_id: int, token: str | None) -> Access:
        """Who is on the other end, and may they watch `game_id`? (before accept)"""
        with self.session() as db:
            login = logins.session_for_token(db, token)
            user_id = login.user_id if login is not None else None
            try:
                game = lobby.get_game(db, game_id)
            except ServiceError as exc:
                return Access(user_id, None, (_close_code(exc.status), exc.message[:120]))
            if not lobby.can_see(db, game, user_id):
                return Access(user_id, None, (4403, "This game is private."))
            mine = lobby.seat_of(game, user_id)
            return Access(user_id, mine.index if mine else None)

    def suspended(self, user_id: int) -> bool:
        """Whether `user_id`'s account is suspended now (a socket's heartbeat asks on
        SQLite, where a suspension made by another process has no NOTIFY to tell this
        one: app/realtime/ws.py)."""
        with self.session() as db:
            return moderation.is_suspended(db, user_id)

    # -- the hub's reload -------------------------------------------------------------
    def load(self, game_id: int, wants: list[Want], chat_after: int | None) -> GameLoad:
        with self.session() as db:
            users = sorted({w.user_id for w in wants}, key=str)
            try:
                # Read again if an undo overtakes the read; forget the rows read first.
                payloads = gamelog.reread(
                    lambda: self._payloads(db, game_id, users), before_again=db.rollback
                )
            except ServiceError as exc:  # the game is gone
                error = (_close_code(exc.status), exc.message[:120])
                return GameLoad({w.user_id: SeatLoad({}, {}, error) for w in wants}, [], 0)
            out: dict[int | None, SeatLoad] = {}
            for user_id, payload in payloads.items():
                if isinstance(payload, tuple):
                    out[user_id] = SeatLoad({}, {}, payload)
                else:
                    out[user_id] = SeatLoad(payload, {})
            asked: dict[tuple[int | None, int], list[dict[str, Any]]] = {}
            keys: list[tuple[SeatLoad, int | None, tuple[int | None, int]]] = []
            for want in wants:
                slot = out[want.user_id]
                if slot.error:
                    continue
                last = int(slot.payload.get("last_seq") or 0)
                if want.since is None:
                    since = max(0, last - STATE_TAIL)
                elif 0 <= want.since <= last:
                    since = want.since
                else:
                    since = last  # nonsense: the hub answers with a full state
                key = (slot.payload.get("seat"), since)
                asked[key] = []
                keys.append((slot, want.since, key))
            if asked:
                # One read of the log for every seat, each then filtered by the platform's
                # own visibility rule (the parity test holds this equal to events_since).
                # Only up to the last event of the version the views were built at: an
                # action committed meanwhile must not lend its events to this version.
                upto = max(int(s.payload.get("last_seq") or 0) for s in out.values() if not s.error)
                rows = self._events_after(db, game_id, min(since for _seat, since in asked), upto)
                for (seat, since), events in asked.items():
                    events.extend(
                        eventlog.event_json(r)
                        for r in rows
                        if r.seq > since and eventlog.visible(r.visible_to, seat)
                    )
            for slot, since_asked, key in keys:
                slot.events[since_asked] = asked[key]
            lines: list[dict[str, Any]] = []
            reader = next((u for u, s in out.items() if not s.error), None)
            if chat_after is not None and reader is not None:
                try:
                    # Every line, read once; each socket is sent those its person may
                    # read (``hidden``: whom she blocks, or a table she muted).
                    lines = chat.since(db, game_id, reader, chat_after, CHAT_BATCH, everyone=True)
                except ServiceError:
                    lines = []
            hidden = moderation.chat_hidden(db, game_id, list(out)) if lines else {}
            chat_last = max([chat_after or 0, *(int(m["id"]) for m in lines)])
            if chat_after is None:
                chat_last = self._last_chat_id(db, game_id)
            return GameLoad(out, lines, chat_last, hidden)

    @staticmethod
    def _events_after(db: Session, game_id: int, after: int, upto: int) -> list[Any]:
        return list(event_rows.events(db, game_id, after, upto))

    @staticmethod
    def _last_chat_id(db: Session, game_id: int) -> int:
        return chat_rows.last_id(db, game_id)

    def _payloads(
        self, db: Session, game_id: int, user_ids: list[int | None]
    ) -> dict[int | None, dict[str, Any] | tuple[int, str]]:
        """``play.seat_payload`` for several users, reading the game and its state once."""
        game = lobby.get_game(db, game_id)
        state = gamelog.load_state(game) if game.state is not None else None
        prompts = play.prompts_with_deadlines(game, state) if state is not None else []
        views: dict[int | None, Any] = {}
        seats = [lobby.seat_summary(s, game.scenario) for s in game.seats]
        undo_seat = play.undoable_seat(db, game, state)
        out: dict[int | None, dict[str, Any] | tuple[int, str]] = {}
        for user_id in user_ids:
            if not lobby.can_see(db, game, user_id):
                out[user_id] = (4403, "This game is private.")
                continue
            out[user_id] = play.seat_payload(
                game, state, prompts, lobby.seat_of(game, user_id), views, seats, undo_seat
            )
        return out

    # -- actions ---------------------------------------------------------------------
    def submit(
        self,
        game_id: int,
        user_id: int,
        message: dict[str, Any],
        token: str | None = None,
        arrived: float | None = None,
    ) -> dict[str, Any]:
        """Apply an action received on a socket; the answer is an ``ack`` or an ``error``.

        The session cookie the socket opened with is checked again (as every HTTP request
        would be): after a log-out, the socket can still watch but no longer act.
        `arrived`: when the frame was read (``time.perf_counter``), for the metrics."""
        try:
            body = ActionBody.model_validate(message)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first.get("loc", ())) or "body"
            return {
                "type": "error",
                "status": 422,
                "field": field,
                "reason": f"{field}: {first.get('msg')}",
            }
        try:
            # On the loop, a database server's session is on the loop's own connection.
            with self.session(self.loop_factory if blocking.on_loop() else None) as db:
                if logins.user_id_for_token(db, token) != user_id:
                    return {
                        "type": "error",
                        "status": 401,
                        "code": "not_logged_in",
                        "reason": "Your session has ended: log in again to play.",
                    }
                # A login the cache missed was read in a transaction: ending it here lets
                # the move be written in one statement (``writers.writers``).
                db.rollback()
                # Decided, written, committed and published by the unit of work (a retry
                # too: see ``unit.move``).
                result = unit.move(
                    db,
                    game_id,
                    user_id,
                    body.action.model_dump(),
                    body.expected_version,
                    body.idempotency_key,
                    source="socket",
                    arrived=arrived,
                )
        except ServiceError as exc:
            error: dict[str, Any] = {
                "type": "error",
                "status": exc.status,
                "code": exc.code,
                "reason": exc.message,
            }
            error.update({k: v for k, v in exc.extra.items() if k not in error})
            return error
        return {"type": "ack", "version": result.version, "replayed": result.replayed}
