"""Bounds every input meets at the edge, before a router or pydantic sees it.

- ``MAX_DB_INT``: ids, versions, seqs and counters are 32-bit signed integers in
  the database (PostgreSQL ``integer``); a larger number in a path or query is a
  422 naming it, never a database overflow.
- ``MAX_BODY_BYTES``: a request body larger than this is refused with 413 before it
  is read whole (``Content-Length`` first, then counted as it streams).
- ``parse_json``: the one JSON parser for client input (HTTP bodies, the ``explain``
  query, websocket frames). It refuses nesting deeper than ``MAX_JSON_DEPTH``,
  ``NaN``/``Infinity``, floats that overflow to infinity and integers outside
  ±2^63, each with a message saying which.
- ``BodyLimits``: the ASGI middleware applying the two body rules to every HTTP
  request with a body, answering ``{"detail", "code"}`` like every other error.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any

import orjson
from fastapi import Path, Query
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: PostgreSQL ``integer``: every id, version and seq column
MAX_DB_INT = 2**31 - 1
#: bodies: the largest legitimate one (an action, a chat line) is well under 16 KiB
MAX_BODY_BYTES = 64 * 1024
#: JSON nesting: the deepest legitimate document (an action) has depth 3 or 4
MAX_JSON_DEPTH = 32
#: integers inside JSON documents (64-bit signed)
MAX_JSON_INT = 2**63 - 1

GameId = Annotated[int, Path(ge=1, le=MAX_DB_INT, description="a game id")]
SeatIndex = Annotated[int, Path(ge=0, le=63, description="a seat index (0 first)")]
InviteCode = Annotated[
    str | None, Query(max_length=64, description="the invite code of a private game")
]


def seq_query(description: str) -> Any:
    return Query(ge=0, le=MAX_DB_INT, description=description)


class BadJSON(ValueError):
    """Client JSON refused; ``code`` is machine-readable, ``str()`` is for people."""

    def __init__(self, message: str, code: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.field = field


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays/objects in `text` (strings skipped), without
    recursion: a 30,000-deep document costs one regex pass, not a RecursionError."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class _Bad:
    """Stands in, while parsing, for a number out of bounds; reported with its path."""

    def __init__(self, text: str, code: str) -> None:
        self.text, self.code = text[:40], code


def _find_bad(value: Any, path: str = "") -> tuple[str, _Bad] | None:
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, _Bad):
            return where, item
        if isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
    return None


def _within_bounds(value: Any) -> bool:
    """Whether a document orjson parsed is one ``_parse_checked`` would accept as is:
    nesting within MAX_JSON_DEPTH, integers within ±2^63, and no float orjson may have
    made of a larger integer (it reads integers past 64 bits as floats)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is dict or kind is list:
            if depth >= MAX_JSON_DEPTH:
                return False
            children = item.values() if kind is dict else item
            stack.extend((child, depth + 1) for child in children)
        elif kind is int:
            if not -MAX_JSON_INT - 1 <= item <= MAX_JSON_INT:
                return False
        elif kind is float and not abs(item) < 2.0**63:
            return False
    return True


def parse_json(data: str | bytes) -> Any:
    """Parse client JSON within the bounds above, or raise BadJSON (with ``field``, the
    dotted path of an out-of-range number, when there is one).

    orjson parses first (about ten times faster; every action over a socket and every
    POST comes through here). Whatever it refuses or cannot vouch for (NaN, a float
    that overflows, a large integer, deep nesting, a lone surrogate, malformed text) is
    parsed again by the checking parser below, which gives the one answer and error."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    else:
        if _within_bounds(value):
            return value
    return _parse_checked(data)


def _parse_checked(data: str | bytes) -> Any:
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJSON("The body is not UTF-8.", "bad_encoding") from exc
    if json_depth(data) > MAX_JSON_DEPTH:
        raise BadJSON(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.", "json_too_deep")
    bad: list[_Bad] = []

    def constant(name: str) -> Any:
        bad.append(_Bad(name, "non_finite_number"))
        return bad[-1]

    def floating(text: str) -> Any:
        value = float(text)
        if math.isfinite(value):
            return value
        bad.append(_Bad(text, "number_out_of_range"))
        return bad[-1]

    def integer(text: str) -> Any:
        if len(text) <= 20 and -MAX_JSON_INT - 1 <= int(text) <= MAX_JSON_INT:
            return int(text)
        bad.append(_Bad(text, "number_out_of_range"))
        return bad[-1]

    try:
        value = json.loads(data, parse_constant=constant, parse_float=floating, parse_int=integer)
    except (ValueError, RecursionError) as exc:
        raise BadJSON(f"Malformed JSON: {exc}", "malformed_json") from exc
    if bad:
        where, item = _find_bad(value) or ("", bad[0])
        what = (
            f"{item.text} is not a number JSON allows here (finite numbers only)"
            if item.code == "non_finite_number"
            else f"the number {item.text} is out of range (integers within ±2^63, finite floats)"
        )
        raise BadJSON(f"{where or 'body'}: {what}.", item.code, field=where or None)
    return value


async def send_json(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """A whole JSON answer, already encoded, straight to ASGI's `send` (for the pure
    ASGI middleware: these body limits and the fast lane, app/web/fastlane.py)."""
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
