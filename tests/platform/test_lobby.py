"""The lobby over real HTTP: create, invite, join with a power or at random, leave,
bots, removal, start, the lists, and the newcomer's one-click game against a bot."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.usefixtures("live_server")


@pytest.fixture(scope="module")
def catalog(live_server: Any) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(f"{live_server.url}/api/scenarios").json()
    assert data["scenarios"], "the content pack has no scenario"
    return data


@pytest.fixture(scope="module")
def two_seats(catalog: dict[str, Any]) -> dict[str, Any]:
    """A scenario for at least two players (teaching ones come first)."""
    return next(s for s in catalog["scenarios"] if s["max_seats"] >= 2)


def test_defaults_are_the_teaching_scenario_against_a_heuristic_bot(
    live_server: Any, new_player: Any, catalog: dict[str, Any]
) -> None:
    alice = new_player(live_server)
    game = alice.http.post("/api/games", json={}).json()
    assert game["scenario"] == catalog["scenarios"][0]["id"]
    assert catalog["scenarios"][0]["teaching"]
    assert game["pace"] == "none" and game["public"] is True and game["status"] == "lobby"
    assert [(s["username"], s["bot_level"]) for s in game["seats"]] == [
        (alice.username, None),
        (None, "heuristic"),
    ]
    r = alice.start(game["id"])
    assert r.status_code == 200, r.text
    assert r.json()["status"] in ("active", "finished")
    view = alice.view(game["id"])
    assert view["seat"] == 0 and view["view"] is not None


def test_join_choose_power_leave_and_start(
    live_server: Any, new_player: Any, two_seats: dict[str, Any]
) -> None:
    alice, bob, carol = new_player(live_server), new_player(live_server), new_player(live_server)
    p0, p1 = (p["id"] for p in two_seats["powers"][:2])
    game = alice.create_game(
        scenario=two_seats["id"], seats=[{"kind": "human"}, {"kind": "human"}], power=p0
    )
    gid = game["id"]
    assert game["seats"][0]["power"] == p0
    r = bob.join(gid, power=p0)
    assert r.status_code == 409 and "already chose" in r.json()["detail"]
    r = bob.join(gid, power="atlantis")
    assert r.status_code == 422 and r.json()["field"] == "power"
    r = bob.join(gid, power=p1)
    assert r.status_code == 200 and r.json()["seats"][1]["username"] == bob.username
    assert carol.join(gid).status_code == 409  # every seat taken
    r = bob.start(gid)
    assert r.status_code == 403 and r.json()["detail"] == "Only the host can do that."
    assert bob.http.post(f"/api/games/{gid}/leave").status_code == 200
    assert httpx.get(f"{live_server.url}/api/games/{gid}").json()["seats"][1]["empty"]
    r = alice.start(gid)
    assert r.status_code == 409 and "still empty" in r.json()["detail"]
    assert carol.join(gid, power=None).status_code == 200  # a random power at the start
    r = alice.start(gid)
    assert r.status_code == 200, r.text
    started = r.json()
    assert started["status"] == "active"
    assert {s["power"] for s in started["seats"]} == {p0, p1}
    assert bob.join(gid).status_code == 409  # too late
    assert carol.http.post(f"/api/games/{gid}/leave").status_code == 409


def test_private_game_is_reachable_by_invite_only(
    live_server: Any, new_player: Any, two_seats: dict[str, Any]
) -> None:
    alice, dave = new_player(live_server), new_player(live_server)
    game = alice.create_game(
        scenario=two_seats["id"], seats=[{"kind": "human"}, {"kind": "human"}], public=False
    )
    gid, code = game["id"], game["invite_code"]
    assert gid not in [g["id"] for g in dave.http.get("/api/games").json()["open"]]
    assert dave.http.get(f"/api/games/{gid}").status_code == 403
    assert dave.http.get(f"/games/{gid}/lobby").status_code == 403
    assert dave.http.get(f"/games/{gid}/lobby", params={"code": code}).status_code == 200
    assert dave.http.get(f"/api/games/{gid}", params={"code": code}).status_code == 200
    assert dave.join(gid).status_code == 403
    r = dave.http.post(f"/api/games/{gid}/join", json={"code": code})
    assert r.status_code == 200, r.text
    # The invite link page sends a logged-in visitor to the game's lobby page.
    r = dave.http.get(f"/join/{code}")
    assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}/lobby?code={code}"
    assert dave.http.get(f"/games/{gid}/lobby").status_code == 200
    # Once the game has started, the link says so (not "ask for the invite link"), and
    # takes a seated player to the game.
    assert alice.start(gid).status_code == 200
    erin = new_player(live_server)
    r = erin.http.get(f"/join/{code}")
    assert r.status_code == 409 and "already started" in r.text, r.text[-600:]
    r = dave.http.get(f"/join/{code}")
    assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}"


def test_host_gives_seats_to_bots_and_removes_players(
    live_server: Any, new_player: Any, two_seats: dict[str, Any], catalog: dict[str, Any]
) -> None:
    alice, bob = new_player(live_server), new_player(live_server)
    gid = alice.create_game(scenario=two_seats["id"], seats=[{"kind": "human"}, {"kind": "human"}])[
        "id"
    ]
    assert bob.join(gid).status_code == 200
    r = alice.http.post(f"/api/games/{gid}/seats/1/bot", json={"bot_level": "heuristic"})
    assert r.status_code == 409  # held by bob
    assert bob.http.post(f"/api/games/{gid}/seats/0/open").status_code == 403  # not the host
    assert alice.http.post(f"/api/games/{gid}/seats/0/open").status_code == 409  # herself
    r = alice.http.post(f"/api/games/{gid}/seats/1/open")
    assert r.status_code == 200 and r.json()["seats"][1]["empty"]
    r = alice.http.post(f"/api/games/{gid}/seats/1/bot", json={"bot_level": "grandmaster"})
    assert r.status_code == 422 and r.json()["field"] == "bot_level"
    level = catalog["bot_levels"][0]
    r = alice.http.post(f"/api/games/{gid}/seats/1/bot", json={"bot_level": level})
    assert r.status_code == 200 and r.json()["seats"][1]["bot_level"] == level
    assert alice.start(gid).status_code == 200


def test_create_refuses_bad_setups(
    live_server: Any, new_player: Any, catalog: dict[str, Any]
) -> None:
    alice = new_player(live_server)
    too_many = [{"kind": "human"}] + [{"kind": "bot"}] * 6
    r = alice.http.post("/api/games", json={"seats": too_many})
    assert r.status_code == 422
    r = alice.http.post("/api/games", json={"seats": [{"kind": "bot"}, {"kind": "bot"}]})
    assert r.status_code == 422 and "must be a person" in r.json()["detail"]
    r = alice.http.post("/api/games", json={"scenario": "atlantis"})
    assert r.status_code == 422 and r.json()["field"] == "scenario"
    r = alice.http.post("/api/games", json={"pace": "weekly"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "pace"]


def test_lists_open_and_mine(live_server: Any, new_player: Any, two_seats: dict[str, Any]) -> None:
    alice, bob = new_player(live_server), new_player(live_server)
    waiting = alice.create_game(
        scenario=two_seats["id"], seats=[{"kind": "human"}, {"kind": "human"}]
    )
    lists = bob.http.get("/api/games").json()
    assert waiting["id"] in [g["id"] for g in lists["open"]]
    assert lists["mine"] == []
    mine = alice.http.get("/api/games").json()["mine"]
    assert [g["id"] for g in mine] == [waiting["id"]]
    # A running game that waits for alice comes before a lobby game.
    running = alice.create_game()
    alice.start(running["id"])
    view = alice.view(running["id"])
    if view["status"] == "active" and any(p["seat"] == 0 for p in view["prompts"]):
        mine = alice.http.get("/api/games").json()["mine"]
        assert mine[0]["id"] == running["id"] and mine[0]["my_turn"]
    home = alice.http.get("/")
    assert f"#{waiting['id']}" in home.text


def test_newcomer_signs_up_and_plays_a_bot_at_once(live_server: Any) -> None:
    """Sign-up form -> New game with its defaults -> the game page of a started game."""
    with httpx.Client(base_url=live_server.url) as http:
        token = re.search(r'name="csrf_token" value="([^"]+)"', http.get("/signup").text)
        assert token
        name = f"new{uuid.uuid4().hex[:8]}"
        r = http.post(
            "/signup",
            data={"username": name, "password": "correct horse 1", "csrf_token": token.group(1)},
        )
        assert r.status_code == 303 and r.headers["location"] == "/games/new"
        page = http.get("/games/new")
        assert page.status_code == 200
        form = dict(re.findall(r'name="(csrf_token)" value="([^"]+)"', page.text))
        r = http.post("/games/new", data={**form, "pace": "live", "public": "1"})
        assert r.status_code == 303, r.text
        location = r.headers["location"]
        assert re.fullmatch(r"/games/\d+", location), location
        gid = int(location.rsplit("/", 1)[1])
        view = http.get(f"/api/games/{gid}/view").json()
        assert view["status"] in ("active", "finished")
        assert view["seats"][1]["bot_level"] == "heuristic"


def test_rematch_seats_the_same_players(
    live_server: Any, new_player: Any, two_seats: dict[str, Any]
) -> None:
    alice, bob, carol = new_player(live_server), new_player(live_server), new_player(live_server)
    gid = alice.create_game(scenario=two_seats["id"], seats=[{"kind": "human"}, {"kind": "human"}])[
        "id"
    ]
    assert bob.join(gid).status_code == 200
    assert bob.http.post(f"/api/games/{gid}/rematch").status_code == 409  # not over yet
    assert alice.http.post(f"/api/games/{gid}/leave").status_code == 200  # cancelled
    assert carol.http.post(f"/api/games/{gid}/rematch").status_code == 403
    r = bob.http.post(f"/api/games/{gid}/rematch")
    assert r.status_code == 201, r.text
    again = r.json()
    assert again["id"] != gid and again["status"] == "lobby" and again["host"] == bob.username
    assert [s["username"] for s in again["seats"]] == [alice.username, bob.username]
    assert bob.start(again["id"]).status_code == 200
