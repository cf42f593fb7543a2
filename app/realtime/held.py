"""A socket's move on the event loop (PostgreSQL): no thread, one round trip.

The move of a game this process wrote last is decided from memory (``play.held_move``:
CPU only, about a millisecond) and written by ONE statement (``gamelog._HELD_WRITE``),
here on a small pool of autocommit ``psycopg.AsyncConnection``s: the loop serves other
sockets while the statement runs, and no thread is woken for it. The ack is queued and
the change published as soon as the statement answers.

Whatever this path does not write (nothing held at that version, a refusal, a move that
is not plain, another process first, a lost connection) goes on to the ordinary path in
the thread pool (``ServiceSource.submit``), which decides and answers it. A lost
connection mid-statement is safe to hand on: the ordinary path finds the move under its
idempotency key if it was committed, and applies it if not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import psycopg

log = logging.getLogger("app.realtime.held")

#: statements in flight at once (each holds one connection)
POOL_SIZE = 4


class HeldWriter:
    """The pool of connections for the held moves of this process's sockets."""

    def __init__(self, dsn: str, size: int = POOL_SIZE) -> None:
        self.dsn = dsn
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._slots = asyncio.Semaphore(size)
        self.stats = {"written": 0, "declined": 0, "failed": 0}

    async def write(self, move: Any, expected: int) -> str | None:
        """``gamelog.write_held_async`` of `move` (a ``play.HeldMove``): the new digest,
        or None when nothing was written (or the connection failed)."""
        from app.services import gamelog

        async with self._slots:
            conn = self._idle.pop() if self._idle else None
            try:
                if conn is None:
                    conn = await psycopg.AsyncConnection.connect(self.dsn, autocommit=True)
                written = await gamelog.write_held_async(
                    conn, move.game, expected, move.digest, move.appends
                )
            except psycopg.Error as exc:
                self.stats["failed"] += 1
                log.warning(
                    "held write of game %s failed (%s): the ordinary path", move.game.id, exc
                )
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
                return None
            self._idle.append(conn)
        self.stats["written" if written is not None else "declined"] += 1
        return written

    async def close(self) -> None:
        while self._idle:
            with contextlib.suppress(Exception):
                await self._idle.pop().close()
