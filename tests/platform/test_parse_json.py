"""``limits.parse_json``: orjson first, the checking parser for whatever orjson refuses or
cannot vouch for. The two must agree on every text: the same value, or the same error."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.services.inputs import MAX_JSON_DEPTH, BadJSON, _parse_checked, parse_json

EDGES = [
    "{}",
    " [1, 2.5, -0, -0.0, 1e-400, true, null] ",
    '{"a": 1, "a": 2}',
    '{"n": 9223372036854775807}',
    '{"n": 9223372036854775808}',
    '{"n": -9223372036854775809}',
    '{"n": 18446744073709551616}',
    '{"n": 123456789012345678901234567890}',
    '{"f": 1e400}',
    '{"f": -1e308}',
    '{"f": 9.3e18}',
    "[NaN]",
    "[Infinity]",
    '"\\ud800"',
    '"caf\\u00e9 \u00e9"',
    '"tab\there"',
    "\ufeff{}",
    "{not json",
    "{}\x00",
    "",
    "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH,
    "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1),
    '{"a":' * 40 + "1" + "}" * 40,
    "[" * 30000 + "]" * 30000,
]


def outcome(parse: Any, text: str | bytes) -> tuple[str, Any]:
    try:
        value = parse(text)
    except BadJSON as exc:
        return "error", (exc.code, exc.field, str(exc))
    return "value", json.dumps(value, allow_nan=True, sort_keys=True) + repr(_kinds(value))


def _kinds(value: Any) -> Any:
    """The types too: 1 and 1.0 and True print alike in places."""
    if isinstance(value, dict):
        return {k: _kinds(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_kinds(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return type(value).__name__


@pytest.mark.parametrize("text", EDGES)
def test_orjson_first_agrees_with_the_checking_parser_on_the_edges(text: str) -> None:
    assert outcome(parse_json, text) == outcome(_parse_checked, text)
    raw = text.encode("utf-8", "surrogatepass")
    assert outcome(parse_json, raw) == outcome(_parse_checked, raw)


numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=8))
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(documents, st.integers(min_value=0, max_value=40))
def test_orjson_first_agrees_with_the_checking_parser(doc: Any, wrap: int) -> None:
    text = "[" * wrap + json.dumps(doc) + "]" * wrap
    assert outcome(parse_json, text) == outcome(_parse_checked, text)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes_get_the_same_answer(raw: bytes) -> None:
    assert outcome(parse_json, raw) == outcome(_parse_checked, raw)
