"""``/ws/games/{id}``: the game's websocket (full protocol: docs/realtime.md).

Authentication: the session cookie of the site (same lookup as the HTTP API). A
seated user gets their seat's view; anyone else gets the public (spectator) view of a
public game; a private game refuses them (handshake answered 403). A cross-site
``Origin`` is refused too (the cookie would otherwise ride along).

All messages are JSON objects with a ``type``.

client -> server
  {"type":"hello","last_seq":N|null,"patches":true?}  first message; again at any time to
                                            resync; "patches": updates may be patches
  {"type":"action","action":{...},"expected_version":V,"idempotency_key":"…","req_id":R}
  {"type":"ping"} | {"type":"pong"}

server -> client
  {"type":"sync","since":N,"events":[…],"last_seq":M, version, seat, status, view,
   legal_actions, prompts}                   the events after N this seat may see + now
  {"type":"state","events":[tail],"last_seq":M, version, seat, status, view,
   legal_actions, prompts}                   full state (unknown / too far behind)
  {"type":"update","events":[new],"last_seq":M, version, seat, status, view,
   legal_actions, prompts}                   after every change of the game
  {"type":"update","events":[new],"last_seq":M,"base":B,"version":V,"patch":[[path,value],…]}
                                            the same, as the changes to the fields of
                                            version B (patches asked for and B held)
  {"type":"ack","req_id":R,"version":V,"replayed":B}  the action was applied (or was a retry)
  {"type":"error","req_id":R,"status":4xx,"code":"…","reason":"…","field":F?,
   "current_version":V?}                     same status, code and reason as the HTTP API
  {"type":"ping"} every settings.ws_heartbeat_s; {"type":"pong"} answers a client ping
  {"type":"chat","message":{…}}             a chat line (when the platform publishes chat)

Close codes: 1003 binary frame, 1009 frame over MAX_MESSAGE_BYTES (each after an
``error``), 1011 server error, 1012 server restarting (SIGTERM: the answers to the
actions being applied are sent first; an action sent later is not answered, and the
client sends it again after reconnecting, same idempotency key), 4401 not logged in (private
game), 4403 no access, 4404 no such game, 4408 heartbeat missed, 4429 too slow (send
queue full), 1013 too many sockets (per user or per address, docs/api.md "Limits").
Frames are parsed by app.services.inputs.parse_json (the HTTP bounds).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from app import realtime
from app.config import is_trusted, trusted_networks
from app.realtime.hub import WRITE_NOW, Connection, encode
from app.services import metrics, ratelimit
from app.services.inputs import MAX_DB_INT, BadJSON, parse_json
from app.services.logins import SESSION_COOKIE
from app.services.publisher import ENDED_REASON
from app.store import blocking

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


async def game_socket(websocket: WebSocket) -> None:
    game_id: int = websocket.path_params["game_id"]
    if not 1 <= game_id <= MAX_DB_INT:  # beyond the ids the database can hold
        await websocket.close(code=4404, reason="no such game")
        return
    rt = realtime.runtime()
    if rt is None:
        await websocket.close(code=1011, reason="realtime not running")
        return
    if not _same_origin(websocket, rt.settings.base_url):
        await websocket.close(code=4403, reason="cross-site socket refused")
        return
    token = websocket.cookies.get(SESSION_COOKIE)
    access = await run_in_threadpool(rt.source.open_access, game_id, token)
    if access.error is not None:
        # Before accept(): the handshake is answered with HTTP 403.
        await websocket.close(code=access.error[0], reason=access.error[1])
        return
    await websocket.accept()
    if rt.draining:  # stopping (SIGTERM): come back in a moment, to another instance
        await websocket.close(code=realtime.RESTART_CODE, reason=realtime.RESTART_REASON)
        return
    host = websocket.client.host if websocket.client else "unknown"
    address = ratelimit.address_key(host)
    refused = _too_many(access.user_id, host, address, rt.settings)
    if refused is not None:
        await websocket.close(code=1013, reason=refused)
        return
    open_by_user[access.user_id] += 1
    open_by_address[address] += 1
    metrics.SOCKETS.inc()
    try:
        conn = rt.hub.connection(game_id, access.user_id)
        conn.seat = access.seat
        conn.write = websocket.scope.get("extensions", {}).get(WRITE_NOW)
        session = _Session(websocket, conn, rt.settings.ws_heartbeat_s, token)
        seated = access.seat is not None and access.user_id is not None
        if seated:  # she is at the table (app/realtime/presence.py)
            await rt.presence.opened(game_id, access.user_id)
        try:
            await session.run()
        finally:
            rt.hub.leave(conn)
            if seated:
                await rt.presence.closed(game_id, access.user_id)
    finally:
        metrics.SOCKETS.dec()
        _forget(open_by_user, access.user_id)
        _forget(open_by_address, address)


#: the game socket's path: digits only, as Starlette's ``{game_id:int}`` matched them
SOCKET_PATH = re.compile(r"/ws/games/([0-9]+)")


class GameSockets:
    """Pure ASGI middleware, the outermost of the app's own (``create_app``): a
    websocket to ``/ws/games/{id}`` goes straight to ``game_socket``; anything else
    goes on. Not a route: a socket holds every frame between the server and its
    handler for as long as it lives, and the app's HTTP middleware, the exception
    middleware, the router, the route and its session wrapper are ~1 KB each of a
    socket's memory, with nothing to do for it (they pass a websocket on untouched).
    Any other websocket path reaches the router, which has no such route and refuses
    it before the handshake (HTTP 403)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            matched = SOCKET_PATH.fullmatch(scope["path"])
            if matched is not None:
                scope["path_params"] = {"game_id": int(matched.group(1))}
                await game_socket(WebSocket(scope, receive, send))
                return
        await self.app(scope, receive, send)


