"""``GET /metrics`` (Prometheus text format), the HTTP answers' counter and the pool's
sampler (the metrics themselves: app/services/metrics.py; docs/deploy.md, "Metrics").

- ``HttpMetrics``: a pure ASGI middleware counting each HTTP response by method, route
  template (``/api/games/{game_id}/actions``, never the raw path: one series per route,
  whatever ids are asked for) and status. A path no route matches is ``unmatched``.
- ``sample_pool``: every second, the connections checked out of this process's pool;
  in multiprocess mode each process writes its own and a scrape sums them.
- ``/metrics``: readable from the addresses in ``METRICS_ALLOW`` only (the client's
  address as the trusted proxies give it, ``TRUSTED_PROXIES``); anyone else gets 403,
  and with ``METRICS_ALLOW`` empty the route answers 404 to all.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import is_trusted, trusted_networks
from app.services import metrics
from app.store import blocking
from app.store.db import pool_in_use, session_scope

#: how often each process samples its pool (seconds)
POOL_SAMPLE_S = 1.0
UNMATCHED = "unmatched"


class HttpMetrics:
    """Counts every HTTP response by (method, route template, status). Nothing per
    request but the wrapped ``send`` and one labelled increment at the response's start."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._mounts: dict[int, str] | None = None

    def _template(self, scope: Scope) -> str:
        route = scope.get("route")
        path = getattr(route, "path", None)
        if isinstance(path, str):
            return path
        endpoint = scope.get("endpoint")
        if endpoint is not None:  # a mounted app (/static): its mount point
            if self._mounts is None:
                routes = getattr(scope.get("app"), "routes", [])
                self._mounts = {id(r.app): r.path for r in routes if isinstance(r, Mount)}
            mount = self._mounts.get(id(endpoint))
            if mount is not None:
                return f"{mount}/{{path}}"
        return UNMATCHED

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        started = False

        async def counted(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                self._count(scope, message["status"])
            await send(message)

        try:
            await self.app(scope, receive, counted)
        except BaseException:
            if not started:  # Starlette's outermost handler answers 500
                self._count(scope, 500)
            raise

    def _count(self, scope: Scope, status: int) -> None:
        metrics.HTTP.labels(scope["method"], self._template(scope), str(status)).inc()


def sample(engine: Any) -> None:
    metrics.POOL_IN_USE.set(pool_in_use(engine))


async def sample_pool(engine: Any, period: float = POOL_SAMPLE_S) -> None:
    """Set the pool gauge from `engine` every `period` seconds, until cancelled."""
    while True:
        sample(engine)
        await asyncio.sleep(period)


@asynccontextmanager
async def _lifespan(app: Any) -> AsyncIterator[None]:
    # Merged into the app's lifespan by FastAPI, as the websocket router's is: including
    # this router is all create_app does to sample the pool.
    task = asyncio.create_task(sample_pool(app.state.engine), name="ig-metrics-pool")
    try:
        yield None
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


router = APIRouter(include_in_schema=False, lifespan=_lifespan)


def _body(app: Any) -> bytes:
    """The exposition, in a worker thread: it reads the database (the games) and, with
    several processes, every process's files."""
    with session_scope(app.state.sessionmaker) as db:
        counts = metrics.games_by_status(db)
    return metrics.exposition([metrics.Games(lambda: counts)])


def allowed(request: Request) -> bool | None:
    """Whether the client may read the metrics; None when nobody may (METRICS_ALLOW
    empty: the route does not exist)."""
    text = request.app.state.settings.metrics_allow
    if not text.strip():
        return None
    host = request.client.host if request.client else None
    return is_trusted(host, trusted_networks(text))


@router.get("/metrics")
async def scrape(request: Request) -> Response:
    verdict = allowed(request)
    if verdict is None:
        return Response("There is no such page.\n", status_code=404, media_type="text/plain")
    if not verdict:
        return Response(
            "Metrics are readable from the addresses in METRICS_ALLOW only.\n",
            status_code=403,
            media_type="text/plain",
        )
    sample(request.app.state.engine)  # this process's pool as of now
    body = await blocking.call(False, _body, request.app)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
