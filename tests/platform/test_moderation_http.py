"""Moderation through the real server (issue 41, part 5): blocks and mutes over the API
and on sockets (a blocked person's lines never reach the blocker's socket; a muted
table's lines reach none of hers), reports with every refusal and the rate limit, the
admins' routes and page behind their checks, and suspensions: the account's sessions
and sockets end (4401 "account suspended") in every process — from the admin API and
from the command line, on PostgreSQL by its NOTIFY, on SQLite at the socket's
heartbeat — it cannot sign in (told why), its seat passes to a stand-in, announced;
unsuspended, it signs in again."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, LiveServer, Player, _servers
from tests.realtime.wsclient import GameSocket

#: this module's server: 3 reports an hour (the rate limit is reached by a test), and a
#: heartbeat each second (a suspension from the command line closes SQLite's sockets at
#: the next one)
ENV = {"RATE_REPORT": "3/3600", "WS_HEARTBEAT_S": "1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    workdir = tmp_path_factory.mktemp("moderation")
    with _servers(workdir) as start:
        yield start(f"sqlite:///{workdir / 'mod.sqlite3'}", ENV)


@pytest.fixture
def sockets() -> Iterator[Callable[..., GameSocket]]:
    """Sockets on a game as a player (her session cookie), all closed after the test."""
    opened: list[GameSocket] = []

    def open_(server: LiveServer, game_id: int, player: Player) -> GameSocket:
        sock = GameSocket(server.url, game_id, player.session_cookie, label=player.username)
        opened.append(sock)
        return sock

    yield open_
    for sock in opened:
        sock.close()


def admin_cli(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "admin", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def table_of(host: Player, *guests: Player, start: bool = False) -> int:
    """A public game of The Four Empires hosted by `host`, every guest seated."""
    seats = [{"kind": "human"}] * max(2, 1 + len(guests))
    game = host.create_game(scenario="four_empires", seats=seats)
    for guest in guests:
        r = guest.join(game["id"])
        assert r.status_code == 200, r.text
    if start:
        r = host.start(game["id"])
        assert r.status_code == 200, r.text
    return int(game["id"])


def say(player: Player, game_id: int, text: str) -> int:
    r = player.http.post(f"/api/games/{game_id}/chat", json={"text": text})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def chat_texts(player: Player, game_id: int) -> list[str]:
    r = player.http.get(f"/api/games/{game_id}/chat")
    assert r.status_code == 200, r.text
    return [m["text"] for m in r.json()["messages"]]


def said(sock: GameSocket, text: str, timeout: float = 10.0) -> dict[str, Any]:
    return sock.wait_for(
        lambda m: m.get("type") == "chat" and m["message"]["text"] == text, timeout
    )


def chat_seen(sock: GameSocket) -> list[str]:
    return [m["message"]["text"] for m in list(sock.messages) if m.get("type") == "chat"]


def anonymous(server: LiveServer) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def closed_code(sock: GameSocket, timeout: float = 10.0) -> tuple[int, str]:
    exc: Any = sock.wait_closed(timeout)
    frame = getattr(exc, "rcvd", None)
    assert frame is not None, repr(exc)
    return int(frame.code), str(frame.reason)


def test_a_block_and_a_mute_over_the_api_and_on_sockets(
    server: LiveServer,
    new_player: Callable[..., Player],
    sockets: Callable[..., GameSocket],
) -> None:
    alice, bob, carol = (new_player(server) for _ in range(3))
    game = table_of(alice, bob, carol, start=True)

    # The refusals first: not signed in, no CSRF token, oneself, nobody.
    with anonymous(server) as anon:
        assert anon.post("/api/me/blocks", json={"username": carol.username}).status_code == 401
    no_csrf = bob.http.post(
        "/api/me/blocks", json={"username": carol.username}, headers={"X-CSRF-Token": ""}
    )
    assert no_csrf.status_code == 403
    own = bob.http.post("/api/me/blocks", json={"username": bob.username})
    assert (own.status_code, own.json()["code"]) == (422, "self")
    assert bob.http.post("/api/me/blocks", json={"username": "nobody-here"}).status_code == 404

    a_sock = sockets(server, game, alice)
    b_sock = sockets(server, game, bob)
    for sock in (a_sock, b_sock):
        sock.wait_for(lambda m: m.get("type") in ("state", "sync"))

    r = bob.http.post("/api/me/blocks", json={"username": carol.username.upper()})
    assert (r.status_code, r.json()["username"]) == (201, carol.username)
    again = bob.http.post("/api/me/blocks", json={"username": carol.username})
    assert (again.status_code, again.json()["already"]) == (200, True)
    listed = bob.http.get("/api/me/blocks").json()["blocks"]
    assert [b["username"] for b in listed] == [carol.username]

    say(carol, game, "carol speaks")
    say(alice, game, "alice answers")
    said(a_sock, "carol speaks")
    said(b_sock, "alice answers")  # pushed in order: carol's line would have come first
    assert chat_seen(b_sock) == ["alice answers"]
    assert chat_texts(bob, game) == ["alice answers"]
    assert chat_texts(alice, game) == ["carol speaks", "alice answers"]

    # Muted: none of the table's lines reaches her sockets; unmuted, they come again.
    assert bob.http.put(f"/api/games/{game}/chat/mute").json() == {"muted": True}
    assert bob.http.get(f"/api/games/{game}/chat/mute").json() == {"muted": True}
    say(alice, game, "while bob is muted")
    said(a_sock, "while bob is muted")
    assert bob.http.delete(f"/api/games/{game}/chat/mute").json() == {"muted": False}
    say(alice, game, "bob hears again")
    said(b_sock, "bob hears again")
    assert chat_seen(b_sock) == ["alice answers", "bob hears again"]

    # Neither may join a table the other holds: 409 for the blocker, 403 for the blocked.
    carols = table_of(carol)
    refused = bob.join(carols)
    assert (refused.status_code, refused.json()["code"]) == (409, "you_block")
    bobs = table_of(bob)
    blocked = carol.join(bobs)
    assert (blocked.status_code, blocked.json()["code"]) == (403, "blocked")
    assert "has blocked you" in blocked.json()["detail"]

    assert bob.http.delete(f"/api/me/blocks/{carol.username}").status_code == 200
    assert bob.http.delete(f"/api/me/blocks/{carol.username}").status_code == 404
    assert carol.join(bobs).status_code == 200
    assert chat_texts(bob, game)[0] == "carol speaks"


def test_reports_their_refusals_and_the_rate_limit(
    server: LiveServer, new_player: Callable[..., Player]
) -> None:
    alice, bob, carol = (new_player(server) for _ in range(3))
    game = table_of(alice, bob, carol)
    lines = [say(carol, game, f"carol {i}") for i in range(4)]
    mine = say(bob, game, "bob's own")

    body = {"message_id": lines[0], "reason": "abuse", "text": "rude"}
    with anonymous(server) as anon:
        assert anon.post("/api/reports", json=body).status_code == 401
    assert (
        bob.http.post("/api/reports", json=body, headers={"X-CSRF-Token": "x"}).status_code == 403
    )
    made = bob.http.post("/api/reports", json=body)
    assert made.status_code == 201, made.text
    assert made.json()["report"]["reported"] == carol.username
    dup = bob.http.post("/api/reports", json=body)
    assert (dup.status_code, dup.json()["code"]) == (409, "already_reported")
    assert "already" in dup.json()["detail"]
    # The limit is 3 an hour here, and a refusal counts as a report asked for.
    assert bob.http.post("/api/reports", json={**body, "message_id": lines[1]}).status_code == 201
    over = bob.http.post("/api/reports", json={**body, "message_id": lines[2]})
    assert over.status_code == 429, over.text
    assert int(over.headers["Retry-After"]) > 0
    assert over.json()["code"] == "rate_limited"

    def refusal(**fields: Any) -> tuple[int, str]:
        r = alice.http.post("/api/reports", json={"reason": "abuse", **fields})
        return r.status_code, r.json().get("code", "")

    assert refusal(message_id=mine, reason="spam") == (201, "")  # another reporter's: fine
    assert refusal(message_id=999999) == (404, "not_found")
    assert refusal(message_id=lines[2], reason="nonsense") == (422, "bad_reason")
    with_own = carol.http.post("/api/reports", json={"reason": "spam", "message_id": lines[3]})
    assert (with_own.status_code, with_own.json()["code"]) == (422, "self")
    reasons = alice.http.get("/api/reports/reasons").json()
    assert [r["id"] for r in reasons["reasons"]][0] == "abuse" and reasons["max_text"] == 500


@pytest.mark.slow  # the command line, run four times
def test_admins_suspend_and_lift_and_every_refusal(
    server: LiveServer,
    new_player: Callable[..., Player],
    sockets: Callable[..., GameSocket],
) -> None:
    root, ops, alice, bob = (new_player(server) for _ in range(4))
    for admin in (root, ops):  # before their first request: no cached login to wait out
        done = admin_cli(server.database_url, "grant", admin.username)
        assert done.returncode == 0, done.stderr
    game = table_of(alice, bob, start=True)
    a_sock = sockets(server, game, alice)
    b_sock = sockets(server, game, bob)
    for sock in (a_sock, b_sock):
        sock.wait_for(lambda m: m.get("type") in ("state", "sync"))
    line = say(bob, game, "you all stink")
    assert alice.http.post("/api/reports", json={"message_id": line, "reason": "abuse"}).is_success

    # Refusals: not signed in, not an admin, no CSRF, oneself, an admin, nobody, no reason.
    with anonymous(server) as anon:
        assert anon.get("/api/admin/reports").status_code == 401
        page = anon.get("/admin", headers={"Accept": "text/html"}, follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert alice.http.get("/api/admin/reports").status_code == 403
    html = alice.http.get("/admin", headers={"Accept": "text/html"})
    assert html.status_code == 403 and "Only an admin" in html.text
    assert (
        alice.http.post(
            f"/api/admin/users/{bob.username}/suspend", json={"reason": "x"}
        ).status_code
        == 403
    )
    suspend = f"/api/admin/users/{bob.username}/suspend"
    assert (
        root.http.post(suspend, json={"reason": "x"}, headers={"X-CSRF-Token": ""}).status_code
        == 403
    )
    form = root.http.post(
        "/admin/suspend",
        data={"username": bob.username, "reason": "x"},
        headers={"Accept": "text/html"},
    )
    assert form.status_code == 403 and "CSRF" in form.text
    me = root.http.post(f"/api/admin/users/{root.username}/suspend", json={"reason": "x"})
    assert (me.status_code, me.json()["code"]) == (422, "self")
    other = root.http.post(f"/api/admin/users/{ops.username}/suspend", json={"reason": "x"})
    assert other.status_code == 403 and "is an admin" in other.json()["detail"]
    assert (
        root.http.post("/api/admin/users/nobody-here/suspend", json={"reason": "x"}).status_code
        == 404
    )
    assert root.http.post(suspend, json={"reason": "   "}).status_code == 422

    queue = root.http.get("/api/admin/reports").json()["reports"]
    mine = next(r for r in queue if r["message_id"] == line)
    assert [m["reported"] for m in mine["context"] if m["text"] == "you all stink"] == [True]
    assert root.http.get("/admin", headers={"Accept": "text/html"}).status_code == 200

    # The suspension: sockets closed, sessions gone, sign-in refused, a stand-in plays.
    r = root.http.post(suspend, json={"reason": "insults at the table"})
    assert r.status_code == 200, r.text
    assert r.json()["games"] == [game]
    assert closed_code(b_sock) == (4401, "4401 account suspended")
    assert bob.http.get("/api/me").status_code == 401
    refused = bob.login()
    assert (refused.status_code, refused.json()["code"]) == (403, "suspended")
    assert "insults at the table" in refused.json()["detail"]
    a_sock.wait_for(
        lambda m: any(
            "was suspended by the moderators" in e.get("text", "") for e in m.get("events") or []
        )
    )
    seats = alice.view(game)["seats"]
    assert [s["standin"] for s in seats if s["user_id"] == bob.user_id][0]
    listed = root.http.get("/api/admin/suspended").json()["suspended"]
    assert [(s["username"], s["by"]) for s in listed] == [(bob.username, root.username)]
    assert root.http.get("/api/admin/reports").json()["reports"] == [
        r for r in queue if r["reported"] != bob.username
    ]

    lifted = root.http.post(f"/api/admin/users/{bob.username}/unsuspend", json={"note": "sorry"})
    assert lifted.status_code == 200, lifted.text
    assert bob.login().status_code == 200
    log = [(e["action"], e["target"]) for e in root.http.get("/api/admin/log").json()["log"]]
    assert ("suspend", bob.username) in log and ("unsuspend", bob.username) in log

    # From the command line, on SQLite: his sockets close at their next heartbeat.
    again = sockets(server, game, bob)
    again.wait_for(lambda m: m.get("type") in ("state", "sync"))
    done = admin_cli(server.database_url, "suspend", bob.username, "--reason", "again")
    assert done.returncode == 0, done.stderr
    assert closed_code(again, timeout=15) == (4401, "4401 account suspended")
    reports = admin_cli(server.database_url, "log", "--limit", "3")
    assert "the command line suspend" in reports.stdout


@pytest.mark.slow  # two servers and the command line
@pytest.mark.postgres
def test_a_suspension_closes_sockets_in_every_process(
    start_server: Callable[..., LiveServer],
    pg_url: str,
    new_player: Callable[..., Player],
    sockets: Callable[..., GameSocket],
    tmp_path: Path,
) -> None:
    """Two server processes on one PostgreSQL: the suspension made on one (by the admin
    API) or by the command line closes the sockets held by the other, by NOTIFY."""
    first = start_server(pg_url)
    second = start_server(pg_url)
    root = new_player(first)
    assert admin_cli(pg_url, "grant", root.username).returncode == 0
    alice, bob = new_player(first), new_player(first)
    game = table_of(alice, bob, start=True)

    on_second = sockets(second, game, bob)
    watcher = sockets(second, game, alice)
    for sock in (on_second, watcher):
        sock.wait_for(lambda m: m.get("type") in ("state", "sync"))
    r = root.http.post(f"/api/admin/users/{bob.username}/suspend", json={"reason": "spam"})
    assert r.status_code == 200, r.text
    started = time.monotonic()
    assert closed_code(on_second, timeout=5) == (4401, "4401 account suspended")
    assert time.monotonic() - started < 5
    watcher.wait_for(
        lambda m: any("was suspended" in e.get("text", "") for e in m.get("events") or [])
    )

    assert root.http.post(f"/api/admin/users/{bob.username}/unsuspend").status_code == 200
    assert bob.login().status_code == 200
    back = sockets(second, game, bob)
    back.wait_for(lambda m: m.get("type") in ("state", "sync"))
    assert admin_cli(pg_url, "suspend", bob.username, "--reason", "again").returncode == 0
    assert closed_code(back, timeout=5) == (4401, "4401 account suspended")
    assert bob.http.get("/api/me").status_code == 401
