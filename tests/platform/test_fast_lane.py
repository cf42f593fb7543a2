"""The fast lane (app/web/fastlane.py): the view and an action answered without FastAPI's
routing, exactly as the FastAPI routes answer them.

Any query string sends a request past the lane to its route (the routes ignore a
parameter they do not know), so every request below is sent both ways and the answers
compared: the same status, the same JSON. Then, in-process, which requests the lane
answers itself and which it hands on.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.services import logins
from app.web.app import create_app
from app.web.fastlane import PlayFastLane
from tests.conftest import LiveServer, migrate
from tests.platform.test_play_http import prompted

ROUTE = {"lane": "route"}  # an unknown parameter: the lane hands the request on


def both(http: httpx.Client, method: str, url: str, **kw: Any) -> tuple[Any, Any]:
    """(status, JSON) of the request through the lane, then through the route."""
    answers = []
    for params in (None, ROUTE):
        r = http.request(method, url, params=params, **kw)
        answers.append((r.status_code, r.json()))
    return answers[0], answers[1]


def body(action: dict[str, Any], version: int, key: str | None = None) -> dict[str, Any]:
    return {
        "action": action,
        "expected_version": version,
        "idempotency_key": key or uuid.uuid4().hex,
    }


def test_the_lane_and_the_route_answer_alike(live_server_any: LiveServer, new_player: Any) -> None:
    alice, bob = new_player(live_server_any), new_player(live_server_any)
    gid = alice.create_game(scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}])["id"]
    assert bob.join(gid).status_code == 200
    assert alice.start(gid).status_code == 200
    anonymous = httpx.Client(base_url=live_server_any.url, timeout=30)
    try:
        # The view: each seat's, a spectator's, a game that does not exist, ids out of range.
        for client in (alice.http, bob.http, anonymous):
            for url in (f"/api/games/{gid}/view", "/api/games/987654/view", "/api/games/0/view"):
                lane, route = both(client, "GET", url)
                assert lane == route, url
        lane, route = both(anonymous, "GET", "/api/games/99999999999999999999/view")
        assert lane[0] == route[0] == 422

        player, view = prompted(gid, alice, bob)
        other = bob if player is alice else alice
        action, version = view["legal_actions"][0], view["version"]
        url = f"/api/games/{gid}/actions"
        # Refusals, none of which changes the game: each answered alike.
        refusals: list[tuple[httpx.Client, dict[str, Any], int]] = [
            (player.http, {"json": body(action, version + 1)}, 409),  # stale version
            (player.http, {"json": body({"type": "no_such_action"}, version)}, 422),
            (other.http, {"json": body(action, version)}, 0),  # not this seat's decision
            (player.http, {"json": {"action": action, "expected_version": version}}, 422),
            (player.http, {"json": {**body(action, version), "expected_version": -1}}, 422),
            (
                player.http,
                {"content": b"{not json", "headers": {"content-type": "application/json"}},
                422,
            ),
            (player.http, {"content": b"{}", "headers": {"content-type": "text/plain"}}, 0),
            (
                player.http,
                {"json": body(action, version), "headers": {"X-CSRF-Token": "wrong"}},
                403,
            ),
            (anonymous, {"json": body(action, version)}, 401),
            (player.http, {"json": body(action, version)}, -1),  # the game below does not exist
        ]
        for i, (client, kw, status) in enumerate(refusals):
            target = "/api/games/987654/actions" if status == -1 else url
            lane, route = both(client, "POST", target, **kw)
            assert lane == route, (i, lane, route)
            assert lane[0] >= 400, (i, lane)
            if status > 0:
                assert lane[0] == status, (i, lane)
        assert player.view(gid)["version"] == version  # nothing above moved the game
        # The lane's answers carry the same headers as the routes' (it sits inside the
        # security headers): compare every header but the date.
        lane_r = player.http.get(f"/api/games/{gid}/view")
        route_r = player.http.get(f"/api/games/{gid}/view", params=ROUTE)
        skip = {"date"}
        assert {k: v for k, v in lane_r.headers.items() if k not in skip} == {
            k: v for k, v in route_r.headers.items() if k not in skip
        }
        assert lane_r.headers["content-security-policy"].startswith("default-src 'self'")

        # An action through the lane, retried with its key through the route: the same
        # answer, replayed; then the other way round.
        key = uuid.uuid4().hex
        first = player.http.post(url, json=body(action, version, key))
        assert first.status_code == 200, first.text
        again = player.http.post(url, params=ROUTE, json=body(action, version, key))
        assert again.status_code == 200
        assert again.json() == {**first.json(), "replayed": True}

        player, view = prompted(gid, alice, bob)
        key = uuid.uuid4().hex
        action, version = view["legal_actions"][0], view["version"]
        first = player.http.post(url, params=ROUTE, json=body(action, version, key))
        assert first.status_code == 200, first.text
        again = player.http.post(url, json=body(action, version, key))
        assert again.json() == {**first.json(), "replayed": True}
        assert player.view(gid)["version"] == first.json()["version"]
    finally:
        anonymous.close()


def test_the_lane_answers_the_ordinary_requests_and_hands_on_the_rest(tmp_path: Path) -> None:
    """In-process: the real app behind the lane, with a spy between them recording what
    the lane handed on."""
    url = f"sqlite:///{tmp_path / 'lane.sqlite3'}"
    migrate(url)
    app = create_app(Settings(database_url=url))
    handed_on: list[str] = []

    async def spy(scope: Any, receive: Any, send: Any) -> None:
        handed_on.append(f"{scope['method']} {scope['path']}?{scope['query_string'].decode()}")
        await app(scope, receive, send)

    lane = PlayFastLane(spy)

    async def front(scope: Any, receive: Any, send: Any) -> None:
        scope["app"] = app  # as Starlette sets it before its middleware
        await lane(scope, receive, send)

    async def run() -> None:
        transport = httpx.ASGITransport(app=front)
        base = "http://test"
        async with (
            httpx.AsyncClient(transport=transport, base_url=base) as alice,
            httpx.AsyncClient(transport=transport, base_url=base) as bob,
        ):
            for client in (alice, bob):
                r = await client.post(
                    "/api/signup",
                    json={"username": uuid.uuid4().hex[:10], "password": "correct horse 1"},
                )
                assert r.status_code == 200, r.text
                client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
            seats = [{"kind": "human"}, {"kind": "human"}]
            gid = (
                await alice.post("/api/games", json={"scenario": "teaching", "seats": seats})
            ).json()["id"]
            assert (await bob.post(f"/api/games/{gid}/join", json={})).status_code == 200
            assert (await alice.post(f"/api/games/{gid}/start")).status_code == 200
            logins.clear()
            handed_on.clear()

            # Not yet in the login cache: handed on (the route looks the login up).
            for client in (alice, bob):
                assert (await client.get(f"/api/games/{gid}/view")).status_code == 200
            assert handed_on == [f"GET /api/games/{gid}/view?"] * 2
            handed_on.clear()
            # Cached now: answered by the lane, for a seat and for a spectator.
            view = (await alice.get(f"/api/games/{gid}/view")).json()
            await bob.get(f"/api/games/{gid}/view")
            async with httpx.AsyncClient(transport=transport, base_url=base) as anonymous:
                assert (await anonymous.get(f"/api/games/{gid}/view")).status_code == 200
            assert handed_on == []
            # An invite code, or any query: handed on.
            await alice.get(f"/api/games/{gid}/view", params={"code": "x"})
            assert handed_on == [f"GET /api/games/{gid}/view?code=x"]
            handed_on.clear()

            player, other = (alice, bob) if view["legal_actions"] else (bob, alice)
            view = (await player.get(f"/api/games/{gid}/view")).json()
            action, version = view["legal_actions"][0], view["version"]
            acts = f"/api/games/{gid}/actions"
            # Refused by a service (stale, not yours) or by the rate limit: the lane's own answer.
            assert (await player.post(acts, json=body(action, version + 1))).status_code == 409
            assert (await other.post(acts, json=body(action, version))).status_code in (
                403,
                409,
                422,
            )
            assert handed_on == []
            # A body that does not fit, a wrong token: handed on, answered by the route.
            assert (await player.post(acts, json={"action": action})).status_code == 422
            bad = {"X-CSRF-Token": "wrong"}
            assert (
                await player.post(acts, json=body(action, version), headers=bad)
            ).status_code == 403
            assert handed_on == [f"POST {acts}?", f"POST {acts}?"]
            handed_on.clear()
            # The ordinary action: the lane's.
            r = await player.post(acts, json=body(action, version))
            assert r.status_code == 200 and r.json()["version"] == version + 1, r.text
            assert handed_on == []

    asyncio.run(run())


@pytest.mark.parametrize("enabled", [True, False])
def test_the_lane_can_be_turned_off(tmp_path: Path, enabled: bool) -> None:
    """FAST_LANE=0: every request goes through the routes (benchmarks compare both)."""
    url = f"sqlite:///{tmp_path / 'off.sqlite3'}"
    migrate(url)
    app = create_app(Settings(database_url=url, fast_lane=enabled))
    called: list[bool] = []

    async def downstream(scope: Any, receive: Any, send: Any) -> None:
        called.append(True)
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    lane = PlayFastLane(downstream)

    async def front(scope: Any, receive: Any, send: Any) -> None:
        scope["app"] = app
        await lane(scope, receive, send)

    async def run() -> int:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=front), base_url="http://t"
        ) as c:
            return (await c.get("/api/games/1/view")).status_code

    status = asyncio.run(run())
    assert called == ([] if enabled else [True])
    assert status == (404 if enabled else 204)
