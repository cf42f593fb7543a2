"""Accounts: argon2 hashes, case-insensitive names, clear messages, throttling,
cookie flags and CSRF — at the service level on both databases and over real HTTP."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.services import accounts
from app.services.errors import Conflict, Invalid, Throttled
from app.store.models import User

PASSWORD = "correct horse 1"


def name() -> str:
    return f"u{uuid.uuid4().hex[:10]}"


# --------------------------------------------------------------------------- services


def test_signup_stores_an_argon2_hash_and_names_are_case_insensitive(db: Any) -> None:
    user = accounts.signup(db, "Livia_Drusilla", PASSWORD)
    db.commit()
    stored = db.scalar(select(User).where(User.id == user.id))
    assert stored.password_hash.startswith("$argon2id$")
    assert PASSWORD not in stored.password_hash
    with pytest.raises(Conflict, match="taken"):
        accounts.signup(db, "livia_drusilla", "another password")
    assert accounts.authenticate(db, "LIVIA_drusilla", PASSWORD, "1.2.3.4").id == user.id


@pytest.mark.parametrize(
    ("username", "password", "field"),
    [
        ("ab", PASSWORD, "username"),
        ("has space", PASSWORD, "username"),
        ("okname", "short", "password"),
    ],
)
def test_signup_refuses_bad_input_naming_the_field(
    db: Any, username: str, password: str, field: str
) -> None:
    with pytest.raises(Invalid) as caught:
        accounts.signup(db, username, password)
    assert caught.value.extra["field"] == field


def test_throttling_after_five_failures_per_name_and_address(db: Any) -> None:
    accounts.signup(db, "marcus", PASSWORD)
    db.commit()
    for _ in range(accounts.THROTTLE_FAILURES):
        with pytest.raises(accounts.LoginFailed):
            accounts.authenticate(db, "marcus", "wrong password", "10.0.0.1")
        db.commit()
    with pytest.raises(Throttled, match="Too many failed log-ins"):
        accounts.authenticate(db, "marcus", PASSWORD, "10.0.0.1")
    # Another address is not locked out by someone else's guesses.
    assert accounts.authenticate(db, "marcus", PASSWORD, "10.0.0.2").username == "marcus"


def test_sessions_store_only_a_hash_of_the_token(db: Any) -> None:
    user = accounts.signup(db, "octavia", PASSWORD)
    token, row = accounts.create_session(db, user, days=1)
    db.commit()
    assert row.token_hash != token and row.token_hash == accounts.hash_token(token)
    assert accounts.session_for_token(db, token).user_id == user.id
    assert accounts.session_for_token(db, token + "x") is None
    accounts.logout(db, token)
    db.commit()
    assert accounts.session_for_token(db, token) is None


# --------------------------------------------------------------------------- HTTP


def test_api_signup_sets_a_safe_cookie_and_me_returns_the_csrf_token(live_server: Any) -> None:
    username = name()
    with httpx.Client(base_url=live_server.url) as http:
        r = http.post("/api/signup", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200, r.text
        cookie = r.headers["set-cookie"]
        assert "ig_session=" in cookie
        assert "HttpOnly" in cookie
        assert re.search(r"SameSite=lax", cookie, re.I)
        assert "Secure" not in cookie  # served over plain HTTP in this test
        me = http.get("/api/me").json()
        assert me["user"]["username"] == username
        assert me["csrf_token"] == r.json()["csrf_token"]


def test_secure_cookies_setting_adds_the_secure_flag(start_server: Any, sqlite_url: str) -> None:
    server = start_server(sqlite_url, env={"SECURE_COOKIES": "true"})
    r = httpx.post(f"{server.url}/api/signup", json={"username": name(), "password": PASSWORD})
    assert r.status_code == 200
    assert "Secure" in r.headers["set-cookie"]


def test_api_messages_for_taken_name_and_wrong_password(live_server: Any) -> None:
    username = name()
    url = live_server.url
    assert (
        httpx.post(
            f"{url}/api/signup", json={"username": username, "password": PASSWORD}
        ).status_code
        == 200
    )
    taken = httpx.post(
        f"{url}/api/signup", json={"username": username.upper(), "password": PASSWORD}
    )
    assert taken.status_code == 409
    assert "taken" in taken.json()["detail"]
    wrong = httpx.post(f"{url}/api/login", json={"username": username, "password": "nope nope"})
    assert wrong.status_code == 401
    assert wrong.json()["detail"] == "Wrong username or password."
    ok = httpx.post(f"{url}/api/login", json={"username": username, "password": PASSWORD})
    assert ok.status_code == 200


def test_api_login_throttled_with_429(live_server: Any) -> None:
    username = name()
    url = live_server.url
    httpx.post(f"{url}/api/signup", json={"username": username, "password": PASSWORD})
    codes = [
        httpx.post(
            f"{url}/api/login", json={"username": username, "password": "bad guess 1"}
        ).status_code
        for _ in range(6)
    ]
    assert codes == [401] * 5 + [429]
    r = httpx.post(f"{url}/api/login", json={"username": username, "password": PASSWORD})
    assert r.status_code == 429
    assert "try again in 15 minutes" in r.json()["detail"]


def test_api_writes_without_the_csrf_header_are_refused(live_server: Any, new_player: Any) -> None:
    player = new_player(live_server)
    bare = httpx.Client(base_url=live_server.url, cookies={"ig_session": player.session_cookie})
    for path in ("/api/logout", "/api/games"):
        r = bare.post(path, json={})
        assert r.status_code == 403, (path, r.text)
        assert "CSRF" in r.json()["detail"]
    r = bare.post("/api/logout", headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    assert bare.get("/api/me").status_code == 200  # still logged in: nothing happened
    r = bare.post("/api/logout", headers={"X-CSRF-Token": player.csrf})
    assert r.status_code == 200
    assert bare.get("/api/me").status_code == 401
    bare.close()


def test_signup_and_login_accept_json_only(live_server: Any) -> None:
    """A cross-site HTML form cannot send JSON: the anonymous API endpoints need no token."""
    r = httpx.post(f"{live_server.url}/api/signup", data={"username": name(), "password": PASSWORD})
    assert r.status_code == 422


def _csrf_from(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


def test_form_signup_login_logout_with_csrf(live_server: Any) -> None:
    username = name()
    with httpx.Client(base_url=live_server.url) as http:
        page = http.get("/signup")
        token = _csrf_from(page.text)
        assert 'name="csrf-token"' in page.text
        # Without the token the form is refused and no account is made.
        r = http.post("/signup", data={"username": username, "password": PASSWORD})
        assert r.status_code == 403
        assert "CSRF" in r.text
        r = http.post(
            "/signup", data={"username": username, "password": PASSWORD, "csrf_token": token}
        )
        assert r.status_code == 303 and r.headers["location"] == "/games/new"
        home = http.get("/")
        assert username in home.text
        r = http.post("/logout", data={"csrf_token": "wrong"})
        assert r.status_code == 403
        r = http.post("/logout", data={"csrf_token": _csrf_from(home.text)})
        assert r.status_code == 303
        assert http.get("/api/me").status_code == 401
        login = http.get("/login")
        r = http.post(
            "/login",
            data={
                "username": username,
                "password": "bad password",
                "csrf_token": _csrf_from(login.text),
            },
        )
        assert r.status_code == 401 and "Wrong username or password." in r.text
        r = http.post(
            "/login",
            data={"username": username, "password": PASSWORD, "csrf_token": _csrf_from(login.text)},
        )
        assert r.status_code == 303
        assert http.get("/api/me").json()["user"]["username"] == username


def test_an_invite_survives_the_header_sign_up_button(live_server: Any) -> None:
    """An invite link sends a visitor to /login?next=/join/...; the header's "Sign up"
    and "Log in" buttons there keep that way on, as the page's own link does."""
    with httpx.Client(base_url=live_server.url) as http:
        page = http.get("/login", params={"next": "/join/abc"}).text
        assert page.count('href="/signup?next=/join/abc"') == 2  # the header's and the page's
        page = http.get("/signup", params={"next": "/join/abc"}).text
        assert 'href="/login?next=/join/abc"' in page
        assert 'href="/signup"' in http.get("/").text  # elsewhere, a plain sign-up


