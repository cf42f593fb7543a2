"""The bench-only account route (``POST /api/bench/accounts``, app/web/routes/bench.py):
absent (404) unless the BENCH_ACCOUNTS setting is on, which nothing but a bench or a
test turns on (``make run`` never does); on, N logged-in accounts in one request."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from starlette.exceptions import HTTPException

from app.config import Settings
from app.services import accounts, bench
from app.services.errors import Conflict, Invalid
from app.store.models import User
from app.web.app import create_app
from app.web.routes.bench import bench_only

ROOT = Path(__file__).resolve().parents[2]
ROUTE = "/api/bench/accounts"


def answer(settings: Settings) -> int:
    """The status an app made with `settings` answers an empty POST to the route with
    (in process, no lifespan: routing and validation only, no database)."""

    async def post() -> int:
        transport = httpx.ASGITransport(app=create_app(settings))
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            return (await client.post(ROUTE, json={})).status_code

    return asyncio.run(post())


def test_the_setting_is_off_by_default_and_make_run_leaves_it_off(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str
) -> None:
    monkeypatch.delenv("BENCH_ACCOUNTS", raising=False)
    assert Settings().bench_accounts is False
    makefile = (ROOT / "Makefile").read_text()
    assert "BENCH_ACCOUNTS" not in makefile
    off = Settings(database_url=sqlite_url)
    on = Settings(database_url=sqlite_url, bench_accounts=True)
    assert answer(off) == 404  # no such path
    assert answer(on) == 422  # there, and the empty body is refused


def test_the_route_itself_refuses_when_the_setting_is_off() -> None:
    """Even if the router were included, the route answers 404 with the setting off."""
    with pytest.raises(HTTPException) as refused:
        asyncio.run(bench_only(Settings(bench_accounts=False)))
    assert refused.value.status_code == 404
    asyncio.run(bench_only(Settings(bench_accounts=True)))


def test_off_it_is_a_404_and_makes_nobody(live_server: Any) -> None:
    r = httpx.post(f"{live_server.url}{ROUTE}", json={"count": 2, "prefix": "nobody"})
    assert r.status_code == 404, r.text
    assert r.json()["code"] == "not_found"
    login = httpx.post(
        f"{live_server.url}/api/login",
        json={"username": "nobody0", "password": bench.BENCH_PASSWORD},
    )
    assert login.status_code == 401


def test_on_it_makes_logged_in_accounts(start_server: Any, sqlite_url: str) -> None:
    server = start_server(sqlite_url, env={"BENCH_ACCOUNTS": "true"})
    r = httpx.post(f"{server.url}{ROUTE}", json={"count": 6, "prefix": "tbench_"}, timeout=30)
    assert r.status_code == 201, r.text
    body = r.json()
    made = body["accounts"]
    assert [a["username"] for a in made] == [f"tbench_{i}" for i in range(6)]
    assert len({a["session"] for a in made}) == 6
    clients = [
        httpx.Client(
            base_url=server.url,
            cookies={body["cookie"]: a["session"]},
            headers={"X-CSRF-Token": a["csrf_token"]},
            timeout=30,
        )
        for a in made
    ]
    try:
        for client, account in zip(clients, made, strict=True):
            me = client.get("/api/me")
            assert me.status_code == 200, me.text
            assert me.json()["user"]["username"] == account["username"]
        # the CSRF token works for a write: a game, hosted by one and joined by another
        game = clients[0].post("/api/games", json={"seats": [{"kind": "human"}] * 2})
        assert game.status_code == 201, game.text
        joined = clients[1].post(f"/api/games/{game.json()['id']}/join", json={})
        assert joined.status_code == 200, joined.text
    finally:
        for client in clients:
            client.close()
    # ordinary accounts: the bench password logs in
    login = httpx.post(
        f"{server.url}/api/login", json={"username": "tbench_3", "password": body["password"]}
    )
    assert login.status_code == 200, login.text
    # a taken name, no count, too many, a bad prefix
    for json, status in [
        ({"count": 2, "prefix": "tbench_"}, 409),
        ({"count": 0, "prefix": "other"}, 422),
        ({"count": bench.MAX_ACCOUNTS + 1, "prefix": "other"}, 422),
        ({"count": 1, "prefix": "no spaces"}, 422),
    ]:
        refused = httpx.post(f"{server.url}{ROUTE}", json=json)
        assert refused.status_code == status, (json, refused.text)


def test_accounts_come_in_one_go_or_not_at_all(db: Any) -> None:
    made = bench.create_accounts(db, "svc_", 3, days=1)
    assert [a.username for a in made] == ["svc_0", "svc_1", "svc_2"]
    login = accounts.session_for_token(db, made[1].token)
    assert login is not None and login.user.username == "svc_1"
    assert login.csrf_token == made[1].csrf_token
    assert accounts.verify_password(login.user, bench.BENCH_PASSWORD)
    with pytest.raises(Conflict):
        bench.create_accounts(db, "svc_", 5, days=1)  # svc_0..2 are taken
    with pytest.raises(Invalid):
        bench.create_accounts(db, "deleted-x", 1, days=1)
    count = db.scalar(select(func.count(User.id)).where(User.username_key.like("svc%")))
    assert count == 3
