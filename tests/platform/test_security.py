"""The security review of issue 12, each over real HTTP against uvicorn: a fresh session
on every log-in, log out everywhere, password change, password reset by e-mail (a real
SMTP server, aiosmtpd) with a single-use expiring token, rate limits with Retry-After,
and account deletion that keeps finished games' records intact and anonymised."""

from __future__ import annotations

import random
import re
import socket
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller

from app import bots
from app.services import accounts, records
from app.store.db import make_engine, make_sessionmaker
from app.store.models import User
from app.store.types import utcnow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Mailbox:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Mailbox, int]]:
    box, port = Mailbox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    yield box, port
    controller.stop()


def me(http: httpx.Client) -> int:
    return http.get("/api/me").status_code


def client_with(base: str, token: str) -> httpx.Client:
    http = httpx.Client(base_url=base, timeout=30)
    http.cookies.set("ig_session", token, domain="127.0.0.1")
    return http


def test_every_log_in_gets_a_new_session_and_ends_the_one_it_came_with(
    live_server: Any, new_player: Any
) -> None:
    alice = new_player(live_server)
    before = alice.session_cookie
    assert before and me(alice.http) == 200
    # A token planted before the log-in (session fixation) is not kept: the server
    # issues its own and the old one stops working.
    assert alice.login().status_code == 200
    after = alice.session_cookie
    assert after and after != before
    with client_with(live_server.url, before) as old:
        assert me(old) == 401
    planted = httpx.Client(base_url=live_server.url, timeout=30)
    planted.cookies.set("ig_session", "attacker-chosen-value", domain="127.0.0.1")
    r = planted.post("/api/login", json={"username": alice.username, "password": alice.password})
    assert r.status_code == 200
    assert planted.cookies.get("ig_session") not in (None, "attacker-chosen-value")
    with client_with(live_server.url, "attacker-chosen-value") as attacker:
        assert me(attacker) == 401
    planted.close()
    # The form log-in does the same.
    page = httpx.Client(base_url=live_server.url, timeout=30)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.get("/login").text)
    assert csrf
    page.cookies.set("ig_session", after, domain="127.0.0.1")
    r = page.post(
        "/login",
        data={"username": alice.username, "password": alice.password, "csrf_token": csrf[1]},
    )
    assert r.status_code in (200, 303)
    assert page.cookies.get("ig_session") not in (None, after)
    with client_with(live_server.url, after) as old:
        assert me(old) == 401
    page.close()


def test_log_out_everywhere_and_change_password(live_server: Any, new_player: Any) -> None:
    alice = new_player(live_server)
    phone = httpx.Client(base_url=live_server.url, timeout=30)
    r = phone.post("/api/login", json={"username": alice.username, "password": alice.password})
    assert r.status_code == 200 and me(phone) == 200 and me(alice.http) == 200

    # Password change: the current one must be right, the new one strong.
    r = alice.http.post(
        "/api/me/password", json={"current_password": "nope nope", "new_password": "new horse 22"}
    )
    assert r.status_code == 422 and r.json()["field"] == "current_password"
    r = alice.http.post(
        "/api/me/password", json={"current_password": alice.password, "new_password": "short"}
    )
    assert r.status_code == 422 and r.json()["field"] == "password"
    assert me(phone) == 200  # nothing changed
    old_token = alice.session_cookie
    r = alice.http.post(
        "/api/me/password",
        json={"current_password": alice.password, "new_password": "new horse 22"},
    )
    assert r.status_code == 200, r.text
    alice.http.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    assert alice.session_cookie != old_token and me(alice.http) == 200
    assert me(phone) == 401  # every other session ended
    bad = httpx.post(
        f"{live_server.url}/api/login",
        json={"username": alice.username, "password": alice.password},
    )
    assert bad.status_code == 401
    r = phone.post("/api/login", json={"username": alice.username, "password": "new horse 22"})
    assert r.status_code == 200 and me(phone) == 200

    # Log out everywhere: this browser and the phone.
    r = alice.http.post("/api/logout-everywhere")
    assert r.status_code == 200 and r.json()["sessions_ended"] == 2
    assert me(alice.http) == 401 and me(phone) == 401
    phone.close()


