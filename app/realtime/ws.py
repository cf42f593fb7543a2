"""``/ws/games/{id}``: the game's websocket (full protocol: docs/realtime.md).

Authentication: the session cookie of the site (same lookup as the HTTP API). A
seated user gets their seat's view; anyone else gets the public (spectator) view of a
public game; a private game refuses them (handshake answered 403). A cross-site
``Origin`` is refused too (the cookie would otherwise ride along).

All messages are JSON objects with a ``type``.

client -> server
  {"type":"hello","last_seq":N|null}        first message; again at any time to resync
  {"type":"action","action":{...},"expected_version":V,"idempotency_key":"…","req_id":R}
  {"type":"ping"} | {"type":"pong"}

server -> client
  {"type":"sync","since":N,"events":[…],"last_seq":M, version, seat, status, view,
   legal_actions, prompts}                   the events after N this seat may see + now
  {"type":"state","events":[tail],"last_seq":M, version, seat, status, view,
   legal_actions, prompts}                   full state (unknown / too far behind)
  {"type":"update","events":[new],"last_seq":M, version, seat, status, view,
   legal_actions, prompts}                   after every change of the game
  {"type":"ack","req_id":R,"version":V}      the action was applied (or was a retry)
  {"type":"error","req_id":R,"status":409|422|403|404|400,"reason":"…",
   "current_version":V?}                     same status and reason as the HTTP API
  {"type":"ping"} every settings.ws_heartbeat_s; {"type":"pong"} answers a client ping
  {"type":"chat","message":{…}}             a chat line (when the platform publishes chat)

Close codes: 4401 not logged in (private game), 4403 no access, 4404 no such game,
4408 heartbeat missed, 4429 too slow (send queue full), 1012 server restarting.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from app import realtime
from app.realtime.hub import Connection, encode
from app.realtime.source import session_cookie_name

log = logging.getLogger("app.realtime.ws")


@asynccontextmanager
async def _lifespan(app: Any) -> AsyncIterator[None]:
    # FastAPI merges an included router's lifespan into the app's: including this
    # router is all create_app needs to do to run realtime.
    async with realtime.realtime_lifespan(app):
        yield None


router = APIRouter(lifespan=_lifespan)

# The first message must be a hello within this many seconds.
HELLO_TIMEOUT_S = 15.0
# An action's req_id / idempotency_key are echoed back; keep them small.
MAX_MESSAGE_BYTES = 64 * 1024


# Actions arriving on sockets run at most this many at a time. Under load this keeps
# CPU for fanning out what was already committed (commit -> receipt stays short) and
# makes new actions wait their turn instead.
SUBMIT_CONCURRENCY = 4
_limiter: anyio.CapacityLimiter | None = None


def _submit_limiter() -> anyio.CapacityLimiter:
    global _limiter
    if _limiter is None:
        _limiter = anyio.CapacityLimiter(SUBMIT_CONCURRENCY)
    return _limiter


def _same_origin(websocket: WebSocket, base_url: str) -> bool:
    """The page's origin is this site (its Host, or the configured public base URL)."""
    origin = websocket.headers.get("origin")
    if not origin:
        return True  # non-browser clients send none; browsers always do
    netloc = urlsplit(origin).netloc.lower()
    host = websocket.headers.get("host", "").lower()
    return netloc == host or netloc == urlsplit(base_url).netloc.lower()


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: int) -> None:
    rt = realtime.runtime()
    if rt is None:
        await websocket.close(code=1011, reason="realtime not running")
        return
    if not _same_origin(websocket, rt.settings.base_url):
        await websocket.close(code=4403, reason="cross-site socket refused")
        return
    token = websocket.cookies.get(session_cookie_name())
    access = await run_in_threadpool(rt.source.open_access, game_id, token)
    if access.error is not None:
        # Before accept(): the handshake is answered with HTTP 403.
        await websocket.close(code=access.error[0], reason=access.error[1])
        return
    await websocket.accept()
    conn = rt.hub.connection(game_id, access.user_id)
    conn.seat = access.seat
    session = _Session(websocket, conn, rt.settings.ws_heartbeat_s, token)
    try:
        await session.run()
    finally:
        rt.hub.leave(conn)


