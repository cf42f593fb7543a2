"""A socket that never reads cannot delay the others (bounded queues), and a socket
that stops answering heartbeats is dropped."""

from __future__ import annotations

import base64
import json
import os
import random
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from .conftest import bot_pick, make_table
from .test_ws_protocol import is_snapshot


class DeadSocket:
    """A raw TCP websocket client: handshake, one hello, then it never reads again."""

    def __init__(self, base_url: str, game_id: int, cookie: str) -> None:
        parts = urlsplit(base_url)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect((parts.hostname, parts.port))
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /ws/games/{game_id} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Cookie: ig_session={cookie}\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)  # byte by byte: read nothing past the headers
        assert head.startswith(b"HTTP/1.1 101"), head
        self.send_text(json.dumps({"type": "hello", "last_seq": None}))

    def send_text(self, text: str) -> None:
        payload = text.encode()
        assert len(payload) < 126
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)

    def drain_until_closed(self, timeout: float) -> bool:
        """Read everything the server buffered; True when the server closed the connection."""
        self.sock.settimeout(timeout)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if not self.sock.recv(1 << 20):
                    return True
        except (TimeoutError, ConnectionResetError):
            return False
        return False

    def close(self) -> None:
        self.sock.close()


def test_a_socket_that_never_reads_is_dropped_and_delays_nobody(
    sqlite_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    server = start_server(sqlite_url, env={"WS_QUEUE_SIZE": "4"})
    table = make_table(server, new_player)
    s0, s1 = table.seats
    fast = {
        s0: sockets(server, table.game_id, table.player_of_seat(s0), label="fast-0"),
        s1: sockets(server, table.game_id, table.player_of_seat(s1), label="fast-1"),
    }
    watcher = sockets(server, table.game_id, None, label="watcher")
    for sock in [*fast.values(), watcher]:
        sock.wait_for(is_snapshot)
    dead = DeadSocket(server.url, table.game_id, table.players[0].session_cookie)
    try:
        versions: list[int] = []
        rng = random.Random(4)
        # Enough changes to fill the dead peer's TCP buffers and then its bounded queue.
        for _ in range(150):
            current = max(s.known for s in fast.values())
            for each in fast.values():
                each.wait_version(current)
            state = fast[s0].state
            assert state is not None
            if state["status"] != "active":
                break
            sock = fast[int(state["prompts"][0]["seat"])]
            reply = sock.act(bot_pick(sock.state or {}, rng), current)
            assert reply["type"] == "ack", reply
            versions.append(reply["version"])
        assert len(versions) > 60
        # Every update reached the watcher promptly (commit -> receipt), all along.
        delays = []
        for version in versions:
            msg = watcher.wait_version(version)
            if msg.get("version") == version and "committed_at" in msg:
                at = watcher.received_at[watcher.messages.index(msg)]
                delays.append(at - msg["committed_at"])
        assert len(delays) > len(versions) // 2
        # A hub that waited on the dead peer would stall every socket for good; these
        # bounds are loose only because the test machine may be busy.
        delays.sort()
        assert delays[len(delays) // 2] < 0.25 and delays[-1] < 2.0, delays[-5:]
        # The dead socket was cut off by the server (its queue filled).
        assert dead.drain_until_closed(timeout=15), "the server kept the dead socket"
    finally:
        dead.close()
    log = server.log()
    assert "send queue full" in log, log[-3000:]
    assert "Traceback" not in log, log[-3000:]


def test_a_socket_that_stops_answering_heartbeats_is_closed(
    sqlite_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    server = start_server(sqlite_url, env={"WS_HEARTBEAT_S": "0.5"})
    table = make_table(server, new_player)
    alive = sockets(server, table.game_id, table.players[0], label="alive")
    silent = sockets(server, table.game_id, table.players[1], answer_pings=False, label="silent")
    for sock in (alive, silent):
        sock.wait_for(is_snapshot)
    started = time.monotonic()
    closed = silent.wait_closed(timeout=8)
    assert time.monotonic() - started < 5
    assert getattr(getattr(closed, "rcvd", None), "code", None) == 4408, closed
    assert sum(1 for m in silent.messages if m.get("type") == "ping") >= 1
    # The one that answers stays connected and keeps receiving pings.
    time.sleep(1.5)
    assert alive.closed is None
    pings = [m for m in alive.messages if m.get("type") == "ping"]
    assert len(pings) >= 4
    assert threading.active_count() > 0
