"""Bounds every HTTP input meets at the edge, before a router or pydantic sees it.

- ``MAX_DB_INT`` (``app/services/inputs.py``, shared with the socket): ids, versions,
  seqs and counters are 32-bit signed integers in the database (PostgreSQL
  ``integer``); a larger number in a path or query is a 422 naming it, never a
  database overflow.
- ``MAX_BODY_BYTES``: a request body larger than this is refused with 413 before it
  is read whole (``Content-Length`` first, then counted as it streams).
- ``parse_json`` (``app/services/inputs.py``): the one JSON parser for client input
  (HTTP bodies, the ``explain`` query, websocket frames).
- ``BodyLimits``: the ASGI middleware applying the two body rules to every HTTP
  request with a body, answering ``{"detail", "code"}`` like every other error.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import Path, Query
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.services.inputs import MAX_DB_INT, BadJSON, parse_json

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_DB_INT",
    "BadJSON",
    "BodyLimits",
    "GameId",
    "InviteCode",
    "SeatIndex",
    "is_json",
    "parse_json",
    "replaying",
    "send_json",
    "seq_query",
]

#: bodies: the largest legitimate one (an action, a chat line) is well under 16 KiB
MAX_BODY_BYTES = 64 * 1024

GameId = Annotated[int, Path(ge=1, le=MAX_DB_INT, description="a game id")]
SeatIndex = Annotated[int, Path(ge=0, le=63, description="a seat index (0 first)")]
InviteCode = Annotated[
    str | None, Query(max_length=64, description="the invite code of a private game")
]


def seq_query(description: str) -> Any:
    return Query(ge=0, le=MAX_DB_INT, description=description)


async def send_json(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """A whole JSON answer, already encoded, straight to ASGI's `send` (for the pure
    ASGI middleware: these body limits)."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def is_json(scope: Scope) -> bool:
    """Whether the request's (first) Content-Type is JSON, as Starlette reads it."""
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            media = value.split(b";", 1)[0].strip().lower()
            return media == b"application/json" or media.endswith(b"+json")
    return False


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, whole, then hands on to `receive`
    (a disconnect, say)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class BodyLimits:
    """Pure ASGI middleware: the body cap (413) and the JSON bounds (400/422) for every
    HTTP request. The body is read here (at most MAX_BODY_BYTES) and handed on whole."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        too_large = f"The request body is larger than {self.max_bytes} bytes."
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._refuse(send, 413, too_large, "body_too_large")
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send, 413, too_large, "body_too_large")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and is_json(scope):
            try:
                parse_json(body)
            except BadJSON as exc:
                # Malformed JSON goes on: FastAPI answers it with its usual 422.
                if exc.code not in ("malformed_json", "bad_encoding"):
                    await self._refuse(send, 422, str(exc), exc.code, exc.field)
                    return
        await self.app(scope, replaying(body, receive), send)

    @staticmethod
    async def _refuse(
        send: Send, status: int, detail: str, code: str, field: str | None = None
    ) -> None:
        payload: dict[str, Any] = {"detail": detail, "code": code}
        if field:
            payload["field"] = field
        await send_json(send, status, json.dumps(payload).encode())
