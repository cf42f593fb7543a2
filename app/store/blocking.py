"""Where a blocking database call runs: on the event loop, or in a worker thread.

SQLite is a library inside this process. A statement is a function call of a few
microseconds with no network to wait on, and a whole submit (lock, append, commit) is
about a millisecond of CPU. Handing that to a worker thread costs more than it saves:
a thread wakes, the GIL changes hands twice, and threads that all want the one GIL
queue behind each other (the convoy that made the HTTP API's p99 ten times its p50).
So with SQLite the hot calls run on the loop itself, as Rally the Troops runs its
SQLite calls on its one thread.

The loop must never wait for SQLite's write lock, though: another writer (the bot
worker's thread, a lobby request in the pool, another process) may hold it, and
SQLite's busy handler sleeps until it is free, which would stop every socket of the
process. So a write begun on the loop does not wait (``begin_immediate``): when the
lock is taken it raises `Busy` before anything is read or written, and `call` runs the
whole call again in the thread pool, where waiting is harmless.

PostgreSQL is a server behind a socket: a statement waits a round trip, and a
transaction that locks a row may wait for another writer's as long as that one takes,
so its calls go to the thread pool, with one exception: a socket's move of a game this
process holds (``heldwrite``), which is ONE autocommitted statement that never waits
for a lock (it takes the row ``NOWAIT``). Its round trip is the commit's, a fraction of
a millisecond on the same machine, and the thread pool's hand-off cost more CPU than
the move's own write: the wake-up of a worker thread and the two threads' fight for
the GIL while the loop pushes other games (docs/performance.md, "Where the calls
run"). So it runs on the loop, on a connection of the loop's own (``loop_engine``):
the pool's connections may all be out to the threads, and the loop must never wait
for one. Anything else such a call would do that could wait (a locking read: the
transaction path's ``begin_write``) raises `Busy` before it has written anything, and
the call runs again in the pool, as SQLite's does.

`bench/api_actions.py` and `bench/ws_fanout.py` measure the difference
(docs/performance.md).
"""

from __future__ import annotations

import contextvars
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread

T = TypeVar("T")

#: set while a call runs on the loop (`call`)
_ON_LOOP: contextvars.ContextVar[bool] = contextvars.ContextVar("ig_on_loop", default=False)


class Busy(Exception):
    """SQLite's write lock is held elsewhere and this call runs on the loop, which must
    not wait: `call` runs it again in the thread pool. Raised before the call has read or
    written anything."""


def on_loop() -> bool:
    """Whether this call runs on the event loop (`call` with `on_loop`)."""
    return _ON_LOOP.get()


def refuse_on_loop(why: str) -> None:
    """Raise `Busy` when this call runs on the loop: what comes next could wait (a
    database server's lock), so the call runs again in the thread pool."""
    if _ON_LOOP.get():
        raise Busy(why)


def inline(bind: Any) -> bool:
    """Whether calls on `bind` (an engine, connection, session or session factory)
    run on the loop: SQLite's do, a database server's do not."""
    if bind is None:
        return False
    get_bind = getattr(bind, "get_bind", None)  # a Session
    if get_bind is not None:
        bind = get_bind()
    kw = getattr(bind, "kw", None)  # a sessionmaker
    if isinstance(kw, dict):
        bind = kw.get("bind")
    dialect = getattr(bind, "dialect", None)
    return getattr(dialect, "name", None) == "sqlite"


async def call(
    on_loop: bool,
    fn: Callable[..., T],
    *args: Any,
    limiter: anyio.CapacityLimiter | None = None,
) -> T:
    """``fn(*args)`` on the loop when `on_loop`, else in anyio's thread pool (under
    `limiter`, if given). A call on the loop that would wait (`Busy`: SQLite's write
    lock taken, a database server's row lock needed) is run again in the pool."""
    if on_loop:
        token = _ON_LOOP.set(True)
        try:
            return fn(*args)
        except Busy:
            pass
        finally:
            _ON_LOOP.reset(token)
    return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)


def begin_immediate(raw: sqlite3.Connection, busy_timeout_ms: int) -> None:
    """``BEGIN IMMEDIATE`` on a raw SQLite connection: on the loop without waiting for
    the write lock (`Busy` if another connection holds it), elsewhere waiting up to the
    connection's busy timeout."""
    if not _ON_LOOP.get():
        raw.execute("BEGIN IMMEDIATE")
        return
    raw.execute("PRAGMA busy_timeout=0")
    try:
        raw.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise Busy(str(exc)) from exc
        raise
    finally:
        raw.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
