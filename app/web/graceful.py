"""What a SIGTERM does to a serving process: a graceful stop, for rolling restarts
(docs/deploy.md, "Rolling restarts").

uvicorn's own shutdown closes the listening socket and then at once closes every
websocket (1012, no reason), which loses the answer to an action a socket was applying;
only then does it wait for the HTTP requests in flight and run the app's lifespan stop.
``GracefulServer`` puts the app's drain between the two:

1. **stop accepting**: the listening socket closes (a balancer takes "connection
   refused" as a failed upstream and tries the next one); idle keep-alive HTTP
   connections close now, a busy one once its answer is sent;
2. **drain the app**, through the hooks its lifespan registered (``on_drain``;
   app/web/app.py): the socket actions in flight are applied and answered, every socket
   is closed with 1012 and a reason (the page reconnects elsewhere and resends what was
   not answered, with the same idempotency key), the clocks' loop ends its pass, the
   bots' moves in flight are committed, and one still thinking at the deadline is
   dropped uncommitted (the game row still says a bot is due: another process's sweep,
   or this one restarted, plays it);
3. **uvicorn's shutdown**: the HTTP requests in flight are answered within what is left
   of ``SHUTDOWN_GRACE_S``, then the lifespan stops the listeners, the NOTIFY sender
   and the pool.

A watchdog ends the process ``HARD_MARGIN_S`` after the grace if it is still alive (a
thread that would not return), so a restart takes a bounded time whatever happens.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn

log = logging.getLogger("app.web.graceful")

#: a drain hook: given the deadline (the running loop's clock), it returns once its part
#: of the process is drained, or when the deadline has passed
Drain = Callable[[float], Awaitable[None]]

#: after the grace, the process is ended by force this much later if still alive
HARD_MARGIN_S = 10.0
#: the exit status of a process the watchdog ended
HARD_EXIT_STATUS = 70

_hooks: list[Drain] = []


def on_drain(hook: Drain) -> Callable[[], None]:
    """Run `hook` when this process starts to stop (before uvicorn closes anything but
    the listening socket); returns the function that removes it again."""
    _hooks.append(hook)

    def remove() -> None:
        if hook in _hooks:
            _hooks.remove(hook)

    return remove


async def drain(deadline: float) -> None:
    """Run every registered hook, one after another, each bounded by `deadline`."""
    loop = asyncio.get_running_loop()
    for hook in list(_hooks):
        left = deadline - loop.time()
        try:
            await asyncio.wait_for(hook(deadline), timeout=max(left, 0.05))
        except TimeoutError:
            log.warning("drain: %s did not finish within the grace", _name(hook))
        except Exception:
            log.exception("drain: %s failed", _name(hook))


def _name(hook: Drain) -> str:
    return getattr(hook, "__qualname__", repr(hook))


def _hard_exit(after_s: float) -> None:
    log.error("still running %.0fs after SIGTERM: exiting now", after_s)
    logging.shutdown()
    os._exit(HARD_EXIT_STATUS)


def watchdog(after_s: float) -> threading.Timer:
    """End this process `after_s` seconds from now unless it has exited by then."""
    timer = threading.Timer(after_s, _hard_exit, args=(after_s,))
    timer.daemon = True  # never what keeps the process alive
    timer.start()
    return timer


def _websocket(connection: Any) -> bool:
    # uvicorn's websocket protocols, and serve's subclass of one (app/web/ws_protocol.py)
    return any(".websockets." in cls.__module__ for cls in type(connection).__mro__)


class GracefulServer(uvicorn.Server):
    """uvicorn's server, draining the app before it closes the sockets."""

    def __init__(self, config: uvicorn.Config, grace_s: float) -> None:
        super().__init__(config)
        self.grace_s = grace_s
        self._drained = False

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if not self._drained and not self.force_exit:
            self._drained = True
            await self.drain(sockets)
        await super().shutdown(sockets=sockets)

    async def drain(self, sockets: list[socket.socket] | None = None) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace_s
        watchdog(self.grace_s + HARD_MARGIN_S)
        log.info("Stopping: no new connections; draining for at most %.1fs", self.grace_s)
        for server in getattr(self, "servers", []):
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            if not _websocket(connection):
                connection.shutdown()  # idle: closed now; busy: after its answer
        await drain(deadline)
        # uvicorn's own wait for the HTTP requests in flight gets what is left
        self.config.timeout_graceful_shutdown = max(1, round(deadline - loop.time()))
