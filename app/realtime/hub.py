"""The in-process fan-out hub: game id -> the sockets this process serves for it.

Design (docs/realtime.md):

- Every connection owns a BOUNDED ``asyncio.Queue`` of encoded messages and one
  writer task that drains it into the socket. Nobody else ever awaits a socket, so
  a slow or dead peer can only fill its own queue; when it is full the hub drops
  that connection (it resyncs when it reconnects) and carries on with the others.
- Every game with connections has ONE worker task. A notification ("game G is at
  version V", from this process or from PostgreSQL NOTIFY) only marks the game
  dirty; the worker then reloads the game once (in a thread: the store is sync),
  builds each *seat's* message once and hands it to every socket of that seat.
  Notifications that arrive while a reload runs coalesce into one more pass. This
  process's own NOTIFYs never reach the hub: the listener drops them by their origin
  (``pg.py``), since the hub was told of those changes directly.
- Joining (the client's ``hello``) goes through the same worker, so the answer to
  a hello and the updates after it are strictly ordered: no gap, no duplicate.
- Fan-out from memory: when this process committed the change itself, the source
  hands the hub that change's ``Frame`` (``gamelog.frames``: the new state, the game's
  fields, the events with their visibility) and the worker pushes from it at once,
  with no reload (``render.py``: the public part encoded once per version, each seat
  adding its own). It reloads through the database only for a hello, a change made
  by another process (NOTIFY), a notification that brings no new version (chat, a
  lobby change) or a socket whose missing events are no longer in memory; and then
  once per pass for all sockets, never per socket.

The hub never touches the database itself: it calls a ``GameSource`` (see
``app/realtime/source.py``), which is what talks to the platform's services.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.realtime.render import Base, Rendered, held
from app.services import metrics

log = logging.getLogger("app.realtime.hub")

# A client more than this many events behind gets a full "state" instead of a "sync".
SYNC_LIMIT = 500
# A "state" message carries at most this many of the latest events (for the log pane).
STATE_TAIL = 200


class SocketLike(Protocol):
    async def send_text(self, data: str) -> None: ...


@dataclass(frozen=True)
class Want:
    """What one group of sockets needs from a reload: a user's view, events after `since`."""

    user_id: int | None
    since: int | None  # None: a full state (tail of the log) is wanted


@dataclass
class SeatLoad:
    """One user's slice of a reload."""

    payload: dict[str, Any]  # = play.seat_view(): version, seat, view, legal_actions, prompts…
    events: dict[int | None, list[dict[str, Any]]]  # since -> events after it (None -> tail)
    error: tuple[int, str] | None = None  # (close code, reason): access refused / game gone


@dataclass
class GameLoad:
    """What one reload of a game returns."""

    seats: dict[int | None, SeatLoad]  # per user id (None = anonymous spectator)
    chat: list[dict[str, Any]]  # chat lines after the `chat_after` asked for (each has `id`)
    chat_last: int  # the newest chat line id
    #: per user, the authors whose lines she is not sent (she blocks them), or None: she
    #: muted this table's chat (app/services/moderation.py); absent: nothing hidden
    hidden: dict[int | None, frozenset[int] | None] = field(default_factory=dict)


class GameSource(Protocol):
    """The hub's only window on the platform (implemented in ``source.py``)."""

    def load(self, game_id: int, wants: list[Want], chat_after: int | None) -> GameLoad:
        """Reload `game_id` once; per user id its view and the events asked for, plus the
        chat lines after `chat_after` (None: only tell me the newest id).

        Synchronous: called in a worker thread. Must only ever return, for a user,
        the events and view *that user's seat* may see."""
        ...


class Mailbox:
    """A socket's bounded queue of messages, with its one reader (the writer task).

    ``asyncio.Queue`` keeps three deques and an ``Event`` with a fourth, ~4 KB a socket
    before a message is queued; a list and one future while the reader waits do. Full:
    ``put_nowait`` raises ``asyncio.QueueFull``, as the queue did."""

    __slots__ = ("maxsize", "_items", "_waiter")

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: list[str | None] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: str | None) -> None:
        if 0 < self.maxsize <= len(self._items):
            raise asyncio.QueueFull
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> str | None:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)


