"""The FastAPI application factory.

`create_app(settings)` wires the database, the routers, static files, error
handlers and the lifespan (the deadline runner). Other parts add their router
with one line each (the websocket router, the game page).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings, get_settings
from app.realtime.ws import GameSockets
from app.realtime.ws import router as realtime_router
from app.services import (
    accounts,
    clocks,
    deadlines,
    notifications,
    presence,
    ratelimit,
)
from app.services.errors import ServiceError
from app.services.ratelimit import retry_after
from app.store.db import make_engine, make_sessionmaker, session_scope
from app.web import gc_tuning, graceful
from app.web.limits import BodyLimits
from app.web.metrics import HttpMetrics
from app.web.metrics import router as metrics_router
from app.web.routes import api, bench, health, moderation, notices, pages, play_api, review
from app.web.routes import play as play_pages
from app.web.templating import render

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent.parent
#: how often the deadline runner looks for overdue decisions (seconds)
DEADLINE_PERIOD_S = 5.0


#: how often expired sessions and old log-in failures are deleted (seconds)
PURGE_PERIOD_S = 600.0


def purge(app: FastAPI) -> None:
    with session_scope(app.state.sessionmaker) as db:
        accounts.purge(db)


async def deadline_loop(app: FastAPI, period: float, stop: asyncio.Event | None = None) -> None:
    """Every `period` seconds: overdue decisions get their default; a person gone from
    the table is shown gone, and on the live pace a stand-in takes her seat
    (app/services/presence.py); notices go out; now and then, expired sessions are
    deleted. Returns between two passes once `stop` is set (a pass is not cut short:
    its changes are published while the process can still publish)."""
    last_purge = 0.0
    stop = stop or asyncio.Event()
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), period)
        if stop.is_set():
            return
        try:
            await run_in_threadpool(deadlines.run_once, app.state.sessionmaker)
        except Exception:
            log.exception("deadline runner failed")
        try:
            await run_in_threadpool(presence.sweep, app.state.sessionmaker)
        except Exception:
            log.exception("presence sweep failed")
        try:
            await run_in_threadpool(
                notifications.run_once, app.state.sessionmaker, app.state.settings
            )
        except Exception:
            log.exception("notifications failed")
        if time.monotonic() - last_purge >= PURGE_PERIOD_S:
            last_purge = time.monotonic()
            try:
                await run_in_threadpool(purge, app)
            except Exception:
                log.exception("purge failed")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    gc_tuning.tune()
    period = float(getattr(app.state.settings, "deadline_period_s", DEADLINE_PERIOD_S))
    stop = asyncio.Event()
    task = asyncio.create_task(deadline_loop(app, period, stop))

    async def drain(deadline: float) -> None:
        """On SIGTERM (app/web/graceful.py): the realtime runtime drains (its sockets,
        bots and presence) while the clocks' loop ends its pass."""
        stop.set()
        rt = getattr(app.state, "realtime", None)
        parts = [asyncio.shield(task)]
        if rt is not None:
            parts.append(asyncio.ensure_future(rt.drain(deadline)))
        await asyncio.gather(*parts)

    forget_drain = graceful.on_drain(drain)
    try:
        yield
    finally:
        forget_drain()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        app.state.engine.dispose()


def wants_page(request: Request) -> bool:
    return not request.url.path.startswith("/api") and "text/html" in request.headers.get(
        "accept", ""
    )


async def service_error(request: Request, exc: Exception) -> Response:
    """JSON for the API (and any client that does not ask for HTML); a page otherwise."""
    assert isinstance(exc, ServiceError)
    if wants_page(request):
        page = render(request, "error.html", {"message": exc.message}, None, exc.status)
        page.headers.update(retry_after(exc))
        return page
    return JSONResponse(exc.to_json(), status_code=exc.status, headers=retry_after(exc))


async def not_found(request: Request, exc: Exception) -> Response:
    """404: a page for a person's browser. Any HTTP error otherwise: FastAPI's JSON
    answer plus a `code`."""
    if wants_page(request) and getattr(exc, "status_code", 0) == 404:
        message = "There is no such page."
        return render(request, "error.html", {"message": message}, None, 404)
    assert isinstance(exc, StarletteHTTPException)
    response = await http_exception_handler(request, exc)
    if response.status_code < 400 or response.media_type != "application/json":
        return response
    # Every error of the API has a `code` (docs/api.md, "Errors").
    code = HTTP_CODES.get(exc.status_code, "http_error")
    body = {"detail": exc.detail, "code": code}
    return JSONResponse(body, status_code=exc.status_code, headers=dict(exc.headers or {}))


