"""The limits of a server on the internet, each against a real server on SQLite and
PostgreSQL (issue 29, "the host's gaps"; issue 26, "friends behind one router"):

- a household's sign-ups from one address, and a log-in lockout that slows down the
  guessing address, never the account's owner elsewhere;
- trusted proxies: two clients behind one get limits of their own; a peer that is not
  trusted cannot choose its address with X-Forwarded-For;
- a rate on new games; caps on websockets per user and per address; head and body
  timeouts and a cap on connections per address (docs/api.md, "Limits").

The client's address is simulated as a proxy would give it: ``X-Forwarded-For`` from
127.0.0.1, which is trusted by default (``TRUSTED_PROXIES``).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
import uuid
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from app.services import ratelimit

PASSWORD = "correct horse 1"
#: the production limits (the test servers lift them unless told otherwise)
DEFAULT_LIMITS = {"RATE_SIGNUP": "", "RATE_RESET": "", "RATE_GAMES": ""}


def name() -> str:
    return f"h{uuid.uuid4().hex[:10]}"


def signup(base: str, address: str | None, username: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": address} if address else {}
    body = {"username": username or name(), "password": PASSWORD}
    return httpx.post(f"{base}/api/signup", json=body, headers=headers, timeout=60)


def login(base: str, address: str, username: str, password: str) -> httpx.Response:
    body = {"username": username, "password": password}
    headers = {"X-Forwarded-For": address}
    return httpx.post(f"{base}/api/login", json=body, headers=headers, timeout=60)


# --------------------------------------------------------------------------- issue 26, 8


def test_the_defaults_fit_a_household() -> None:
    assert ratelimit.LIMITS["signup"] == ratelimit.Limit(20, 86400.0)
    assert ratelimit.LIMITS["reset"].hits >= 20
    assert ratelimit.address_key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert ratelimit.address_key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert ratelimit.address_key("::ffff:198.51.100.7") == "198.51.100.7"
    assert ratelimit.address_key("198.51.100.7") == "198.51.100.7"
    assert ratelimit.RateLimited("games", 3599).message == (
        "Too many new games; try again in 60 minutes."
    )
    assert ratelimit.in_words(45) == "45 s" and ratelimit.in_words(86000) == "24 hours"


def test_a_household_signs_up_behind_one_address(db_url: str, start_server: Any) -> None:
    """Six friends behind one router all get accounts (the sixth was refused at 5 an
    hour); the day's ceiling still holds, for that address only."""
    server = start_server(db_url, env=DEFAULT_LIMITS)
    home = "198.51.100.20"
    for _ in range(6):
        r = signup(server.url, home)
        assert r.status_code == 200, r.text
    for _ in range(14):
        assert signup(server.url, home).status_code == 200
    r = signup(server.url, home)
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert "sign-ups from your address" in r.json()["detail"]
    assert 3600 < int(r.headers["retry-after"]) <= 86400
    assert signup(server.url, "198.51.100.21").status_code == 200  # the neighbours


def test_a_lockout_slows_the_guessing_address_not_the_owner(db_url: str, start_server: Any) -> None:
    server = start_server(db_url)
    owner = name()
    assert signup(server.url, "198.51.100.30", owner).status_code == 200
    guesser = "203.0.113.66"
    for _ in range(5):
        r = login(server.url, guesser, owner, "wrong guess")
        assert r.status_code == 401
    r = login(server.url, guesser, owner, "another guess")
    assert r.status_code == 429 and r.json()["code"] == "throttled"
    assert 1 <= int(r.headers["retry-after"]) <= 900
    # The right password from the guessing address does not get through either...
    assert login(server.url, guesser, owner, PASSWORD).status_code == 429
    # ... but the owner logs in from home and from anywhere else, as before.
    assert login(server.url, "198.51.100.30", owner, PASSWORD).status_code == 200
    assert login(server.url, "192.0.2.77", owner, PASSWORD).status_code == 200
    # An IPv6 guesser is one guesser across its /64.
    other = name()
    assert signup(server.url, "198.51.100.31", other).status_code == 200
    for i in range(5):
        assert login(server.url, f"2001:db8:5:6::{i + 1}", other, "nope").status_code == 401
    assert login(server.url, "2001:db8:5:6::ff", other, "nope").status_code == 429
    assert login(server.url, "2001:db8:5:7::1", other, PASSWORD).status_code == 200


