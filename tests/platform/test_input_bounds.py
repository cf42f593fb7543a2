"""Every bad input of issue 12 gets a clear 4xx naming what is wrong, over real HTTP
against uvicorn, on SQLite and PostgreSQL, and nothing is written:
NaN / huge numbers, ids beyond the database's integer, deep JSON, oversized bodies,
game options out of range, an idempotency key reused for another request."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game


def count(database_url: str, model: Any) -> int:
    eng = make_engine(database_url)
    try:
        with make_sessionmaker(eng)() as db:
            return int(db.scalar(select(func.count()).select_from(model)) or 0)
    finally:
        eng.dispose()


def started_game(server: Any, new_player: Any) -> tuple[int, Any, Any]:
    alice, bob = new_player(server), new_player(server)
    game = alice.create_game(scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}])
    assert bob.join(game["id"]).status_code == 200
    assert alice.start(game["id"]).status_code == 200
    return game["id"], alice, bob


def mover(gid: int, *players: Any) -> tuple[Any, dict[str, Any]]:
    for player in players:
        view = player.view(gid)
        if view["legal_actions"]:
            return player, view
    raise AssertionError("nobody to move")


def raw_post(player: Any, path: str, text: str) -> httpx.Response:
    return player.http.post(path, content=text, headers={"content-type": "application/json"})


def test_numbers_ids_and_nesting_are_bounded(live_server_any: Any, new_player: Any) -> None:
    server = live_server_any
    gid, alice, bob = started_game(server, new_player)
    player, view = mover(gid, alice, bob)
    before = count(server.database_url, Action)
    action = json.dumps(view["legal_actions"][0])

    # NaN, Infinity and overflowing floats: 422 naming the field (the 422 handler
    # once failed to encode the NaN it echoed: a 500).
    for bad in ("NaN", "Infinity", "-Infinity", "1e400"):
        body = f'{{"action": {action}, "expected_version": {bad}, "idempotency_key": "k1"}}'
        r = raw_post(player, f"/api/games/{gid}/actions", body)
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["field"] == "expected_version", r.text
    # An integer beyond 64 bits, then one beyond the database's 32.
    body = f'{{"action": {action}, "expected_version": {10**30}, "idempotency_key": "k2"}}'
    r = raw_post(player, f"/api/games/{gid}/actions", body)
    assert r.status_code == 422 and r.json()["code"] == "number_out_of_range"
    assert r.json()["field"] == "expected_version"
    r = player.act(gid, view["legal_actions"][0], 2**31)
    assert r.status_code == 422 and r.json()["field"] == "expected_version", r.text

    # Game ids beyond the database integer, in every kind of route.
    for big in (2**31, 2**63, 2**70):
        for path in (f"/api/games/{big}", f"/api/games/{big}/view", f"/api/games/{big}/events"):
            r = player.http.get(path)
            assert r.status_code == 422 and r.json()["field"] == "game_id", (path, r.text)
        r = player.act(big, {"type": "pass"}, 1)
        assert r.status_code == 422 and r.json()["field"] == "game_id"
    r = player.http.get(f"/api/games/{gid}/events", params={"since": 10**30})
    assert r.status_code == 422 and r.json()["field"] == "since"
    r = player.http.get(f"/api/games/{gid}/chat", params={"after": 2**31})
    assert r.status_code == 422 and r.json()["field"] == "after"
    r = player.http.post(f"/api/games/{gid}/seats/{2**40}/open")
    assert r.status_code == 422 and r.json()["field"] == "index"

    # 3,000 nested brackets in explain's query, 30,000 in a body: refused, no RecursionError.
    r = player.http.get(f"/api/games/{gid}/explain", params={"action": "[" * 3000 + "]" * 3000})
    assert r.status_code == 422 and r.json()["field"] == "action", r.text  # too long
    r = player.http.get(f"/api/games/{gid}/explain", params={"action": "[" * 1000 + "]" * 1000})
    assert r.status_code == 422 and r.json()["field"] == "action", r.text
    assert r.json()["code"] == "json_too_deep" and "nested" in r.json()["detail"]
    deep = '{"text": ' + "[" * 30000 + "]" * 30000 + "}"
    r = raw_post(player, f"/api/games/{gid}/chat", deep)
    assert r.status_code == 422 and r.json()["code"] == "json_too_deep"

    # A 12 MB body is refused before it is read whole (413), with and without a length.
    big_body = b'{"text": "' + b"x" * 12_000_000 + b'"}'
    r = player.http.post(
        f"/api/games/{gid}/chat", content=big_body, headers={"content-type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["code"] == "body_too_large"

    def chunks() -> Any:
        for _ in range(200):
            yield b"x" * 65536

    r = player.http.post(
        f"/api/games/{gid}/chat", content=chunks(), headers={"content-type": "application/json"}
    )
    assert r.status_code == 413

    # None of that wrote anything; the game still plays.
    assert count(server.database_url, Action) == before
    r = player.act(gid, view["legal_actions"][0], view["version"])
    assert r.status_code == 200, r.text


BAD_OPTIONS = [
    ({"end_turn": 999}, "options.end_turn"),
    ({"end_turn": -1}, "options.end_turn"),
    ({"end_turn": 0}, "options.end_turn"),
    ({"end_turn": "x"}, "options.end_turn"),
    ({"end_turn": 1.5}, "options.end_turn"),
    ({"end_turn": 10**30}, "options.end_turn"),
    ({"rounds": 0}, "options.rounds"),
    ({"rounds": 1000}, "options.rounds"),
    ({"junk": "x" * 1000}, "options.junk"),
]


def test_game_options_are_a_schema_and_every_game_created_can_start(
    live_server: Any, new_player: Any
) -> None:
    alice, bob = new_player(live_server), new_player(live_server)
    before = count(live_server.database_url, Game)
    seats = [{"kind": "human"}, {"kind": "human"}]
    for options, field in BAD_OPTIONS:
        r = alice.http.post(
            "/api/games", json={"scenario": "teaching", "seats": seats, "options": options}
        )
        assert r.status_code == 422, (options, r.text)
        assert r.json()["field"] == field, (options, r.json())
    # end_turn within the schema's range but beyond this scenario's turns: named too.
    turns = next(
        s["turns"]
        for s in alice.http.get("/api/scenarios").json()["scenarios"]
        if s["id"] == "teaching"
    )
    r = alice.http.post(
        "/api/games",
        json={"scenario": "teaching", "seats": seats, "options": {"end_turn": turns + 1}},
    )
    assert r.status_code == 422 and r.json()["field"] == "options.end_turn", r.text
    assert str(turns) in r.json()["detail"]
    # 1 MB of junk in options: refused at the door (413), nothing stored.
    r = alice.http.post(
        "/api/games",
        json={"scenario": "teaching", "seats": seats, "options": {"x": "y" * 1_000_000}},
    )
    assert r.status_code == 413
    assert count(live_server.database_url, Game) == before

    # Valid options: stored, and the game starts with them.
    game = alice.create_game(scenario="teaching", seats=seats, options={"end_turn": 1, "rounds": 2})
    assert bob.join(game["id"]).status_code == 200
    r = alice.start(game["id"])
    assert r.status_code == 200 and r.json()["status"] == "active", r.text
    view = alice.view(game["id"])["view"]
    assert view["end_turn"] == 1 and view["rounds"] == 2


def test_scenarios_name_the_main_one_and_the_options_schema(live_server: Any) -> None:
    body = httpx.get(f"{live_server.url}/api/scenarios").json()
    main = [s["id"] for s in body["scenarios"] if s["main"]]
    assert main == ["four_empires"]
    assert all(isinstance(s["turns"], int) and s["turns"] >= 1 for s in body["scenarios"])
    props = body["options_schema"]["properties"]
    assert set(props) == {"end_turn", "rounds"}
    assert body["options_schema"]["additionalProperties"] is False


def test_an_idempotency_key_is_bound_to_its_request(live_server_any: Any, new_player: Any) -> None:
    server = live_server_any
    gid, alice, bob = started_game(server, new_player)
    player, view = mover(gid, alice, bob)
    legal = view["legal_actions"]
    key = uuid.uuid4().hex
    first = player.act(gid, legal[0], view["version"], idempotency_key=key)
    assert first.status_code == 200, first.text
    actions = count(server.database_url, Action)
    # The same request again: the first answer, applied once.
    again = player.act(gid, legal[0], view["version"], idempotency_key=key)
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert again.json()["version"] == first.json()["version"]
    assert "request_fingerprint" not in again.json()
    # The same key with another version, or another action: refused, nothing applied.
    now = player.view(gid)
    r = player.act(gid, legal[0], view["version"] + 1, idempotency_key=key)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "idempotency_key_reused" and r.json()["field"] == "idempotency_key"
    other = {**legal[0], "extra": 1}
    r = player.act(gid, other, view["version"], idempotency_key=key)
    assert r.status_code == 422 and r.json()["code"] == "idempotency_key_reused"
    if now["legal_actions"]:
        r = player.act(gid, now["legal_actions"][0], now["version"], idempotency_key=key)
        assert r.status_code == 422 and r.json()["code"] == "idempotency_key_reused"
    assert count(server.database_url, Action) == actions
    assert player.view(gid)["version"] == now["version"]


def test_validation_errors_name_the_field_and_never_echo_what_json_cannot_hold(
    live_server: Any, new_player: Any
) -> None:
    alice = new_player(live_server)
    r = alice.http.post("/api/games", json={"scenario": "teaching", "pace": "forever"})
    body = r.json()
    assert r.status_code == 422 and body["code"] == "invalid_request"
    assert body["field"] == "pace" and body["detail"][0]["loc"] == ["body", "pace"]


@pytest.mark.parametrize(
    "header",
    [
        "content-security-policy",
        "x-content-type-options",
        "referrer-policy",
        "x-frame-options",
    ],
)
def test_security_headers_on_pages_and_api(live_server: Any, header: str) -> None:
    for path in ("/", "/login", "/api/scenarios", "/static/js/live.js"):
        r = httpx.get(f"{live_server.url}{path}")
        assert r.status_code == 200 and header in r.headers, (path, header)
    csp = httpx.get(f"{live_server.url}/").headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp.split("script-src", 1)[1].split(";", 1)[0]