#: open sockets per user (None: spectators, counted by address only) and per address
#: (the client's, as the trusted proxies give it), in this process
open_by_user: Counter[int | None] = Counter()
open_by_address: Counter[str] = Counter()


def _too_many(user_id: int | None, host: str, address: str, settings: Any) -> str | None:
    """Why one more socket is refused (1013, after the handshake so that the browser
    sees the code and the reason), or None: at most ``WS_PER_USER`` per user and
    ``WS_PER_ADDRESS`` per client address (150 sockets of one user were all held, issue
    29). A trusted proxy's own address (a local process, the balancer's health check)
    is not capped: its clients are, by the address it names."""
    per_user, per_address = settings.ws_per_user, settings.ws_per_address
    if user_id is not None and per_user and open_by_user[user_id] >= per_user:
        return f"too many sockets: at most {per_user} per user; close a tab"
    trusted = is_trusted(host, trusted_networks(settings.trusted_proxies))
    if per_address and not trusted and open_by_address[address] >= per_address:
        return f"too many sockets: at most {per_address} per address"
    return None


def _forget(counts: Counter[Any], key: Any) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]


class _Session:
    """One open socket: a reader, the hub's writer and a heartbeat, until one ends."""

    __slots__ = (
        "ws",
        "token",
        "conn",
        "heartbeat_s",
        "last_heard",
        "close_code",
        "close_reason",
        "_over",
        "_timer",
        "_checking",
    )

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
        self._over: asyncio.Future[None] | None = None  # resolved when the session ends
        self._timer: asyncio.TimerHandle | None = None  # the next heartbeat
        self._checking: asyncio.Task[None] | None = None  # a heartbeat's suspension check

    async def run(self) -> None:
        """Two tasks, the reader and the hub's writer; the heartbeat is a timer and the
        hub's drop a callback, so that an idle socket holds two coroutines, not four
        and ``asyncio.wait``'s own waiters. The session ends with the first of them."""
        rt = realtime.runtime()
        assert rt is not None
        loop = asyncio.get_running_loop()
        self._over = loop.create_future()
        tasks = [
            asyncio.create_task(self._read(rt.hub), name="ws-read"),
            asyncio.create_task(self.conn.pump(self.ws), name="ws-write"),
        ]
        for task in tasks:
            task.add_done_callback(self._task_ended)
        self.conn.dropped.then(self._end)
        self._timer = loop.call_later(self.heartbeat_s, self._beat)
        try:
            await self._over
        finally:
            self._end()
            self.conn.dropped.then(None)
            if self._timer is not None:
                self._timer.cancel()
            if self._checking is not None:
                tasks.append(self._checking)
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            if self.conn.close_code is not None and self.close_code == 1000:
                self.close_code = self.conn.close_code  # Connection.finish: 1012, restarting
                self.close_reason = (self.conn.drop_reason or "")[:120]
            elif self.conn.drop_reason is not None and self.close_code == 1000:
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
            first = await asyncio.wait_for(self._receive(), HELLO_TIMEOUT_S)
        except TimeoutError:
            self.close_code, self.close_reason = 4408, "no hello"
            return
        if first is _CLOSE:
            await self._drain()
            return
        if first is not None and first.get("type") == "hello":
            self._hello(hub, first)
        else:
            hub.join(self.conn, None)
        if first is not None and first.get("type") != "hello":
            await self._handle(hub, first)
        while True:
            message = await self._receive()
            if message is _CLOSE:
                await self._drain()
                return
            if message is not None:
                await self._handle(hub, message)

    async def _receive(self) -> dict[str, Any] | None:
        """The next frame as a JSON object; None when it was refused with an `error`
        (the socket stays open); _CLOSE when it was refused and the socket must close
        (close_code set). Every refusal is logged."""
        frame = await self.ws.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        self.last_heard = time.monotonic()
        text = frame.get("text")
        if text is None:
            return self._refuse(
                400,
                "binary_frame",
                "binary frames are not part of the protocol: send JSON text",
                close=CLOSE_UNSUPPORTED,
            )
        if len(text) > MAX_MESSAGE_BYTES:
            return self._refuse(
                413,
                "message_too_large",
                f"a message is at most {MAX_MESSAGE_BYTES} bytes",
                close=CLOSE_TOO_BIG,
            )
        try:
            message = parse_json(text)
        except BadJSON as exc:
            code = "not_json" if exc.code == "malformed_json" else exc.code
            status = 400 if code == "not_json" else 422
            return self._refuse(status, code, str(exc), field=exc.field)
        if not isinstance(message, dict):
            return self._refuse(400, "not_an_object", "not a JSON object")
        if not isinstance(message.get("type"), str):
            return self._refuse(
                422,
                "invalid",
                "type: a message needs a string `type`",
                field="type",
                req_id=_req_id(message),
            )
        return message

    def _refuse(
        self,
        status: int,
        code: str,
        reason: str,
        close: int | None = None,
        field: str | None = None,
        req_id: Any = None,
    ) -> Any:
        log.warning(
            "ws game %s user %s: refused a frame (%s %s)%s",
            self.conn.game_id,
            self.conn.user_id,
            status,
            code,
            f", closing {close}" if close else "",
        )
        error: dict[str, Any] = {"type": "error", "status": status, "code": code, "reason": reason}
        if field:
            error["field"] = field
        if req_id is not None:
            error["req_id"] = req_id
        self._send(error)
        if close is None:
            return None
        self.close_code, self.close_reason = close, reason[:120]
        return _CLOSE

    async def _drain(self, timeout: float = 1.0) -> None:
        """Let the writer send what is queued (the `error` explaining a close) first."""
        deadline = time.monotonic() + timeout
        while not self.conn.queue.empty() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.02)

    def _hello(self, hub: Any, message: dict[str, Any]) -> None:
        for key in ("last_seq", "last_chat_id"):
            value = message.get(key)
            if value is not None and _int(message, key) is None:
                self._refuse(
                    422, "invalid", f"{key}: null or an integer 0 … {MAX_DB_INT}", field=key
                )
        if message.get("patches") is True:
            self.conn.patches = True  # updates may come as patches (render.py)
        hub.join(self.conn, _int(message, "last_seq"), _int(message, "last_chat_id"))

    async def _handle(self, hub: Any, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "hello":
            self._hello(hub, message)
        elif kind == "ping":
            self._send({"type": "pong"})
        elif kind == "pong":
            pass
        elif kind == "action":
            await self._action(message)
        else:
            self._refuse(
                400,
                "unknown_type",
                f"unknown message type {str(kind)[:40]!r}",
                field="type",
                req_id=_req_id(message),
            )

    async def _action(self, message: dict[str, Any]) -> None:
        arrived = time.perf_counter()  # the move's submit -> commit starts here (metrics)
        req_id = _req_id(message)
        if self.conn.user_id is None:
            self._send(
                {"type": "error", "req_id": req_id, "status": 403, "reason": "log in to play"}
            )
            return
        rt = realtime.runtime()
        if rt is None:
            return
        if rt.draining:
            # The socket closes with 1012 in a moment: the client sends this action again
            # once reconnected, with its idempotency key, and it is applied there, once.
            log.info("ws game %s: an action left for after the restart", self.conn.game_id)
            return
        try:
            ratelimit.limiter().hit("actions", self.conn.user_id)
        except ratelimit.RateLimited as exc:
            self._send(
                {
                    "type": "error",
                    "req_id": req_id,
                    "status": 429,
                    **exc.to_json(),
                    "reason": exc.message,
                }
            )
            return
        rt.action_started()  # a drain waits for its answer before closing the sockets
        try:
            result = await blocking.call(
                rt.source.moves_on_loop,
                rt.source.submit,
                self.conn.game_id,
                self.conn.user_id,
                message,
                self.token,
                arrived,
                limiter=_submit_limiter(),
            )
        except Exception:
            log.exception("ws game %s user %s: action failed", self.conn.game_id, self.conn.user_id)
            self._send(
                {
                    "type": "error",
                    "req_id": req_id,
                    "status": 500,
                    "code": "server_error",
                    "reason": "the server failed on this action; nothing was applied",
                }
            )
            self.close_code, self.close_reason = 1011, "server error"
            await self._drain()
            raise
        finally:
            rt.action_ended()
        reply: dict[str, Any] = {"req_id": req_id, **result}
        self._send(reply)

    def _end(self) -> None:
        if self._over is not None and not self._over.done():
            self._over.set_result(None)

    def _task_ended(self, task: asyncio.Task[None]) -> None:
        exc = task.exception() if not task.cancelled() else None
        if exc is not None and not isinstance(exc, WebSocketDisconnect):
            log.debug("socket task %s ended: %r", task.get_name(), exc)
        self._end()

    def _beat(self) -> None:
        """Every ``heartbeat_s``: close a socket not heard from for two beats, or whose
        person was suspended (``_suspended``), else ping it."""
        self._timer = None
        if time.monotonic() - self.last_heard > 2 * self.heartbeat_s + 1:
            self.close_code, self.close_reason = 4408, "heartbeat missed"
            self._end()
        elif self._asks_suspended():
            self._checking = asyncio.create_task(self._check(), name="ws-heartbeat")
        else:
            self._ping()

    async def _check(self) -> None:
        suspended = await self._suspended()
        self._checking = None
        if suspended:
            # as the hub's drop says it (``Hub.drop_user``)
            self.close_code, self.close_reason = 4401, f"4401 {ENDED_REASON}"
            self._end()
        else:
            self._ping()

    def _ping(self) -> None:
        if self._over is not None and not self._over.done():
            self._send({"type": "ping"})
            self._timer = asyncio.get_running_loop().call_later(self.heartbeat_s, self._beat)

    def _asks_suspended(self) -> bool:
        rt = realtime.runtime()
        source = rt.source if rt is not None else None
        return self.conn.user_id is not None and bool(getattr(source, "inline", False))

    async def _suspended(self) -> bool:
        """Whether this socket's person was suspended meanwhile, asked on SQLite only
        (one primary-key read on the loop): a suspension made by another process there
        (the command line) has no NOTIFY to reach this one, which closes her sockets at
        their next heartbeat. On PostgreSQL the suspension's NOTIFY closes them at once
        (``pg.PgListener``), and in this process the publisher does."""
        rt = realtime.runtime()
        source = rt.source if rt is not None else None
        if not self._asks_suspended() or source is None or self.conn.user_id is None:
            return False
        try:
            return bool(await blocking.call(True, source.suspended, self.conn.user_id))
        except Exception:  # a failed look must not close a socket
            log.exception("ws: could not tell whether user %s is suspended", self.conn.user_id)
            return False

    def _send(self, message: dict[str, Any]) -> None:
        self.conn.offer(encode(message))


#: returned by _receive when the frame was refused and the socket must close
_CLOSE: Any = object()
#: close codes for frames that are not protocol messages (RFC 6455 7.4.1)
CLOSE_UNSUPPORTED = 1003  # a binary frame
CLOSE_TOO_BIG = 1009  # more than MAX_MESSAGE_BYTES


def _req_id(message: dict[str, Any]) -> Any:
    """The client's req_id, echoed only when it is a short string or a small number."""
    value = message.get("req_id")
    if isinstance(value, str) and len(value) <= 128:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_DB_INT:
        return value
    return None


def _int(message: dict[str, Any], key: str) -> int | None:
    value = message.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DB_INT:
        return None
    return value


def _code_of(reason: str) -> int:
    head = reason.split(" ", 1)[0]
    return int(head) if head.isdigit() and 4000 <= int(head) < 5000 else 1011