# --------------------------------------------------------------------------- proxies


def test_two_clients_behind_one_trusted_proxy_get_limits_of_their_own(
    db_url: str, start_server: Any
) -> None:
    server = start_server(db_url, env={"RATE_SIGNUP": "2/3600"})  # 127.0.0.1: the proxy
    alice_home, bob_home = "198.51.100.1", "198.51.100.2"
    for _ in range(2):
        assert signup(server.url, alice_home).status_code == 200
    assert signup(server.url, alice_home).status_code == 429
    assert signup(server.url, bob_home).status_code == 200
    # Alice cannot pose as someone else: the proxy appends the address it saw, and the
    # server reads the nearest address it does not trust.
    assert signup(server.url, f"{bob_home}, {alice_home}").status_code == 429
    assert signup(server.url, bob_home).status_code == 200
    assert signup(server.url, bob_home).status_code == 429


def test_a_peer_that_is_not_trusted_cannot_choose_its_address(
    db_url: str, start_server: Any
) -> None:
    server = start_server(db_url, env={"RATE_SIGNUP": "2/3600", "TRUSTED_PROXIES": "10.9.8.7"})
    assert signup(server.url, "198.51.100.1").status_code == 200
    assert signup(server.url, "198.51.100.2").status_code == 200
    r = signup(server.url, "198.51.100.3")  # all three are 127.0.0.1's
    assert r.status_code == 429, r.text


def test_a_malformed_proxy_setting_stops_the_start(sqlite_url: str, start_server: Any) -> None:
    with pytest.raises(RuntimeError) as caught:
        start_server(sqlite_url, env={"TRUSTED_PROXIES": "127.0.0.1, the-balancer"})
    assert "TRUSTED_PROXIES: 'the-balancer' is not an address or network" in str(caught.value)


# --------------------------------------------------------------------------- games, sockets


def test_new_games_are_rate_limited_per_user(db_url: str, start_server: Any) -> None:
    server = start_server(db_url, env={"RATE_GAMES": "3/3600"})
    users = []
    for address in ("198.51.100.40", "198.51.100.41"):
        r = signup(server.url, address)
        http = httpx.Client(base_url=server.url, timeout=60, cookies=r.cookies)
        http.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        users.append(http)
    a, b = users
    for _ in range(3):
        assert a.post("/api/games", json={}).status_code == 201
    r = a.post("/api/games", json={})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert "new games" in r.json()["detail"] and int(r.headers["retry-after"]) >= 1
    assert b.post("/api/games", json={}).status_code == 201  # per user
    # The new-game form answers the same limit with its page.
    form = a.get("/games/new")
    token = form.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    r = a.post("/games/new", data={"csrf_token": token, "scenario": "teaching"})
    assert r.status_code == 429 and "Too many new games" in r.text
    mine = a.get("/api/games").json()["mine"]
    assert len(mine) == 3  # nothing over the limit was made
    for http in users:
        http.close()


def _socket(
    stack: contextlib.ExitStack, base: str, game_id: int, cookie: str | None, address: str
) -> Any:
    headers = {"X-Forwarded-For": address, "Origin": base}
    if cookie:
        headers["Cookie"] = f"ig_session={cookie}"
    url = base.replace("http://", "ws://") + f"/ws/games/{game_id}"
    return stack.enter_context(connect(url, additional_headers=headers, open_timeout=20))


