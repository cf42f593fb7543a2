"""Operating the server: /healthz tells whether the database answers; structured logs;
the OpenAPI document lists the API."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import psycopg


def test_healthz_follows_the_database(start_server: Any, pg_server_url: str, pg_url: str) -> None:
    server = start_server(pg_url)
    assert httpx.get(f"{server.url}/healthz").json() == {"ok": True, "database": "ok"}
    admin_url = pg_server_url.replace("postgresql+psycopg://", "postgresql://") + "/postgres"
    name = pg_url.rsplit("/", 1)[1]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    r = httpx.get(f"{server.url}/healthz")
    assert r.status_code == 503 and r.json()["ok"] is False


def test_json_logs(start_server: Any, sqlite_url: str) -> None:
    server = start_server(sqlite_url, env={"LOG_FORMAT": "json"})
    httpx.get(f"{server.url}/api/games")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        entries = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
        access = [e for e in entries if e.get("path") == "/api/games"]
        if access:
            break
        time.sleep(0.1)
    assert access and access[0]["status"] == 200 and access[0]["method"] == "GET"
    assert all({"ts", "level", "logger", "message"} <= e.keys() for e in entries)


def test_openapi_lists_the_api(live_server: Any) -> None:
    paths = httpx.get(f"{live_server.url}/openapi.json").json()["paths"]
    for path in (
        "/api/signup",
        "/api/login",
        "/api/games",
        "/api/games/{game_id}/join",
        "/api/games/{game_id}/start",
        "/api/games/{game_id}/view",
        "/api/games/{game_id}/actions",
        "/api/games/{game_id}/events",
        "/healthz",
    ):
        assert path in paths, path
    body = paths["/api/games/{game_id}/actions"]["post"]["requestBody"]
    assert body["content"]["application/json"]


def test_security_headers_and_not_found_pages(live_server: Any) -> None:
    r = httpx.get(f"{live_server.url}/")
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"
    page = httpx.get(f"{live_server.url}/no/such/page", headers={"Accept": "text/html"})
    assert page.status_code == 404 and "There is no such page." in page.text
    api = httpx.get(f"{live_server.url}/api/no/such/thing", headers={"Accept": "text/html"})
    assert api.status_code == 404
    assert api.json() == {"detail": "Not Found", "code": "not_found"}
    missing = httpx.get(f"{live_server.url}/api/games/999999")
    assert missing.status_code == 404 and "no game 999999" in missing.json()["detail"]