def test_form_signup_taken_name_message(live_server: Any, new_player: Any) -> None:
    taken = new_player(live_server).username
    with httpx.Client(base_url=live_server.url) as http:
        token = _csrf_from(http.get("/signup").text)
        r = http.post(
            "/signup", data={"username": taken, "password": PASSWORD, "csrf_token": token}
        )
        assert r.status_code == 409
        assert "is taken" in r.text


def test_notice_preferences_by_api_and_form(live_server: Any, new_player: Any) -> None:
    player = new_player(live_server)
    r = player.http.patch("/api/me", json={"email": "p@example.org", "daily_digest": True})
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert user["email"] == "p@example.org" and user["daily_digest"] and user["notify_turns"]
    r = player.http.patch("/api/me", json={"webhook_url": "ftp://nope"})
    assert r.status_code == 422 and r.json()["field"] == "webhook_url"
    # the server's own network is not a webhook target (server-side request forgery)
    r = player.http.patch("/api/me", json={"webhook_url": "http://169.254.169.254/latest/"})
    assert r.status_code == 422 and r.json()["field"] == "webhook_url"
    assert "public address" in r.json()["detail"]
    page = player.http.get("/account")
    assert page.status_code == 200 and "p@example.org" in page.text
    r = player.http.post(
        "/account",
        data={
            "email": "",
            "webhook_url": "https://hooks.example/x",
            "csrf_token": _csrf_from(page.text),
        },
    )
    assert r.status_code == 303
    user = player.http.get("/api/me").json()["user"]
    assert user["email"] is None and user["webhook_url"] == "https://hooks.example/x"
    assert user["notify_turns"] is False and user["daily_digest"] is False  # unticked boxes


def test_purge_removes_expired_sessions_and_old_failures(db: Any) -> None:
    from datetime import timedelta

    user = accounts.signup(db, "quintus", PASSWORD)
    token, _ = accounts.create_session(db, user, days=1)
    with pytest.raises(accounts.LoginFailed):
        accounts.authenticate(db, "quintus", "wrong password", "10.0.0.9")
    db.commit()
    assert accounts.purge(db) == (0, 0)
    later = accounts.utcnow() + timedelta(days=2)
    assert accounts.purge(db, later) == (1, 1)
    db.commit()
    assert accounts.session_for_token(db, token) is None


def test_password_hashing_runs_a_bounded_number_at_once(monkeypatch: Any) -> None:
    """Each argon2 hash holds 64 MiB while it runs: a burst of sign-ups or log-ins
    queues for a few at a time instead of holding a gigabyte (40 at once: 1.3 GB)."""
    import threading
    import time

    running = peak = 0
    lock = threading.Lock()

    class Counting:  # stands in for argon2: the bound is what is tested
        def hash(self, password: str) -> str:
            nonlocal running, peak
            with lock:
                running += 1
                peak = max(peak, running)
            try:
                time.sleep(0.05)
                return f"hashed {password}"
            finally:
                with lock:
                    running -= 1

    monkeypatch.setattr(accounts, "_hasher", Counting())
    threads = [threading.Thread(target=accounts.hash_password, args=("pw",)) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak <= accounts.HASHING_AT_ONCE
    assert peak >= 2
