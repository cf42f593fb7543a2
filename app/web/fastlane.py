"""The two requests of every move, answered without FastAPI's routing and dependencies.

A game in play calls two routes on every move: GET ``/api/games/{id}/view`` and POST
``/api/games/{id}/actions`` (``app/web/routes/play_api.py``). Around their own work
(about a millisecond each) FastAPI spent as much again: trying routes in order, solving
six dependencies (a generator among them, closed through an ``AsyncExitStack``),
attaching the cached login as ORM rows, and three wrappers round every ``send``
(docs/performance.md, "The two requests of every move").

This pure ASGI middleware sits inside the security headers and the body limits and
answers the *ordinary* form of those two requests itself: a cached login (or none,
for a view), the right CSRF token, a body that fits ``ActionBody``, no query string.
It calls the same services in the same order as the routes and answers their errors
as the app's handler does. Anything else (no cached login, a wrong token, a body that
does not fit, an invite code, any other path) goes on, untouched and with its body
replayed, to the FastAPI route, which answers it as before; so the route stays the
one definition of the API's validation and error answers, and its OpenAPI entry.

``Settings.fast_lane`` turns it off (benchmarks compare both; tests run both).
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from app.services import logins, ratelimit
from app.services.errors import ServiceError
from app.services.inputs import ActionBody
from app.services.ratelimit import retry_after
from app.store import blocking
from app.web.deps import CSRF_HEADER, SESSION_COOKIE, end_session, publish, same_token
from app.web.limits import MAX_DB_INT, is_json, replaying, send_json
from app.web.routes.play_api import commit_action, read_view

_VIEW = re.compile(r"/api/games/([1-9][0-9]{0,18})/view")
_ACT = re.compile(r"/api/games/([1-9][0-9]{0,18})/actions")
_CSRF = CSRF_HEADER.lower().encode()


def _headers(scope: Scope) -> tuple[str | None, bytes | None]:
    """The session cookie and the CSRF header; of a header sent twice, the first, as
    Starlette reads it."""
    token: str | None = None
    csrf: bytes | None = None
    seen_cookie = False
    for name, value in scope["headers"]:
        if name == b"cookie" and not seen_cookie:
            seen_cookie = True
            token = cookie_parser(value.decode("latin-1")).get(SESSION_COOKIE)
        elif name == _CSRF and csrf is None:
            csrf = value
    return token, csrf


async def _answer(send: Send, status: int, payload: Any, headers: dict[str, str]) -> None:
    extra = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send_json(send, status, orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS), extra)


#: what `_serve` returns when the service refused and the refusal has been answered
_REFUSED: Any = object()


async def _refuse(send: Send, exc: ServiceError) -> None:
    """A service's refusal, answered as the app's handler answers it on /api."""
    await _answer(send, exc.status, exc.to_json(), retry_after(exc))


async def _serve(send: Send, db: Session, fn: Any, *args: Any) -> Any:
    """``fn(db, *args)`` where the database's calls run (`blocking.call`), the session
    ended after it; a refusal is answered and `_REFUSED` returned."""
    try:
        return await blocking.call(blocking.inline(db), fn, db, *args)
    except ServiceError as exc:
        await _refuse(send, exc)
        return _REFUSED
    finally:
        await end_session(db)


class PlayFastLane:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("query_string") and _enabled(scope):
            method = scope["method"]
            if method == "GET" and (match := _VIEW.fullmatch(scope["path"])):
                if await self._view(scope, int(match[1]), send):
                    return
            elif method == "POST" and (match := _ACT.fullmatch(scope["path"])):
                await self._act(scope, int(match[1]), receive, send)
                return
        await self.app(scope, receive, send)

    async def _view(self, scope: Scope, game_id: int, send: Send) -> bool:
        token, _ = _headers(scope)
        user_id: int | None = None
        if token:
            ids = logins.cached_ids(token)
            if ids is None:
                return False  # not cached (or expired): the route looks it up
            user_id = ids[0]
        if game_id > MAX_DB_INT:
            return False
        payload = await _serve(send, _session(scope), read_view, game_id, user_id, None)
        if payload is not _REFUSED:
            await _answer(send, 200, payload, {})
        return True

    async def _act(self, scope: Scope, game_id: int, receive: Receive, send: Send) -> None:
        # The body is read whole first (BodyLimits, outside, already bounded it), so
        # that a request handed on can be replayed to the route.
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        raw = b"".join(chunks)
        if not await self._try_act(scope, game_id, raw, send):
            await self.app(scope, replaying(raw, receive), send)

    async def _try_act(self, scope: Scope, game_id: int, raw: bytes, send: Send) -> bool:
        token, csrf = _headers(scope)
        ids = logins.cached_ids(token) if token else None
        if ids is None or not is_json(scope) or csrf is None or game_id > MAX_DB_INT:
            return False
        user_id, csrf_token = ids
        try:
            if not same_token(csrf.decode("latin-1"), csrf_token):
                return False
            body = ActionBody.model_validate_json(raw)
        except (ValidationError, UnicodeDecodeError):
            return False
        try:
            # Counted here, not in the call: a call on the loop may be run again in the
            # thread pool (blocking.Busy), and a hit must count once.
            ratelimit.limiter().hit("actions", user_id)
        except ServiceError as exc:
            await _refuse(send, exc)
            return True
        result = await _serve(send, _session(scope), commit_action, game_id, user_id, body)
        if result is _REFUSED:
            return True
        publish(game_id, result.version, result.notified)  # a retry too: see source.submit
        await _answer(send, 200, result.to_json(), {})
        return True


def _enabled(scope: Scope) -> bool:
    settings = getattr(getattr(scope.get("app"), "state", None), "settings", None)
    return bool(getattr(settings, "fast_lane", False))


def _session(scope: Scope) -> Session:
    db: Session = scope["app"].state.sessionmaker()
    return db
