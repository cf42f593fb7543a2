"""Realtime play: websockets, fan-out across processes (docs/realtime.md).

``publish(game_id, version)`` is the one hook the rest of the app calls: the owner of
a transaction that changed a game calls it *after commit*. It is thread-safe, never
blocks, and is a no-op when no realtime runtime is running (CLI, unit tests). It lives
in the services (``app/services/publisher.py``), which never import this package: the
runtime installs itself there while it runs.

``realtime_lifespan(app)`` starts and stops the runtime inside the web app's lifespan:
the hub on this event loop, the bot worker (``bots.py``), and on PostgreSQL the LISTEN
connection and the NOTIFY sender thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from app.config import Settings, get_settings
from app.realtime.bots import BotWorker
from app.realtime.hub import Hub
from app.realtime.pg import PgListener, PgPublisher, libpq_dsn
from app.realtime.presence import Tracker
from app.realtime.source import ServiceSource
from app.services import logins, publisher
from app.services.publisher import ENDED_REASON, origin, publish
from app.store.db import loop_engine, make_engine, make_sessionmaker

__all__ = ["Runtime", "origin", "publish", "realtime_lifespan", "runtime"]

log = logging.getLogger("app.realtime")


@dataclass
class Runtime:
    """What runs while the web app serves: the hub and, on PostgreSQL, LISTEN/NOTIFY."""

    hub: Hub
    loop: asyncio.AbstractEventLoop
    settings: Settings
    source: Any  # app.realtime.source.ServiceSource
    listener: Any = None  # PgListener | None
    publisher: Any = None  # PgPublisher | None
    bots: Any = None  # app.realtime.bots.BotWorker | None
    #: who holds sockets here (app/realtime/presence.py)
    presence: Any = None  # Tracker | None
    #: names this process in its NOTIFY payloads, so that its listener drops them
    origin: str = ""
    #: set by ``drain`` (SIGTERM): sockets take no new action, and new sockets are closed
    draining: bool = False
    #: socket actions being applied (ws.py counts them), and when none is
    actions: int = 0
    _idle: asyncio.Event = field(default_factory=asyncio.Event)

    def action_started(self) -> None:
        self.actions += 1
        self._idle.clear()

    def action_ended(self) -> None:
        self.actions -= 1
        if self.actions <= 0:
            self._idle.set()

    async def drain(self, deadline: float) -> None:
        """Stop this process's part of the realtime play before it exits (SIGTERM,
        app/web/graceful.py); returns by `deadline` (the loop's clock) at the latest.

        1. Sockets take no new action (one that arrives now is left unanswered: the
           client sends it again after reconnecting, with its idempotency key, and it is
           applied once) and a new socket is closed at once; nobody's presence row is
           marked left as the sockets close: they stay open until they expire
           (``presence.STALE_S``), so a restart does not make anyone "gone".
        2. The actions being applied finish and their answers are queued.
        3. Every socket is sent what it has queued, then closed with 1012 and
           ``RESTART_REASON``: the page reconnects (to another instance behind a
           balancer) and resyncs from the version it holds.
        4. The bots' moves in flight are committed and published; one still thinking
           at the deadline is abandoned, not committed (bots.py).
        """
        loop = asyncio.get_running_loop()
        self.draining = True
        if self.presence is not None:
            await self.presence.drain()
        if self.actions > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), max(deadline - loop.time(), 0.0))
        closing = self.hub.finish_all(RESTART_CODE, RESTART_REASON)
        log.info("draining: closed %d sockets with %d", closing, RESTART_CODE)
        await self.hub.emptied(min(deadline, loop.time() + CLOSE_WAIT_S))
        if self.bots is not None:
            await self.bots.drain(deadline)

    def publish(self, game_id: int, version: int, notified: bool = False) -> None:
        # Our own hub is told directly (fastest); other processes learn from NOTIFY,
        # which our listener drops (it names us). `notified`: the change's own statement
        # sent the NOTIFY (``heldwrite.write_held``).
        self.hub.notify_threadsafe(game_id, version, time.time())
        if self.publisher is not None and not notified:
            self.publisher.publish(game_id, version, self.source.change(game_id, version))
        if self.bots is not None and self._bot_due(game_id, version):
            self.bots.notify_threadsafe(game_id)

    def end_sockets(self, user_id: int, reason: str = ENDED_REASON) -> None:
        """Close `user_id`'s sockets in this process (her account was suspended: the
        publisher's ``end_sockets``); safe from any thread."""
        with contextlib.suppress(RuntimeError):  # loop closing
            self.loop.call_soon_threadsafe(self.hub.drop_user, user_id, reason)

    def _bot_due(self, game_id: int, version: int) -> bool:
        """Whether the bot worker should look at this change: not when this process
        made it and knows no bot is prompted (the common case of a person's move)."""
        held = self.source.frame(game_id)
        return held is None or held[0].version != version or held[0].server_turn


#: the close code and reason of every socket when the process stops (RFC 6455: 1012,
#: "service restart"); the page reconnects at once (static/js/live.js)
RESTART_CODE = 1012
RESTART_REASON = "server restarting: reconnecting"
#: how long a drain waits for the sockets it closed to be gone
CLOSE_WAIT_S = 2.0

_runtime: Runtime | None = None


def runtime() -> Runtime | None:
    return _runtime


@asynccontextmanager
async def realtime_lifespan(app: Any = None) -> AsyncIterator[Runtime]:
    """Run the realtime runtime for the duration of the block (the app's lifespan).

    Uses the app's settings and session factory (``app.state``) when it has them."""
    global _runtime
    state = getattr(app, "state", None)
    settings: Settings = getattr(state, "settings", None) or get_settings()
    factory = getattr(state, "sessionmaker", None)
    if factory is None:
        factory = make_sessionmaker(make_engine(settings.database_url, **settings.pool_options))
    loop_db = loop_engine(factory.kw["bind"]) if factory.kw.get("bind") is not None else None
    source = ServiceSource(factory, make_sessionmaker(loop_db) if loop_db is not None else None)
    loop = asyncio.get_running_loop()
    hub = Hub(source, queue_size=settings.ws_queue_size)
    hub.bind(loop)
    rt = Runtime(hub=hub, loop=loop, settings=settings, source=source)
    if not settings.is_sqlite:
        dsn = libpq_dsn(settings.database_url)
        rt.origin = secrets.token_hex(6)
        rt.listener = PgListener(
            dsn,
            on_notify=hub.notify_remote,
            on_reconnect=hub.resync_all,
            origin=rt.origin,
            on_change=source.heard,
            on_ended=lambda user_id: hub.drop_user(user_id, ENDED_REASON),
        )
        await rt.listener.start()
        rt.publisher = PgPublisher(dsn, origin=rt.origin)
        rt.publisher.start()
        logins.on_logout.append(rt.publisher.publish_logout)
    rt.bots = BotWorker(
        factory,
        publish,
        think_timeout_s=settings.bot_think_timeout_s,
        sweep_s=settings.bot_sweep_s,
    )
    rt.presence = Tracker(factory, rt.origin)
    previous, _runtime = _runtime, rt
    previous_publisher = publisher.install(rt)
    if state is not None:
        state.realtime = rt
    await rt.bots.start()
    rt.presence.start()
    try:
        yield rt
    finally:
        await rt.presence.stop()
        await rt.bots.stop()
        _runtime = previous
        publisher.install(previous_publisher)
        if rt.listener is not None:
            await rt.listener.stop()
        if rt.publisher is not None:
            with contextlib.suppress(ValueError):
                logins.on_logout.remove(rt.publisher.publish_logout)
            await asyncio.to_thread(rt.publisher.stop)
        await hub.close()
        if loop_db is not None:
            loop_db.dispose()