HTTP_CODES = {
    400: "bad_request",
    401: "not_logged_in",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


#: No inline script anywhere (templates load static/js files; data rides in
#: <script type="application/json"> blocks, which are not executed). Inline styles
#: stay allowed: the map sets style attributes as it draws.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


class SecurityHeaders:
    """Pure ASGI middleware adding SECURITY_HEADERS to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _field_of(loc: Any) -> str:
    """("body", "options", "end_turn") -> "options.end_turn"; the first part (body,
    query, path) is dropped, list indexes shown as [i]."""
    parts = list(loc)[1:] if len(loc) > 1 else list(loc)
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _plain(value: Any) -> Any:
    """An echoed input made JSON-safe: no NaN/inf, nothing huge."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int | float | bool) or value is None:
        return value
    if isinstance(value, str):
        return value[:200]
    return repr(value)[:200]


async def validation_error(request: Request, exc: Exception) -> Response:
    """422 for a body, query or path that does not fit its schema: FastAPI's ``detail``
    list (loc/msg/type), plus ``code`` and ``field`` (the first offending field) like
    every other error. Inputs are echoed only when JSON-safe (a NaN once made this a 500)."""
    assert isinstance(exc, RequestValidationError)
    if wants_page(request):
        if request.method in ("GET", "HEAD"):  # a mistyped address: /games/abc
            return render(request, "error.html", {"message": "There is no such page."}, None, 404)
        names = ", ".join(sorted({_field_of(e.get("loc", ())) for e in exc.errors()}))
        message = f"The form could not be read ({names}); go back and try again."
        return render(request, "error.html", {"message": message}, None, 422)
    errors = []
    for err in exc.errors():
        item = {k: err[k] for k in ("type", "loc", "msg") if k in err}
        item["loc"] = list(item.get("loc", ()))
        if "input" in err:
            item["input"] = _plain(err["input"])
        if isinstance(err.get("ctx"), dict):
            item["ctx"] = {k: _plain(v) for k, v in err["ctx"].items()}
        errors.append(item)
    first = errors[0] if errors else {}
    field = _field_of(first.get("loc", ()))
    body = {"detail": errors, "code": "invalid_request", "field": field or None}
    return JSONResponse(body, status_code=422)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="Imperial Glory",
        version="0.1.0",
        description="JSON API of Imperial Glory; a guided tour is in docs/api.md.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    ratelimit.configure(
        {
            "signup": settings.rate_signup,
            "chat": settings.rate_chat,
            "actions": settings.rate_actions,
            "reset": settings.rate_reset,
            "reset_account": settings.rate_reset_account,
            "games": settings.rate_games,
            "report": settings.rate_report,
        }
    )
    clocks.configure(settings.pace_live)
    clocks.configure_hand_over(settings.hand_over_after_s)
    app.state.engine = make_engine(settings.database_url, **settings.pool_options)
    app.state.sessionmaker = make_sessionmaker(app.state.engine)
    app.add_exception_handler(ServiceError, service_error)
    app.add_exception_handler(StarletteHTTPException, not_found)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_middleware(BodyLimits)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HttpMetrics)  # outermost of HTTP's: counts every answer as sent
    app.add_middleware(GameSockets)  # /ws/games/{id} straight to its handler
    app.mount("/static", StaticFiles(directory=str(ROOT / "static")), name="static")
    app.include_router(health.router)
    app.include_router(play_api.router)  # first: the routes of every move
    app.include_router(api.router)
    app.include_router(review.router)  # a game's result explained, the catch-up
    app.include_router(pages.router)
    app.include_router(moderation.api)  # block, mute, report; the admins' queue
    app.include_router(moderation.pages)  # the same in forms, and /admin
    app.include_router(notices.router)  # a table's hook, test notices, /dev/mail
    app.include_router(play_pages.router)  # the game page and /rules
    app.include_router(realtime_router)  # its lifespan runs the realtime hub
    app.include_router(metrics_router)  # /metrics; its lifespan samples the pool
    if settings.bench_accounts:  # benchmarks only: absent (404) unless BENCH_ACCOUNTS
        app.include_router(bench.router)
    return app
