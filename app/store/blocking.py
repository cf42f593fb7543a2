"""Where a blocking database call runs: on the event loop, or in a worker thread.

SQLite is a library inside this process. A statement is a function call of a few
microseconds with no network to wait on, and a whole submit (lock, append, commit) is
about a millisecond of CPU. Handing that to a worker thread costs more than it saves:
a thread wakes, the GIL changes hands twice, and threads that all want the one GIL
queue behind each other (the convoy that made the HTTP API's p99 ten times its p50).
So with SQLite the hot calls run on the loop itself, as Rally the Troops runs its
SQLite calls on its one thread. A writer in another thread (the bot worker, a reload)
holds SQLite's write lock for about a millisecond; waiting for it releases the GIL.

PostgreSQL is a server behind a socket: every statement waits a round trip, and that
wait must not stop the loop, so its calls go to the thread pool.

`bench/api_actions.py` and `bench/ws_fanout.py` measure the difference
(docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread

T = TypeVar("T")


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
    `limiter`, if given)."""
    if on_loop:
        return fn(*args)
    return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)