def test_password_reset_by_email_is_single_use_and_expires(
    start_server: Any, sqlite_url: str, smtp: tuple[Mailbox, int]
) -> None:
    box, port = smtp
    server = start_server(
        sqlite_url,
        env={
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": str(port),
            "BASE_URL": "http://game.example",
        },
    )
    http = httpx.Client(base_url=server.url, timeout=30)
    r = http.post(
        "/api/signup",
        json={"username": "resetter", "password": "correct horse 1", "email": "r@example.org"},
    )
    assert r.status_code == 200
    # Unknown names and addresses get the very same answer, and no mail.
    unknown = http.post("/api/password-reset", json={"who": "nobody-here"})
    assert unknown.status_code == 202
    for who in ("R@example.org", "resetter"):
        r = http.post("/api/password-reset", json={"who": who})
        assert r.status_code == 202 and r.json() == unknown.json()
    assert len(box.messages) == 2
    links = [
        re.search(
            r"http://game\.example/reset-password\?token=(\S+)", m.get_payload(decode=True).decode()
        )
        for m in box.messages
    ]
    assert all(links) and box.messages[0]["To"] == "r@example.org"
    token = links[0][1]  # type: ignore[index]

    r = http.post("/api/password-reset/confirm", json={"token": token, "new_password": "x"})
    assert r.status_code == 422 and r.json()["field"] == "password"  # too short: token kept
    r = http.post(
        "/api/password-reset/confirm", json={"token": token, "new_password": "fresh horse 7"}
    )
    assert r.status_code == 200, r.text
    assert me(http) == 401  # every session ended
    # Used once: both links are dead now (the password they were made for changed).
    for link in links:
        r = http.post(
            "/api/password-reset/confirm",
            json={"token": link[1], "new_password": "third horse 9"},  # type: ignore[index]
        )
        assert r.status_code == 422 and r.json()["code"] == "bad_reset_token"
    r = http.post("/api/login", json={"username": "resetter", "password": "fresh horse 7"})
    assert r.status_code == 200
    # Tampered and expired tokens.
    uid, expires, sig = token.split(".")
    for forged in (f"{uid}.{int(expires) + 60}.{sig}", f"{int(uid) + 1}.{expires}.{sig}", "x.y"):
        r = http.post(
            "/api/password-reset/confirm", json={"token": forged, "new_password": "forged 123"}
        )
        assert r.status_code == 422 and r.json()["code"] == "bad_reset_token"
    eng = make_engine(sqlite_url)
    with make_sessionmaker(eng)() as db:
        user = db.get(User, int(uid))
        assert user is not None
        stale = accounts.reset_token(user, now=utcnow() - accounts.RESET_VALID - timedelta(1))
        fresh = accounts.reset_token(user)
    eng.dispose()
    r = http.post(
        "/api/password-reset/confirm", json={"token": stale, "new_password": "late 12345"}
    )
    assert r.status_code == 422 and r.json()["code"] == "bad_reset_token"
    # The page flow: the link's form sets the password.
    page = httpx.Client(base_url=server.url, timeout=30)
    form = page.get("/reset-password", params={"token": fresh})
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert form.status_code == 200 and csrf and fresh in form.text
    r = page.post(
        "/reset-password",
        data={"token": fresh, "new_password": "page horse 5", "csrf_token": csrf[1]},
    )
    assert r.status_code == 303 and r.headers["location"] == "/login"
    r = http.post("/api/login", json={"username": "resetter", "password": "page horse 5"})
    assert r.status_code == 200
    page.close()
    http.close()


