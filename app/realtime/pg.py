"""PostgreSQL LISTEN/NOTIFY: how several app processes on one database share changes.

- ``PgListener``: ONE dedicated async psycopg connection per process, ``LISTEN ig_games``.
  Each notification ``"game_id:version:origin"`` from another process is handed to the hub, which reloads the game
  once and pushes each local socket its own seat's view. When the connection drops it
  reconnects with backoff and asks the hub to resync every game it serves (a NOTIFY
  sent while we were deaf is lost, so we reload instead of trusting we saw it).
- ``PgPublisher``: ``publish()`` is called by synchronous code (the services' thread)
  *after commit*. It never blocks the caller: the notification goes into a queue that a
  small daemon thread sends on its own autocommit connection (``SELECT pg_notify``).
  Because it runs after commit, any process that reloads on it sees the new version.
- A move written in one statement (``heldwrite.write_held``) sends its NOTIFY in that
  statement, delivered by its commit: no publisher round trip.
- Every payload names its process (``origin``): a listener drops its own process's
  notifications, whose changes the hub was told of directly, whenever they arrive.
- A payload may carry the change's moves (``app/services/changes.py``): the listener
  hands them to ``on_change`` before the hub hears of the change, so that the reload
  applies them to the state it holds instead of replaying the game's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import random
import threading
from collections.abc import Callable
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from app.services import logins
from app.services.publisher import (
    CHANNEL,
    LOGINS,
    decode_change,
    decode_ended,
    decode_payload,
    encode_payload,
)
from app.store import notify

log = logging.getLogger("app.realtime.pg")

# The NOTIFY's channel and payloads are the services' (the held write sends one).
__all__ = [
    "CHANNEL",
    "LOGINS",
    "PgListener",
    "PgPublisher",
    "decode_change",
    "decode_payload",
    "encode_payload",
    "libpq_dsn",
]


def libpq_dsn(database_url: str) -> str:
    """SQLAlchemy URL (``postgresql+psycopg://…``) -> a libpq connection string."""
    url = make_url(database_url).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


class PgListener:
    """The process's one LISTEN connection."""

    def __init__(
        self,
        dsn: str,
        on_notify: Callable[[int, int], None],
        on_reconnect: Callable[[], None],
        channel: str = CHANNEL,
        origin: str = "",
        on_change: Callable[[int, int, int, str, str | None], None] | None = None,
        on_ended: Callable[[int], object] | None = None,
    ) -> None:
        self.dsn = dsn
        #: (user) whose sockets are to close: her account was suspended, in any process
        self.on_ended = on_ended
        #: (game, since, version, moves' JSON, the row's digest) of a change heard
        self.on_change = on_change
        self.channel = channel
        self.origin = origin  # this process's notifications are not handed on
        self.on_notify = on_notify
        self.on_reconnect = on_reconnect
        self.listening = asyncio.Event()
        self.received = 0
        self._task: asyncio.Task[None] | None = None
        self._conn: psycopg.AsyncConnection | None = None

    async def start(self, timeout: float = 10.0) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="ig-pg-listen")
        # Serve only once we listen: a NOTIFY before that would be missed silently.
        await asyncio.wait_for(self.listening.wait(), timeout)

    async def _read_until_lost(self, pgconn: Any) -> None:
        """Hand on every notification as the socket delivers it, until the connection
        is lost (then raise). libpq's own calls on a loop reader: psycopg's
        ``notifies()`` generator cost a tenth of a socket action's CPU per NOTIFY heard,
        and this process hears its own too (docs/performance.md, "Fan-out from memory")."""
        loop = asyncio.get_running_loop()
        lost = asyncio.Event()
        fd = pgconn.socket

        def readable() -> None:
            try:
                pgconn.consume_input()
            except psycopg.OperationalError:
                lost.set()
                return
            while (note := pgconn.notifies()) is not None:
                self._dispatch(note.extra.decode())
            if pgconn.status != psycopg.pq.ConnStatus.OK:
                lost.set()

        loop.add_reader(fd, readable)
        try:
            readable()  # anything that arrived with the LISTEN's answer
            await lost.wait()
        finally:
            loop.remove_reader(fd)
        raise ConnectionError("the LISTEN connection was closed")

    def _dispatch(self, payload: str) -> None:
        if payload == LOGINS:
            logins.clear()
            return
        ended = decode_ended(payload)
        if ended is not None:  # every process, this one too: closing twice is harmless
            logins.clear()
            if self.on_ended is not None:
                self.on_ended(ended)
            return
        parsed = decode_payload(payload)
        if parsed is not None:
            self.received += 1
            game, version, origin = parsed
            if not origin or origin != self.origin:
                change = decode_change(payload) if self.on_change is not None else None
                if change is not None and self.on_change is not None:
                    self.on_change(game, change[0], version, change[2], change[1])
                self.on_notify(game, version)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()

    async def _run(self) -> None:
        delay = 0.1
        first = True
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
                    self._conn = conn
                    await notify.listen(conn, self.channel)
                    self.listening.set()
                    logins.hearing(True)
                    delay = 0.1
                    if not first:
                        log.warning("LISTEN connection restored; resyncing every game")
                        self.on_reconnect()
                    first = False
                    await self._read_until_lost(conn.pgconn)
            except asyncio.CancelledError:
                logins.hearing(False)  # stopped: nothing is heard from now on
                raise
            except Exception as exc:  # connection lost / server restarting
                log.warning("LISTEN connection failed (%s); retrying in %.1fs", exc, delay)
            self.listening.clear()
            logins.hearing(False)
            self._conn = None
            await asyncio.sleep(delay * (1 + random.random() / 2))
            delay = min(delay * 2, 5.0)


class PgPublisher:
    """Sends NOTIFY from a small daemon thread; ``publish`` is safe from any thread."""

    def __init__(self, dsn: str, channel: str = CHANNEL, origin: str = "") -> None:
        self.dsn = dsn
        self.channel = channel
        self.origin = origin
        self._queue: queue.SimpleQueue[tuple[int, int, Any] | str | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="ig-pg-notify", daemon=True)
        self.sent = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._queue.put(None)
        self._thread.join(timeout)

    def publish(
        self, game_id: int, version: int, change: tuple[int, Any, Any] | None = None
    ) -> None:
        """NOTIFY that `game_id` is at `version`; `change`: (since, moves, digest)."""
        self._queue.put((game_id, version, change))

    def publish_logout(self) -> None:
        """Every process drops its cached session lookups (someone logged out)."""
        self._queue.put(LOGINS)

    def _payload(self, game_id: int, version: int, change: tuple[int, Any, Any] | None) -> str:
        if change is None:
            return encode_payload(game_id, version, self.origin)
        since, moves, digest = change
        if isinstance(moves, str):  # as heard: not sent on
            return encode_payload(game_id, version, self.origin)
        return encode_payload(game_id, version, self.origin, since, moves, digest)

    def _run(self) -> None:
        conn: psycopg.Connection | None = None
        delay = 0.1
        while True:
            item = self._queue.get()
            if item is None:
                break
            for _attempt in range(5):
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(self.dsn, autocommit=True)
                    payload = item if isinstance(item, str) else self._payload(*item)
                    notify.notify(conn, self.channel, payload)
                    self.sent += 1
                    delay = 0.1
                    break
                except Exception as exc:
                    log.warning("NOTIFY failed (%s); retrying", exc)
                    if conn is not None:
                        with contextlib.suppress(Exception):
                            conn.close()
                    conn = None
                    threading.Event().wait(delay)
                    delay = min(delay * 2, 2.0)
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