class _Session:
    """One open socket: a reader, the hub's writer and a heartbeat, until one ends."""

    def __init__(
        self, websocket: WebSocket, conn: Connection, heartbeat_s: float, token: str | None
    ) -> None:
        self.ws = websocket
        self.token = token  # re-checked on every action: a logged-out session cannot act
        self.conn = conn
        self.heartbeat_s = heartbeat_s
        self.last_heard = time.monotonic()
        self.close_code = 1000
        self.close_reason = ""

    async def run(self) -> None:
        rt = realtime.runtime()
        assert rt is not None
        tasks = {
            asyncio.create_task(self._read(rt.hub), name="ws-read"),
            asyncio.create_task(self.conn.pump(self.ws), name="ws-write"),
            asyncio.create_task(self._heartbeat(), name="ws-heartbeat"),
            asyncio.create_task(self.conn.dropped.wait(), name="ws-dropped"),
        }
        try:
            done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                exc = task.exception() if not task.cancelled() else None
                if exc is not None and not isinstance(exc, WebSocketDisconnect):
                    log.debug("socket task %s ended: %r", task.get_name(), exc)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            if self.conn.drop_reason is not None and self.close_code == 1000:
                reason = self.conn.drop_reason
                if "slow" in reason:
                    self.close_code = 4429
                elif "shutting down" in reason:
                    self.close_code = 1012  # service restart: come back soon
                else:
                    self.close_code = _code_of(reason)
                self.close_reason = reason[:120]
            with contextlib.suppress(Exception):
                # A peer that never reads may never take the close frame: do not wait on it.
                await asyncio.wait_for(self.ws.close(self.close_code, self.close_reason), 1.0)

    async def _read(self, hub: Any) -> None:
        # The first message is the hello; anything else first counts as "hello, I know nothing".
        try:
            first = await asyncio.wait_for(self.ws.receive_text(), HELLO_TIMEOUT_S)
        except TimeoutError:
            self.close_code, self.close_reason = 4408, "no hello"
            return
        self.last_heard = time.monotonic()
        message = _parse(first)
        if message is not None and message.get("type") == "hello":
            hub.join(self.conn, _int(message, "last_seq"), _int(message, "last_chat_id"))
        else:
            hub.join(self.conn, None)
        if message is not None and message.get("type") != "hello":
            await self._handle(hub, message)
        while True:
            text = await self.ws.receive_text()
            self.last_heard = time.monotonic()
            if len(text) > MAX_MESSAGE_BYTES:
                self._send({"type": "error", "status": 413, "reason": "message too large"})
                continue
            message = _parse(text)
            if message is None:
                self._send({"type": "error", "status": 400, "reason": "not a JSON object"})
                continue
            await self._handle(hub, message)

    async def _handle(self, hub: Any, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "hello":
            hub.join(self.conn, _int(message, "last_seq"), _int(message, "last_chat_id"))
        elif kind == "ping":
            self._send({"type": "pong"})
        elif kind == "pong":
            pass
        elif kind == "action":
            await self._action(message)
        else:
            self._send(
                {
                    "type": "error",
                    "req_id": message.get("req_id"),
                    "status": 400,
                    "reason": f"unknown message type {kind!r}",
                }
            )

    async def _action(self, message: dict[str, Any]) -> None:
        req_id = message.get("req_id")
        if self.conn.user_id is None:
            self._send(
                {"type": "error", "req_id": req_id, "status": 403, "reason": "log in to play"}
            )
            return
        rt = realtime.runtime()
        if rt is None:
            return
        result = await anyio.to_thread.run_sync(
            rt.source.submit,
            self.conn.game_id,
            self.conn.user_id,
            message,
            self.token,
            limiter=_submit_limiter(),
        )
        reply: dict[str, Any] = {"req_id": req_id, **result}
        self._send(reply)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            if time.monotonic() - self.last_heard > 2 * self.heartbeat_s + 1:
                self.close_code, self.close_reason = 4408, "heartbeat missed"
                return
            self._send({"type": "ping"})

    def _send(self, message: dict[str, Any]) -> None:
        self.conn.offer(encode(message))


def _parse(text: str) -> dict[str, Any] | None:
    try:
        message = json.loads(text)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _int(message: dict[str, Any], key: str) -> int | None:
    value = message.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _code_of(reason: str) -> int:
    head = reason.split(" ", 1)[0]
    return int(head) if head.isdigit() and 4000 <= int(head) < 5000 else 1011
