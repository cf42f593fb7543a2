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
from dataclasses import dataclass
from typing import Any

from app.config import Settings, get_settings
from app.realtime.bots import BotWorker
from app.realtime.hub import Hub
from app.realtime.pg import PgListener, PgPublisher, libpq_dsn
from app.realtime.presence import Tracker
from app.realtime.source import ServiceSource
from app.services import logins, publisher
from app.services.publisher import ENDED_REASON, origin, publish
from app.store.db import make_engine, make_sessionmaker

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
    source = ServiceSource(factory)
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