def test_rate_limits_answer_429_with_retry_after(start_server: Any, sqlite_url: str) -> None:
    server = start_server(
        sqlite_url,
        env={"RATE_SIGNUP": "3/3600", "RATE_CHAT": "2/60", "RATE_ACTIONS": "3/60"},
    )

    def signup(name: str) -> httpx.Response:
        return httpx.post(
            f"{server.url}/api/signup", json={"username": name, "password": "correct horse 1"}
        )

    players = []
    for name in ("rl_a", "rl_b", "rl_c"):
        r = signup(name)
        assert r.status_code == 200
        http = httpx.Client(base_url=server.url, timeout=30, cookies=r.cookies)
        http.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        players.append(http)
    r = signup("rl_d")
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert 1 <= int(r.headers["retry-after"]) <= 3600
    assert "sign-ups" in r.json()["detail"]

    a, b = players[0], players[1]
    game = a.post(
        "/api/games",
        json={"scenario": "teaching", "seats": [{"kind": "human"}, {"kind": "human"}]},
    ).json()
    assert b.post(f"/api/games/{game['id']}/join", json={}).status_code == 200
    assert a.post(f"/api/games/{game['id']}/start").status_code == 200
    for text in ("hello", "again"):
        assert a.post(f"/api/games/{game['id']}/chat", json={"text": text}).status_code == 201
    r = a.post(f"/api/games/{game['id']}/chat", json={"text": "spam"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    assert b.post(f"/api/games/{game['id']}/chat", json={"text": "hi"}).status_code == 201

    # Actions: per user, refused ones count too (a flood of bad actions is a flood).
    for i in range(3):
        r = a.post(
            f"/api/games/{game['id']}/actions",
            json={"action": {"type": "nonsense"}, "expected_version": 0, "idempotency_key": f"{i}"},
        )
        assert r.status_code in (409, 422)
    r = a.post(
        f"/api/games/{game['id']}/actions",
        json={"action": {"type": "nonsense"}, "expected_version": 0, "idempotency_key": "x"},
    )
    assert r.status_code == 429 and r.headers["retry-after"].isdigit()
    messages = a.get(f"/api/games/{game['id']}/chat").json()["messages"]
    assert [m["text"] for m in messages] == ["hello", "again", "hi"]  # nothing over the limit
    for http in players:
        http.close()


def play_to_the_end(http: httpx.Client, gid: int) -> None:
    rng = random.Random(7)
    for _ in range(3000):
        data = http.get(f"/api/games/{gid}/view").json()
        if data["status"] != "active":
            return
        assert data["legal_actions"]
        action = bots.choose_action("random", data["view"], data["legal_actions"], rng)
        r = http.post(
            f"/api/games/{gid}/actions",
            json={
                "action": action,
                "expected_version": data["version"],
                "idempotency_key": f"{gid}-{data['version']}",
            },
        )
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_deleting_an_account_keeps_finished_records_intact_and_anonymised(
    live_server: Any, new_player: Any
) -> None:
    alice, bob = new_player(live_server), new_player(live_server)
    # A finished game against a bot (one short turn).
    done = alice.create_game(
        scenario="teaching",
        seats=[{"kind": "human"}, {"kind": "bot", "bot_level": "heuristic"}],
        options={"end_turn": 1, "rounds": 1},
    )
    assert alice.start(done["id"]).status_code == 200
    play_to_the_end(alice.http, done["id"])
    record = alice.http.get(f"/api/games/{done['id']}/record").json()
    assert alice.username in record["players"]
    # A running game with Bob, and a lobby game Alice hosts.
    running = alice.create_game(scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}])
    assert bob.join(running["id"]).status_code == 200
    assert alice.start(running["id"]).status_code == 200
    waiting = alice.create_game(scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}])

    r = alice.http.post("/api/me/delete", json={"password": "wrong password"})
    assert r.status_code == 422 and r.json()["field"] == "password"
    r = alice.http.post("/api/me/delete", json={"password": alice.password})
    assert r.status_code == 200, r.text
    assert me(alice.http) == 401
    r = httpx.post(
        f"{live_server.url}/api/login",
        json={"username": alice.username, "password": alice.password},
    )
    assert r.status_code == 401

    # The finished game's record: the same log, seed and hash, under an anonymous name.
    after = bob.http.get(f"/api/games/{done['id']}/record").json()
    anonymous = f"deleted-{alice.user_id}"
    assert after["players"] == [anonymous if p == alice.username else p for p in record["players"]]
    assert {k: v for k, v in after.items() if k != "players"} == {
        k: v for k, v in record.items() if k != "players"
    }
    ok, why = records.verify_record(after)
    assert ok, why
    # The running game goes on with a stand-in; the lobby game is cancelled.
    seats = bob.http.get(f"/api/games/{running['id']}").json()["seats"]
    gone = next(s for s in seats if s["index"] == 0)
    assert gone["standin"] and anonymous in str(gone)
    assert bob.http.get(f"/api/games/{waiting['id']}").json()["status"] == "aborted"
    # Nothing personal is left to find.
    text = httpx.get(f"{live_server.url}/api/games").text
    assert alice.username not in text
