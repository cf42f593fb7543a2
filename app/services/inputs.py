"""What a client may send, whichever way it comes (an HTTP request or a socket
frame): the bounds on its numbers and JSON, and the body of an action.

- ``MAX_DB_INT``: ids, versions, seqs and counters are 32-bit signed integers in the
  database (PostgreSQL ``integer``); a larger number is refused naming it, never a
  database overflow.
- ``parse_json``: the one JSON parser for client input (HTTP bodies, the ``explain``
  query, websocket frames). It refuses nesting deeper than ``MAX_JSON_DEPTH``,
  ``NaN``/``Infinity``, floats that overflow to infinity and integers outside
  ±2^63, each with a message saying which.
- ``ActionBody``: an action with the version it was decided on and its idempotency
  key (``POST /api/games/{id}/actions`` and the socket's ``action`` message).

They live here, below the transports (``app/web``, ``app/realtime``), which both
read them.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

#: PostgreSQL ``integer``: every id, version and seq column
MAX_DB_INT = 2**31 - 1
#: JSON nesting: the deepest legitimate document (an action) has depth 3 or 4
MAX_JSON_DEPTH = 32
#: integers inside JSON documents (64-bit signed)
MAX_JSON_INT = 2**63 - 1


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


class ActionModel(BaseModel):
    """An engine action: ``{"type": ..., ...}`` exactly as ``legal_actions`` lists it."""

    model_config = ConfigDict(extra="allow")
    type: str = Field(min_length=1, max_length=64)


class ActionBody(BaseModel):
    action: ActionModel
    expected_version: int = Field(
        ge=0, le=MAX_DB_INT, description="the `version` your view was built on"
    )
    idempotency_key: str = Field(
        min_length=1, max_length=128, description="unique per attempt; retry with the same key"
    )