class Flag:
    """Set once, and told to one callback (a socket's session learns of its drop):
    neither an ``asyncio.Event`` with its deque of waiters nor a task awaiting it."""

    __slots__ = ("_set", "_then")

    def __init__(self) -> None:
        self._set = False
        self._then: Callable[[], None] | None = None

    def set(self) -> None:
        self._set = True
        then, self._then = self._then, None
        if then is not None:
            then()

    def is_set(self) -> bool:
        return self._set

    def then(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` once when set (at once if it is); None: forget it."""
        if self._set and callback is not None:
            callback()
        else:
            self._then = callback


@dataclass(eq=False, slots=True)
class Connection:
    """One websocket as the hub sees it (slots: no ``__dict__`` for each socket)."""

    game_id: int
    user_id: int | None
    queue_size: int
    on_drop: Callable[[Connection, str], None] | None = None
    seat: int | None = None
    version: int = -1  # last version pushed to this socket
    last_seq: int = 0  # last event seq pushed to this socket
    chat_id: int | None = None  # last chat line id pushed (None: not known yet)
    #: the client applies patches (its hello said ``"patches": true``; render.py)
    patches: bool = False
    #: the version whose fields the last push from memory carried (-1: none, or a push
    #: from a reload came since): a patch is made only against what the client holds
    rendered: int = -1
    joined: bool = False
    closed: bool = False
    drop_reason: str | None = None
    #: the close code the socket is to be closed with (``finish``), None: the session's
    close_code: int | None = None
    #: the socket's synchronous write of a text frame (``ws_protocol.write_now``), if
    #: the server offers one: an update to a socket with nothing queued or in flight is
    #: written at once, without waking the writer task (None: always through it)
    write: Callable[[str], bool] | None = None
    #: the writer task is sending a message (it may be waiting for the transport)
    sending: bool = False
    queue: Mailbox = field(init=False)
    dropped: Flag = field(init=False)

    def __post_init__(self) -> None:
        self.queue = Mailbox(self.queue_size)
        self.dropped = Flag()

    def offer(self, message: dict[str, Any] | str) -> bool:
        """Queue a message without ever waiting; a full queue drops this connection."""
        if self.closed:
            return False
        text = message if isinstance(message, str) else encode(message)
        write = self.write
        if write is not None and not self.sending and self.queue.empty() and write(text):
            return True  # in order: nothing was before it
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop("send queue full (slow consumer)")
            return False
        return True

    def finish(self, code: int, reason: str) -> None:
        """Close this socket with `code` and `reason` once what is queued is sent (the
        answer to an action in flight): the writer ends at the end of its queue. A full
        queue is dropped at once."""
        if self.closed or self.close_code is not None:
            return
        self.close_code = code
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.drop(reason)
            return
        self.drop_reason = reason

    def drop(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.drop_reason = reason
        self.dropped.set()
        if self.on_drop is not None:
            self.on_drop(self, reason)

    async def pump(self, socket: SocketLike) -> None:
        """The writer task: the only place that awaits this socket's send."""
        while True:
            text = await self.queue.get()
            if text is None or self.closed:
                return
            self.sending = True
            try:
                await socket.send_text(text)
            finally:
                self.sending = False
            # Not kept while waiting for the next one: an idle socket would hold its
            # last message alive (a first state is tens of KB, most of a socket's memory).
            del text


#: the ASGI scope's extension that holds a socket's synchronous write of a text frame
#: (``app/web/ws_protocol.py``): ``write(text) -> bool``, False when it did not write
WRITE_NOW = "ig.write_now"


def encode(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), default=str)


class Hub:
    """game id -> connections, one worker per game with listeners."""

    # Reloads are CPU-bound Python (GIL): a few threads keep the database busy without
    # starving the event loop that serves the sockets.
    def __init__(self, source: GameSource, *, queue_size: int = 64, threads: int = 3) -> None:
        self.source = source
        self.queue_size = queue_size
        self._members: dict[int, set[Connection]] = {}
        #: every connection made and not yet left, joined or not (``finish_all``)
        self._open: set[Connection] = set()
        # game -> {connection: (last_seq, last_chat_id) of its hello}
        self._joining: dict[int, dict[Connection, tuple[int | None, int | None]]] = {}
        self._dirty: dict[int, asyncio.Event] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        # game -> (version, wall-clock time publish() was called after its commit), for
        # updates to carry ``committed_at`` (latency measurement; this process's commits only).
        self._stamps: dict[int, tuple[int, float]] = {}
        # game -> the newest version notified by this process; games needing a reload.
        self._notified: dict[int, int] = {}
        self._needs_db: set[int] = set()
        # game -> the newest version another process notified (NOTIFY), not yet pushed
        self._remote: dict[int, int] = {}
        # game -> the prints of the last version pushed from memory (render.Base)
        self._bases: dict[int, Any] = {}
        # game -> the sockets whose hello its worker is answering now (``drop_user``)
        self._answering: dict[int, set[Connection]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ig-realtime")
        self.stats = {"reloads": 0, "memory": 0, "messages": 0, "dropped": 0}

    # -- lifecycle -----------------------------------------------------------------
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    async def close(self) -> None:
        for task in list(self._workers.values()):
            task.cancel()
        for task in list(self._workers.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._workers.clear()
        for conns in list(self._members.values()):
            for conn in list(conns):
                conn.drop("server shutting down")
        self._executor.shutdown(wait=False, cancel_futures=True)

    def finish_all(self, code: int, reason: str) -> int:
        """Close every socket with `code` and `reason` once its queue is sent
        (``Connection.finish``); returns how many there were."""
        conns = list(self._open)
        for conn in conns:
            conn.finish(code, reason)
        return len(conns)

    async def emptied(self, deadline: float) -> None:
        """Return once no socket is left (each ``leave``s as its session ends), or at
        `deadline` (the loop's clock)."""
        loop = asyncio.get_running_loop()
        while self._open and loop.time() < deadline:
            await asyncio.sleep(0.02)

    # -- connections ---------------------------------------------------------------
    def connection(self, game_id: int, user_id: int | None) -> Connection:
        conn = Connection(game_id, user_id, self.queue_size, on_drop=self._on_drop)
        self._open.add(conn)
        return conn

    def join(self, conn: Connection, last_seq: int | None, last_chat: int | None = None) -> None:
        """Ask the game's worker to answer `conn`'s hello (sync or state) and then keep it
        posted. Also used for a second hello on an open socket (a resync)."""
        self._joining.setdefault(conn.game_id, {})[conn] = (last_seq, last_chat)
        self._kick(conn.game_id)

    def leave(self, conn: Connection) -> None:
        conn.closed = True
        self._open.discard(conn)
        members = self._members.get(conn.game_id)
        if members is not None:
            members.discard(conn)
        joining = self._joining.get(conn.game_id)
        if joining is not None:
            joining.pop(conn, None)
        # Unblock the writer so its task ends.
        with contextlib.suppress(asyncio.QueueFull):
            conn.queue.put_nowait(None)

    def _on_drop(self, conn: Connection, reason: str) -> None:
        self.stats["dropped"] += 1
        level = logging.WARNING if "slow" in reason else logging.INFO
        log.log(
            level, "dropping socket of game %s (user %s): %s", conn.game_id, conn.user_id, reason
        )
        self.leave(conn)

    def sockets(self, game_id: int | None = None) -> int:
        if game_id is not None:
            return len(self._members.get(game_id, ()))
        return sum(len(s) for s in self._members.values())

    # -- notifications -------------------------------------------------------------
    def notify(
        self,
        game_id: int,
        version: int | None = None,
        committed_at: float | None = None,
    ) -> None:
        """This process changed game `game_id` (now at `version`). Loop thread only."""
        if not self._watched(game_id):
            return
        if committed_at is not None and version is not None:
            self._stamps[game_id] = (version, committed_at)
        if version is None or version <= self._notified.get(game_id, -1):
            self._needs_db.add(game_id)  # no new version: chat, or a change we cannot see
        else:
            self._notified[game_id] = version
        self._kick(game_id)

    def notify_remote(self, game_id: int, version: int) -> None:
        """A NOTIFY from PostgreSQL: another process changed the game. Loop thread only."""
        if not self._watched(game_id):
            return
        if getattr(self.source, "follow", None) is None:
            self._needs_db.add(game_id)  # another process's change: reload once
        else:  # made this process's frame first, then pushed from memory
            self._remote[game_id] = max(version, self._remote.get(game_id, -1))
        self._kick(game_id)

    def _watched(self, game_id: int) -> bool:
        """Whether a socket watches `game_id` or is joining it. A worker counts: while it
        answers the first hello of a game, that socket is neither joining (its hello was
        taken) nor a member yet, and a change committed meanwhile must still reach it."""
        return game_id in self._members or game_id in self._joining or game_id in self._workers

    def notify_threadsafe(
        self,
        game_id: int,
        version: int | None = None,
        committed_at: float | None = None,
    ) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # loop closing
            loop.call_soon_threadsafe(self.notify, game_id, version, committed_at)

    def resync_all(self) -> None:
        """After the NOTIFY connection was lost: we may have missed changes, reload all."""
        for game_id in list(self._members):
            self._needs_db.add(game_id)
            self._kick(game_id)

    def _kick(self, game_id: int) -> None:
        event = self._dirty.get(game_id)
        if event is None:
            event = self._dirty[game_id] = asyncio.Event()
        event.set()
        task = self._workers.get(game_id)
        if task is None or task.done():
            self._workers[game_id] = asyncio.get_running_loop().create_task(
                self._work(game_id), name=f"ig-hub-{game_id}"
            )

    # -- the per-game worker ----------------------------------------------------------
    async def _work(self, game_id: int) -> None:
        dirty = self._dirty[game_id]
        try:
            while True:
                await dirty.wait()
                dirty.clear()
                members = {c for c in self._members.get(game_id, set()) if not c.closed}
                joining = {
                    c: hello for c, hello in self._joining.pop(game_id, {}).items() if not c.closed
                }
                if not members and not joining:
                    break
                self._answering[game_id] = set(joining)  # drop_user finds them here
                try:
                    await self._pass(game_id, members, joining)
                except Exception:  # a failed reload must not kill the worker
                    log.exception("realtime reload of game %s failed", game_id)
                    for conn, hello in joining.items():  # let them retry
                        self._joining.setdefault(game_id, {})[conn] = hello
                    await asyncio.sleep(0.5)
                    dirty.set()
                finally:
                    self._answering.pop(game_id, None)
                if not self._members.get(game_id) and not self._joining.get(game_id):
                    break
        finally:
            if self._workers.get(game_id) is asyncio.current_task():
                del self._workers[game_id]
                if not self._members.get(game_id) and not self._joining.get(game_id):
                    self._members.pop(game_id, None)
                    self._dirty.pop(game_id, None)
                    self._stamps.pop(game_id, None)
                    self._notified.pop(game_id, None)
                    self._needs_db.discard(game_id)
                    self._remote.pop(game_id, None)
                    self._bases.pop(game_id, None)
                elif dirty.is_set():  # raced with a join while ending
                    self._kick(game_id)

    async def _pass(
        self,
        game_id: int,
        members: set[Connection],
        joining: dict[Connection, tuple[int | None, int | None]],
    ) -> None:
        remote = self._remote.pop(game_id, None)
        if remote is not None and not joining and game_id not in self._needs_db:
            # Another process's change: its frame here, from the database (the state
            # moved on by the change's moves), then pushed as this process's own are.
            after = min((c.last_seq for c in members if not c.closed), default=None)
            follow: Any = getattr(self.source, "follow", None)
            followed = after is not None and await asyncio.get_running_loop().run_in_executor(
                self._executor, follow, game_id, after, remote
            )
            if not followed:
                self._needs_db.add(game_id)
        elif remote is not None:
            self._needs_db.add(game_id)
        if (
            not joining
            and game_id not in self._needs_db
            and await self._from_memory(game_id, members)
        ):
            return
        self._needs_db.discard(game_id)
        wants: set[Want] = {Want(c.user_id, c.last_seq) for c in members}
        for conn, (since, _chat) in joining.items():
            wants.add(Want(conn.user_id, since))
            wants.add(Want(conn.user_id, None))
        marks = [c.chat_id for c in members if c.chat_id is not None]
        marks += [chat for _since, chat in joining.values() if chat is not None]
        chat_after = min(marks) if marks else None
        loop = asyncio.get_running_loop()
        load = await loop.run_in_executor(
            self._executor,
            self.source.load,
            game_id,
            sorted(wants, key=_want_key),
            chat_after,
        )
        self.stats["reloads"] += 1

        # Hellos first: their answer is "where you are now".
        for conn, (since, chat) in joining.items():
            if conn.closed:
                continue
            seat_load = load.seats.get(conn.user_id)
            if seat_load is None or seat_load.error:
                code, reason = seat_load.error if seat_load and seat_load.error else (4404, "gone")
                conn.drop(f"{code} {reason}")
                continue
            self._answer_hello(conn, since, seat_load, load.chat_last)
            if chat is not None:
                self._send_chat(conn, chat, load)
            conn.chat_id = load.chat_last
            if not conn.closed:
                self._members.setdefault(game_id, set()).add(conn)

        # Then everybody else gets what changed, encoded once per (seat, where the socket
        # is): what a socket is sent depends only on its seat (spectators share theirs).
        built: dict[tuple[int | None, int, int], str | None] = {}
        stamp = self._stamps.get(game_id)
        fresh = False  # a socket got this process's stamped commit with this pass
        for conn in members:
            if conn.closed or conn in joining:
                continue
            seat_load = load.seats.get(conn.user_id)
            if seat_load is None or seat_load.error:
                reason = (
                    f"{seat_load.error[0]} {seat_load.error[1]}"
                    if seat_load and seat_load.error
                    else "4404 gone"
                )
                conn.drop(reason)
                continue
            key = (seat_load.payload.get("seat"), conn.last_seq, conn.version)
            if key not in built:
                built[key] = self._update_text(conn, seat_load, stamp)
            text = built[key]
            if text is not None and conn.offer(text):
                self.stats["messages"] += 1
                fresh = fresh or (stamp is not None and conn.version < stamp[0])
                conn.version = int(seat_load.payload.get("version", conn.version))
                conn.rendered = -1  # a reload's fields: the next push is whole
                conn.seat = seat_load.payload.get("seat")
                conn.last_seq = _last_seq(seat_load.events.get(conn.last_seq) or [], conn.last_seq)
            if conn.chat_id is not None:
                self._send_chat(conn, conn.chat_id, load)
            conn.chat_id = max(conn.chat_id or 0, load.chat_last)
        if fresh and stamp is not None:
            _observe_push(stamp[1])

    async def _from_memory(self, game_id: int, members: set[Connection]) -> bool:
        """Push this process's own newest change from memory; False if it cannot (then
        the caller reloads through the database). A socket that takes patches and holds
        the last version pushed from memory gets a patch against it."""
        frame_of = getattr(self.source, "frame", None)
        held = frame_of(game_id) if frame_of is not None else None
        if held is None:
            return False
        frame, recent = held
        if frame.version < self._notified.get(game_id, -1):
            return False  # a newer change was made without a frame (lobby, deadline …)
        behind = [c for c in members if not c.closed and c.version < frame.version]
        if not behind:
            return not members or all(c.version >= frame.version for c in members)
        public = frame.fields.get("public")
        for conn in behind:
            seated = conn.user_id is not None and (
                conn.user_id in frame.seats or conn.user_id == frame.fields.get("host_id")
            )
            if not (public or seated):
                return False  # access may have changed: the reload decides
        stamp = self._stamps.get(game_id)
        committed = stamp[1] if stamp is not None and stamp[0] == frame.version else None
        base = self._bases.get(game_id)
        groups: dict[tuple[int | None, int, bool], list[Connection]] = {}
        for conn in behind:
            seat = frame.seats.get(conn.user_id) if conn.user_id is not None else None
            patched = (
                conn.patches
                and base is not None
                and conn.rendered == conn.version == base.version
                and seat == conn.seat
            )
            groups.setdefault((seat, conn.last_seq, patched), []).append(conn)
        seats = {seat for seat, _since, _patched in groups}

        def render() -> tuple[dict[Any, tuple[str, int]], Base] | None:
            # The whole version at once: the shared part, then each (seat, events
            # held, patched) group's message; None if the events it must carry are no
            # longer all in memory.
            rendered = Rendered(frame, recent, committed, base)
            if not all(rendered.covers(since) for _seat, since, _patched in groups):
                return None
            texts = {key: rendered.text(key[0], key[1], base if key[2] else None) for key in groups}
            return texts, rendered.base(seats, base)

        # On the loop, not in the pool: a push from memory is CPU only (~1 ms a version),
        # a thread would hold the GIL as long and add the wait for it (the bench's commit
        # -> socket p50 went from 12 to 25 ms with one render thread), and each thread
        # that renders grows a malloc arena of its own with the encoded parts' churn,
        # which the process keeps (~0.3 MB resident a live game with three).
        done = render()
        if done is None:
            return False
        texts, self._bases[game_id] = done
        self.stats["memory"] += 1
        sent = self.stats["messages"]
        for key, conns in groups.items():
            text, last = texts[key]
            for conn in conns:
                if conn.closed or conn.version >= frame.version:
                    continue
                if conn.offer(text):
                    self.stats["messages"] += 1
                    conn.version = conn.rendered = frame.version
                    conn.seat = key[0]
                    conn.last_seq = last
        if committed is not None and self.stats["messages"] != sent:
            _observe_push(committed)
        return True

    def _send_chat(self, conn: Connection, after: int, load: GameLoad) -> None:
        hidden = load.hidden.get(conn.user_id, frozenset())
        if hidden is None:
            return  # she muted this table's chat
        for line in load.chat:
            if (
                int(line["id"]) > after
                and line.get("user_id") not in hidden
                and conn.offer({"type": "chat", "message": line})
            ):
                self.stats["messages"] += 1

    def drop_user(self, user_id: int, reason: str) -> int:
        """Close every socket of `user_id` in this process (her account was suspended):
        close code 4401 and `reason`. Loop thread only; returns how many. A socket whose
        first hello is being answered right now is closed too (it is not answered)."""
        conns = {c for c in self._members_all() if c.user_id == user_id and not c.closed}
        for conn in conns:
            conn.drop(f"4401 {reason}")
        return len(conns)

    def _members_all(self) -> set[Connection]:
        out = {c for conns in self._members.values() for c in conns}
        out.update(c for joining in self._joining.values() for c in joining)
        out.update(c for answering in self._answering.values() for c in answering)
        return out

    def _answer_hello(
        self, conn: Connection, since: int | None, seat_load: SeatLoad, chat_last: int
    ) -> None:
        payload = seat_load.payload
        last = int(payload.get("last_seq") or 0)
        fields = _view_fields(payload)
        missed = seat_load.events.get(since) if since is not None else None
        message: dict[str, Any]
        if (
            since is not None
            and missed is not None
            and 0 <= since <= last
            and last - since <= SYNC_LIMIT
        ):
            message = {"type": "sync", "since": since, "events": missed, **fields}
        else:
            message = {"type": "state", "events": seat_load.events.get(None) or [], **fields}
        message["last_seq"] = max(last, _last_seq(message["events"], 0))
        message["chat_last_id"] = chat_last
        if conn.offer(message):
            self.stats["messages"] += 1
            conn.joined = True
            conn.seat = payload.get("seat")
            conn.version = int(payload.get("version", -1))
            conn.rendered = self._hold(conn, fields) if conn.patches else -1
            conn.last_seq = int(message["last_seq"])

    def _hold(self, conn: Connection, fields: dict[str, Any]) -> int:
        """The version a patch socket's next update may be a patch against after a
        whole message with `fields` (-1: none): the prints of what it holds join the
        game's base when it is of the same version and agrees on the shared part, or
        start it when it is newer. A game's first move then reaches its sockets as
        patches."""
        mine = held(fields)
        if mine is None:
            return -1
        base = self._bases.get(conn.game_id)
        if base is None or base.version < mine.version:
            self._bases[conn.game_id] = mine
            return mine.version
        seat, prints = next(iter(mine.seats.items()))
        if (
            base.version != mine.version
            or base.common != mine.common
            or base.public != mine.public
            or base.seats.setdefault(seat, prints) != prints
        ):
            return -1
        return mine.version

    def _update_text(
        self, conn: Connection, seat_load: SeatLoad, stamp: tuple[int, float] | None
    ) -> str | None:
        payload = seat_load.payload
        events = seat_load.events.get(conn.last_seq) or []
        version = int(payload.get("version", -1))
        if version <= conn.version and not events:
            return None  # nothing new for this socket
        message = {"type": "update", "events": events, **_view_fields(payload)}
        message["last_seq"] = _last_seq(events, conn.last_seq)
        if stamp is not None and stamp[0] == version:
            message["committed_at"] = stamp[1]
        return encode(message)


def _observe_push(committed_at: float) -> None:
    """One observation of commit -> socket per push, not per socket: taken on the loop's
    next turn, once the writer tasks this push woke have handed their messages to their
    sockets (they were scheduled first)."""
    with contextlib.suppress(RuntimeError):  # no running loop (a test's direct call)
        asyncio.get_running_loop().call_soon(metrics.pushed, committed_at)


def _want_key(want: Want) -> tuple[int, int]:
    return (
        want.user_id if want.user_id is not None else -1,
        -2 if want.since is None else want.since,
    )


def _last_seq(events: list[dict[str, Any]], default: int) -> int:
    seqs = [int(e["seq"]) for e in events if isinstance(e.get("seq"), int)]
    return max([default, *seqs])


# The parts of seat_view() a socket receives (allowlist: never forward unknown keys).
VIEW_FIELDS = (
    "game_id",
    "version",
    "seat",
    "status",
    "scenario",
    "pace",
    "public",
    "host_id",
    "seats",
    "outcome",
    "clock",
    "view",
    "legal_actions",
    "prompts",
    "can_undo",
    "result_notes",
)


def _view_fields(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: payload[k] for k in VIEW_FIELDS if k in payload}
