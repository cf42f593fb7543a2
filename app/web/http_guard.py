"""The HTTP connection's own limits, below the application: uvicorn's httptools protocol
with the timeouts and the per-address cap a server on the internet needs.

uvicorn holds a connection open as long as its peer likes while a request is half sent
(a head without its blank line, a body shorter than its ``Content-Length``): a few
hundred such sockets from one address hold the process's file descriptors and memory
(issue 29: held 15-20 s and more). Here:

- **head**: a request's head (request line and headers) must be complete within
  ``HTTP_HEADER_TIMEOUT_S`` of its first byte, and a new connection must send one within
  as long: else 408 (``request_timeout``) and the connection is closed (a connection
  that sent nothing is just closed);
- **body**: the body must be complete within ``HTTP_BODY_TIMEOUT_S`` of the head: else
  408 and close, and the application sees a disconnect (nothing is applied);
- **connections per address**: at most ``HTTP_CONNECTIONS_PER_ADDRESS`` open at once
  from one peer address; one more is answered 429 (``too_many_connections``) and
  closed. The trusted proxies (``TRUSTED_PROXIES``) are not capped: behind one, every
  client's connection comes from its address (the per-client limits then key on the
  ``X-Forwarded-For`` address it vouches for, see ``app/services/ratelimit.py``).

Idle keep-alive connections are closed after ``HTTP_KEEPALIVE_S`` by uvicorn itself.
The class is named to uvicorn by ``imperial-glory serve`` (``app/web/serve.py``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.config import get_settings, is_trusted, parse_networks

log = logging.getLogger(__name__)


def _answer(status: int, reason: str, detail: str, code: str, extra: str = "") -> bytes:
    body = json.dumps({"detail": detail, "code": code}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n{extra}\r\n"
    )
    return head.encode() + body


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol plus the head and body timeouts and the cap on
    connections per address (see the module's docstring)."""

    #: open connections per peer address, in this process
    open_by_address: ClassVar[Counter[str]] = Counter()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = get_settings()
        self.head_timeout = settings.http_header_timeout_s
        self.body_timeout = settings.http_body_timeout_s
        self.per_address = settings.http_connections_per_address
        self.trusted = parse_networks(settings.trusted_proxies)
        self.guard: asyncio.TimerHandle | None = None
        self.counted: str | None = None
        self.began = False  # a request's first byte arrived and its head is not complete

    # -- the connection ---------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if host and self.per_address and not is_trusted(host, self.trusted):
            if self.open_by_address[host] >= self.per_address:
                log.info("429: %s has %d connections open already", host, self.per_address)
                detail = f"Too many connections from your address (at most {self.per_address})."
                transport.write(
                    _answer(
                        429,
                        "Too Many Requests",
                        detail,
                        "too_many_connections",
                        "retry-after: 5\r\n",
                    )
                )
                transport.close()
                return
            self.open_by_address[host] += 1
            self.counted = host
        self._arm(self.head_timeout, self._head_expired)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._uncount()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self) -> None:
        # The socket is the websocket protocol's from now on (capped per user and per
        # address by app/realtime/ws.py): this one's timers and count end here.
        self._disarm()
        self._uncount()
        super().handle_websocket_upgrade()

    # -- the request ------------------------------------------------------------------
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.began = True
        self._arm(self.head_timeout, self._head_expired)

    def on_headers_complete(self) -> None:
        self.began = False
        self._arm(self.body_timeout, self._body_expired)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    # -- the timers -------------------------------------------------------------------
    def _arm(self, seconds: float, then: Any) -> None:
        self._disarm()
        if seconds > 0:
            self.guard = self.loop.call_later(seconds, then)

    def _disarm(self) -> None:
        if self.guard is not None:
            self.guard.cancel()
            self.guard = None

    def _uncount(self) -> None:
        if self.counted is not None:
            self.open_by_address[self.counted] -= 1
            if self.open_by_address[self.counted] <= 0:
                del self.open_by_address[self.counted]
            self.counted = None

    def _head_expired(self) -> None:
        self.guard = None
        if self.transport.is_closing():
            return
        if self.began:
            who = self.client[0] if self.client else "?"
            log.info("408: %s sent no whole request head in %s s", who, self.head_timeout)
            detail = f"The request's headers did not arrive within {self.head_timeout:g} s."
            self.transport.write(_answer(408, "Request Timeout", detail, "request_timeout"))
        self.transport.close()

    def _body_expired(self) -> None:
        self.guard = None
        cycle = self.cycle
        if self.transport.is_closing() or cycle is None or cycle.response_complete:
            return
        if not cycle.more_body:
            return  # the whole body came: the application is answering
        who = self.client[0] if self.client else "?"
        log.info("408: %s sent no whole request body in %s s", who, self.body_timeout)
        started = cycle.response_started
        cycle.disconnected = True  # the application sees a disconnect; its answer is dropped
        cycle.message_event.set()
        if not started:
            detail = f"The request's body did not arrive within {self.body_timeout:g} s."
            self.transport.write(_answer(408, "Request Timeout", detail, "request_timeout"))
        self.transport.close()
