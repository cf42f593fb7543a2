"""uvicorn's sans-I/O websocket protocol with lighter per-socket parts.

uvicorn's ``WebSocketsSansIOProtocol`` keeps, for every open socket, an
``asyncio.Queue`` of the messages the app has not received yet (three deques and an
``asyncio.Event`` with a fourth: ~3 KB before a message is queued) and an
``asyncio.Event`` for "the transport may be written to" (a fifth deque). A socket has
one reader (the app's ``receive``) and at most a writer or two waiting on the gate, so
plain lists do: ~4 KB less a socket. It also lets go of the handshake's request and
response once they are answered (~3 KB more). Together a fifth of what a socket cost
(docs/performance.md, "Memory").

It also offers the app a synchronous write of a text frame (``write_now``, in the
scope's ``extensions`` under ``WRITE_NOW``): the hub writes an update to a socket that
has nothing queued straight onto its transport, instead of waking the socket's writer
task to go through Starlette's and this protocol's ``send`` (docs/realtime.md, "The
writer"). Everything else is uvicorn's, unchanged.

``imperial-glory serve`` runs it for ``WS_PROTOCOL=websockets-sansio`` (the default;
``app/web/serve.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from app.realtime.hub import WRITE_NOW


class Inbox:
    """What ``asyncio.Queue`` (unbounded) did here: ``put_nowait``, ``get``, ``empty``."""

    __slots__ = ("_items", "_getters")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._getters: list[asyncio.Future[None]] = []

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        for getter in self._getters:
            if not getter.done():
                getter.set_result(None)
                break

    async def get(self) -> Any:
        while not self._items:
            getter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._getters.append(getter)
            try:
                await getter
            finally:
                self._getters.remove(getter)
        item = self._items.pop(0)
        if self._items and self._getters:  # another reader waits and there is more
            for getter in self._getters:
                if not getter.done():
                    getter.set_result(None)
                    break
        return item

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)


class Gate:
    """What ``asyncio.Event`` did here: ``set``, ``clear``, ``is_set``, ``wait``."""

    __slots__ = ("_open", "_waiters")

    def __init__(self) -> None:
        self._open = False
        self._waiters: list[asyncio.Future[None]] = []

    def set(self) -> None:
        self._open = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._open = False

    def is_set(self) -> bool:
        return self._open

    async def wait(self) -> bool:
        if self._open:
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            self._waiters.remove(waiter)


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` with an ``Inbox`` and a ``Gate`` in place of its
    queue and its writable event (nothing has been queued or awaited yet when they are
    swapped: the handshake has not been read), and without the handshake's request and
    response once the handshake is answered (their headers, ~3 KB, were kept for the
    socket's life and never read again: the app reads the request from its scope)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue: Any = Inbox()
        writable = Gate()
        if self.writable.is_set():
            writable.set()
        self.writable: Any = writable

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][WRITE_NOW] = self.write_now

    def write_now(self, text: str) -> bool:
        """Write `text` as a frame now, as ``send`` writes a ``websocket.send`` message,
        when it can be written at once: the handshake answered, no close sent or
        received, the transport not paused (then ``send`` would wait). False when it
        was not written: the caller sends it the ordinary way."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        try:
            self.conn.send_text(text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    async def send(self, message: Any) -> None:
        await super().send(message)
        if self.handshake_complete and getattr(self, "response", None) is not None:
            self.request = self.response = None  # type: ignore[assignment]