def _refused_with(sock: Any) -> tuple[int, str] | None:
    """The close code and reason if the server closed `sock` at once, else None: the
    socket says hello, and an accepted one is answered with the game (docs/api.md),
    so nobody waits out a silence to tell the two apart."""
    try:
        sock.send(json.dumps({"type": "hello", "last_seq": None}))
        answer = json.loads(sock.recv(timeout=20))
    except ConnectionClosed as exc:
        assert exc.rcvd is not None
        return exc.rcvd.code, exc.rcvd.reason
    assert answer.get("type") != "error", answer
    return None


def test_sockets_are_capped_per_user_and_per_address(
    db_url: str, start_server: Any, new_player: Any
) -> None:
    server = start_server(db_url, env={"WS_PER_USER": "3", "WS_PER_ADDRESS": "4"})
    host = new_player(server)
    gid = host.create_game()["id"]
    cookie = host.session_cookie
    with contextlib.ExitStack() as stack:

        def open_(cookie: str | None, address: str) -> Any:
            return _socket(stack, server.url, gid, cookie, address)

        held = [open_(cookie, f"198.51.100.{50 + i}") for i in range(3)]
        assert all(_refused_with(s) is None for s in held)
        code, reason = _refused_with(open_(cookie, "198.51.100.60")) or (0, "")
        assert code == 1013 and "at most 3 per user" in reason
        held[0].close()
        time.sleep(0.5)
        assert _refused_with(open_(cookie, "198.51.100.60")) is None  # a closed tab's place
        # Spectators (no login) from one address: four, not five; another address apart.
        watchers = [open_(None, "203.0.113.9") for _ in range(4)]
        assert all(_refused_with(s) is None for s in watchers)
        code, reason = _refused_with(open_(None, "203.0.113.9")) or (0, "")
        assert code == 1013 and "at most 4 per address" in reason
        assert _refused_with(open_(None, "203.0.113.10")) is None


# --------------------------------------------------------------------------- connections


def _raw(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


def test_half_sent_requests_get_408_and_connections_are_capped(
    db_url: str, start_server: Any
) -> None:
    server = start_server(
        db_url,
        env={
            "HTTP_HEADER_TIMEOUT_S": "1",
            "HTTP_BODY_TIMEOUT_S": "1.5",
            "HTTP_CONNECTIONS_PER_ADDRESS": "4",
            "TRUSTED_PROXIES": "10.9.8.7",  # 127.0.0.1 is a client here, capped
        },
    )
    # A head that never ends.
    sock = _raw(server.port)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    started = time.monotonic()
    answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408 ") and b'"request_timeout"' in answer
    assert 0.8 < time.monotonic() - started < 5
    sock.close()
    # A body shorter than its Content-Length: 408, and nothing applied.
    sock = _raw(server.port)
    head = (
        b"POST /api/signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 80\r\n\r\n"
    )
    sock.sendall(head + b'{"username": "slowpoke", "password": "correct horse 1"')
    answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408 ") and b"body did not arrive" in answer
    sock.close()
    r = httpx.post(f"{server.url}/api/login", json={"username": "slowpoke", "password": PASSWORD})
    assert r.status_code == 401  # no account was made
    # A connection that sends nothing is closed.
    sock = _raw(server.port)
    assert _read_all(sock) == b""
    sock.close()
    # Four idle connections from one address; the fifth is told why and closed.
    idle = [_raw(server.port) for _ in range(4)]
    time.sleep(0.2)
    fifth = _raw(server.port)
    answer = _read_all(fifth)
    assert answer.startswith(b"HTTP/1.1 429 ") and b'"too_many_connections"' in answer
    fifth.close()
    for each in idle:
        each.close()
    time.sleep(0.3)
    with httpx.Client(base_url=server.url, timeout=30) as http:  # one keep-alive connection
        for _ in range(20):
            assert http.get("/healthz").status_code == 200
    log = server.log()
    assert "408: 127.0.0.1 sent no whole request head" in log
    assert "408: 127.0.0.1 sent no whole request body" in log
    assert "Traceback" not in log
