"""Websocket frames are validated like HTTP bodies (docs/realtime.md, "Bad frames"):
a frame the protocol cannot hold (binary, too large) gets an `error` message, then
the documented close code (1003, 1009); bad content (not JSON, nested too deep,
non-finite or out-of-range numbers, unknown type, bad fields) gets an `error` naming
what is wrong and the socket stays open. Every refusal is logged by the server.

The second half is a property-based fuzzer (hypothesis): whatever a client sends,
the server answers with well-formed protocol messages, never a 5xx-like error, never
a traceback in its log, and the socket keeps answering pings."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from .conftest import Table, make_table
from .wsclient import GameSocket

SNAPSHOTS = ("state", "sync", "update")
KNOWN_TYPES = {"state", "sync", "update", "ack", "error", "ping", "pong", "chat"}


@pytest.fixture(scope="module")
def frames_table(live_server: Any) -> Table:
    from tests.conftest import Player

    players = []

    def new_player(server: Any) -> Any:
        player = Player(server.url, f"f{uuid.uuid4().hex[:10]}", "correct horse 1")
        assert player.signup().status_code == 200
        players.append(player)
        return player

    return make_table(live_server, new_player)


def is_snapshot(m: dict[str, Any]) -> bool:
    return m.get("type") in SNAPSHOTS


def open_socket(server: Any, table: Table, sockets: Any) -> GameSocket:
    sock: GameSocket = sockets(server, table.game_id, table.players[0])
    sock.wait_for(is_snapshot)
    return sock


def alive(sock: GameSocket) -> None:
    """The socket still answers: a ping gets its pong."""
    start = sock.count()
    sock.send({"type": "ping"})
    sock.wait_for(lambda m: m.get("type") == "pong", start=start)


def close_code(sock: GameSocket) -> int | None:
    closed = sock.wait_closed()
    assert isinstance(closed, ConnectionClosed), closed
    return closed.rcvd.code if closed.rcvd else None


def test_a_binary_frame_gets_an_error_then_close_1003(
    live_server: Any, frames_table: Table, sockets: Any
) -> None:
    sock = open_socket(live_server, frames_table, sockets)
    start = sock.count()
    sock.ws.send(b"\x00\x01binary")
    err = sock.wait_for(lambda m: m.get("type") == "error", start=start)
    assert err["status"] == 400 and err["code"] == "binary_frame"
    assert close_code(sock) == 1003
    assert "refused a frame (400 binary_frame), closing 1003" in live_server.log()


def test_a_frame_over_64_kib_gets_an_error_then_close_1009(
    live_server: Any, frames_table: Table, sockets: Any
) -> None:
    sock = open_socket(live_server, frames_table, sockets)
    start = sock.count()
    sock.ws.send(json.dumps({"type": "ping", "pad": "x" * 70_000}))
    err = sock.wait_for(lambda m: m.get("type") == "error", start=start)
    assert err["status"] == 413 and err["code"] == "message_too_large"
    assert close_code(sock) == 1009


def test_bad_content_gets_an_error_naming_it_and_the_socket_stays_open(
    live_server: Any, frames_table: Table, sockets: Any
) -> None:
    sock = open_socket(live_server, frames_table, sockets)
    version = int(sock.state["version"])  # type: ignore[index]

    def error_for(text: str) -> dict[str, Any]:
        start = sock.count()
        sock.ws.send(text)
        return sock.wait_for(lambda m: m.get("type") == "error", start=start)

    err = error_for("[" * 30_000 + "]" * 30_000)
    assert err["status"] == 422 and err["code"] == "json_too_deep"
    alive(sock)
    action = '{"type": "action", "action": {"type": "pass"}, "req_id": "n1", '
    err = error_for(action + '"expected_version": NaN, "idempotency_key": "k"}')
    assert err["code"] == "non_finite_number" and err["field"] == "expected_version"
    err = error_for(action + f'"expected_version": {10**30}, "idempotency_key": "k"}}')
    assert err["code"] == "number_out_of_range" and err["field"] == "expected_version"
    err = error_for(action + f'"expected_version": {2**31}, "idempotency_key": "k"}}')
    assert err["status"] == 422 and err["field"] == "expected_version" and err["req_id"] == "n1"
    err = error_for('{"type": "hello", "last_seq": 1e300}')
    assert err["field"] == "last_seq"
    err = error_for("[1, 2]")
    assert err["status"] == 400 and err["code"] == "not_an_object"
    err = error_for('{"no_type": 1}')
    assert err["status"] == 422 and err["field"] == "type"
    alive(sock)
    assert int(frames_table.players[0].view(frames_table.game_id)["version"]) == version
    assert "refused a frame (422 json_too_deep)" in live_server.log()


def test_an_idempotency_key_reused_on_the_socket_is_refused(
    live_server: Any, sockets: Any, new_player: Any
) -> None:
    table = make_table(live_server, new_player)
    socks = {
        seat: sockets(live_server, table.game_id, p)
        for seat, p in zip(table.seats, table.players, strict=True)
    }
    for sock in socks.values():
        sock.wait_for(is_snapshot)
    sock = next(s for s in socks.values() if s.state and s.state["legal_actions"])
    legal, version = sock.state["legal_actions"], sock.state["version"]  # type: ignore[index]
    first = sock.act(legal[0], version, idempotency_key="same-key")
    assert first["type"] == "ack"
    again = sock.act({**legal[0], "other": True}, version, idempotency_key="same-key")
    assert again["type"] == "error" and again["code"] == "idempotency_key_reused"
    assert again["status"] == 422


# --------------------------------------------------------------------------- the fuzzer

FIELDS = [
    "type",
    "action",
    "expected_version",
    "idempotency_key",
    "req_id",
    "last_seq",
    "last_chat_id",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {
        "type": st.one_of(
            st.sampled_from(["hello", "action", "ping", "pong", "chat", ""]),
            st.text(max_size=10),
            json_values,
        )
    },
    optional={name: json_values for name in FIELDS[1:]}
    | {
        "action": st.one_of(
            json_values,
            st.fixed_dictionaries({"type": st.text(max_size=12)}, optional={"x": json_values}),
        )
    },
)


def encode(value: Any) -> str:
    """JSON as a careless client might write it: NaN / Infinity included."""
    return json.dumps(value, allow_nan=True)


frames = st.one_of(
    messages.map(encode),
    json_values.map(encode),
    st.text(max_size=60),
    st.integers(min_value=1, max_value=200).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=1, max_value=200).map(lambda n: '{"a":' * n + "1" + "}" * n),
)


class Fuzz:
    sock: GameSocket | None = None


def test_fuzzed_frames_get_protocol_answers_and_no_server_error(
    live_server: Any, frames_table: Table
) -> None:
    state = Fuzz()
    opened: list[GameSocket] = []

    def socket() -> GameSocket:
        if state.sock is None or state.sock.closed is not None:
            state.sock = GameSocket(
                live_server.url, frames_table.game_id, frames_table.players[0].session_cookie
            )
            opened.append(state.sock)
            state.sock.wait_for(is_snapshot)
        return state.sock

    @settings(
        max_examples=150,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        derandomize=True,
    )
    @given(frame=frames)
    def check(frame: str) -> None:
        sock = socket()
        start = sock.count()
        sock.ws.send(frame)
        alive(sock)  # answered in order: whatever the frame caused came before the pong
        with sock._cond:
            answers = sock.messages[start:]
        for message in answers:
            assert message.get("type") in KNOWN_TYPES, message
            if message["type"] == "error":
                assert 400 <= int(message["status"]) < 500, message
                assert isinstance(message["reason"], str) and message["reason"]

    try:
        check()
    finally:
        for sock in opened:
            sock.close()
    time.sleep(0.2)
    log = live_server.log()
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


def test_socket_actions_share_the_per_user_rate_limit(
    start_server: Any, sqlite_url: str, sockets: Any, new_player: Any
) -> None:
    server = start_server(sqlite_url, env={"RATE_ACTIONS": "3/60"})
    table = make_table(server, new_player)
    sock = sockets(server, table.game_id, table.players[0])
    sock.wait_for(is_snapshot)
    # One over HTTP, two on the socket: the fourth, on the socket, is over the limit.
    r = table.players[0].act(table.game_id, {"type": "nonsense"}, 0)
    assert r.status_code in (409, 422)
    for _ in range(2):
        answer = sock.act({"type": "nonsense"}, 0)
        assert answer["type"] == "error" and answer["status"] in (409, 422)
    answer = sock.act({"type": "nonsense"}, 0)
    assert answer["type"] == "error" and answer["status"] == 429
    assert answer["code"] == "rate_limited" and answer["retry_after"] >= 1
    alive(sock)
