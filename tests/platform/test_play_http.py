"""Playing through real HTTP against a running uvicorn, on SQLite and PostgreSQL:
sign up -> create -> join -> start -> view -> act; races at one version; idempotent
retries; malformed and illegal bodies; a server killed mid-game loses nothing."""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app import engine
from app.services import gamelog
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Event, Game


def two_player_game(server: Any, new_player: Any) -> tuple[int, Any, Any]:
    """Alice hosts the teaching scenario, Bob joins, Alice starts: (game id, alice, bob)."""
    alice, bob = new_player(server), new_player(server)
    game = alice.create_game(scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}])
    assert bob.join(game["id"]).status_code == 200
    r = alice.start(game["id"])
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "active"
    return game["id"], alice, bob


def prompted(gid: int, *players: Any) -> tuple[Any, dict[str, Any]]:
    """The player who must decide now, and their view."""
    for player in players:
        view = player.view(gid)
        if view["legal_actions"]:
            return player, view
    raise AssertionError("nobody has anything to decide")


def race(gid: int, clients: list[Any], actions: list[Any], version: int) -> list[httpx.Response]:
    """Send one action per client at the same moment (a barrier releases them together)."""
    barrier = threading.Barrier(len(clients))
    results: list[Any] = [None] * len(clients)

    def send(i: int) -> None:
        barrier.wait()
        results[i] = clients[i].act(gid, actions[i], version)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def log_of(database_url: str, gid: int) -> tuple[Game, list[Action], list[Event]]:
    eng = make_engine(database_url)
    try:
        with make_sessionmaker(eng)() as db:
            game = db.get(Game, gid)
            assert game is not None
            actions = list(
                db.scalars(select(Action).where(Action.game_id == gid).order_by(Action.seq))
            )
            events = list(db.scalars(select(Event).where(Event.game_id == gid).order_by(Event.seq)))
            # The current state: the latest snapshot + the actions after it.
            game.current = gamelog.load_state(game, db)  # type: ignore[attr-defined]
            return game, actions, events
    finally:
        eng.dispose()


def assert_log_is_sound(database_url: str, gid: int) -> list[Action]:
    """Actions 1..n and events 1..m with no gap or duplicate, and replaying the log
    from the seed gives exactly the stored state."""
    game, actions, events = log_of(database_url, gid)
    assert [a.seq for a in actions] == list(range(1, len(actions) + 1))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert game.last_action == len(actions) and game.last_event == len(events)
    assert [a.version for a in actions] == sorted({a.version for a in actions})
    stored = game.current  # type: ignore[attr-defined]
    seats = [p["power"] for p in stored["players"]]
    replayed = engine.replay(game.scenario, seats, game.seed, [(a.seat, a.action) for a in actions])
    assert engine.state_hash(replayed) == engine.state_hash(stored)
    return actions


def test_signup_create_join_start_view_act(live_server_any: Any, new_player: Any) -> None:
    gid, alice, bob = two_player_game(live_server_any, new_player)
    seen_versions = []
    for _ in range(6):
        player, view = prompted(gid, alice, bob)
        other = bob if player is alice else alice
        assert other.view(gid)["legal_actions"] == []
        assert view["prompts"] and all(p["deadline"] for p in view["prompts"])
        r = player.act(gid, view["legal_actions"][0], view["version"])
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["version"] > view["version"] and body["replayed"] is False
        seen_versions.append(body["version"])
        if body["status"] != "active":
            break
    assert seen_versions == sorted(set(seen_versions))
    events = alice.http.get(f"/api/games/{gid}/events", params={"since": 0}).json()
    assert [e["seq"] for e in events["events"]] == sorted({e["seq"] for e in events["events"]})
    assert events["events"], "acting produced no event"
    # A spectator of this public game sees the public view only.
    spectator = httpx.get(f"{live_server_any.url}/api/games/{gid}/view").json()
    assert spectator["seat"] is None and spectator["legal_actions"] == []
    assert "me" not in spectator["view"]
    public = httpx.get(f"{live_server_any.url}/api/games/{gid}/events").json()["events"]
    assert all(e.get("to") is None for e in public)
    assert_log_is_sound(live_server_any.database_url, gid)


def test_two_clients_at_one_version_exactly_one_wins(live_server_any: Any, new_player: Any) -> None:
    """Two sessions of the prompted player (two tabs) and the same moment: one 200, one 409."""
    gid, alice, bob = two_player_game(live_server_any, new_player)
    twins = {}
    for p in (alice, bob):
        twin = type(p)(p.base_url, p.username, p.password)
        assert twin.login().status_code == 200
        twins[p.username] = twin
    rounds = 0
    for _ in range(8):
        player, view = prompted(gid, alice, bob)
        twin = twins[player.username]
        legal = view["legal_actions"]
        results = race(gid, [player, twin], [legal[0], legal[-1]], view["version"])
        codes = sorted(r.status_code for r in results)
        assert codes == [200, 409], [r.text for r in results]
        loser = next(r for r in results if r.status_code == 409).json()
        winner = next(r for r in results if r.status_code == 200).json()
        assert loser["code"] == "stale_version"
        assert loser["current_version"] >= winner["version"]
        rounds += 1
        if winner["status"] != "active":
            break
    for twin in twins.values():
        twin.close()
    assert rounds >= 3
    assert_log_is_sound(live_server_any.database_url, gid)


def test_idempotent_retry_applies_nothing_twice(live_server_any: Any, new_player: Any) -> None:
    gid, alice, bob = two_player_game(live_server_any, new_player)
    player, view = prompted(gid, alice, bob)
    key = str(uuid.uuid4())
    first = player.act(gid, view["legal_actions"][0], view["version"], key)
    assert first.status_code == 200
    _, before, _ = log_of(live_server_any.database_url, gid)
    again = player.act(gid, view["legal_actions"][0], view["version"], key)
    assert again.status_code == 200
    assert again.json() == {**first.json(), "replayed": True}
    _, after, _ = log_of(live_server_any.database_url, gid)
    assert len(after) == len(before)
    assert [a.idempotency_key for a in after].count(key) == 1
    # Someone else cannot use a key to read another's result.
    other = bob if player is alice else alice
    r = other.act(gid, {"type": "draw"}, view["version"], key)
    assert r.status_code == 409


def test_bad_requests_are_refused_and_nothing_is_written(
    live_server_any: Any, new_player: Any
) -> None:
    gid, alice, bob = two_player_game(live_server_any, new_player)
    player, view = prompted(gid, alice, bob)
    other = bob if player is alice else alice
    url = f"/api/games/{gid}/actions"
    _, before, _ = log_of(live_server_any.database_url, gid)

    r = player.http.post(url, json={"action": view["legal_actions"][0], "idempotency_key": "k1"})
    assert r.status_code == 422
    assert ["body", "expected_version"] in [e["loc"] for e in r.json()["detail"]]
    r = player.http.post(
        url, json={"action": {"move": "pass"}, "expected_version": 1, "idempotency_key": "k2"}
    )
    assert r.status_code == 422
    assert ["body", "action", "type"] in [e["loc"] for e in r.json()["detail"]]
    r = player.http.post(url, content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422

    r = player.act(gid, {"type": "summon_dragons"}, view["version"])
    assert r.status_code == 422
    assert r.json()["detail"] and r.json()["code"] != "not_your_turn"
    r = other.act(gid, view["legal_actions"][0], view["version"])
    assert r.status_code == 422 and r.json()["code"] == "not_your_turn"
    r = player.act(gid, view["legal_actions"][0], view["version"] - 1)
    assert r.status_code == 409 and r.json()["current_version"] == view["version"]
    stranger = new_player(live_server_any)
    r = stranger.act(gid, view["legal_actions"][0], view["version"])
    assert r.status_code == 403

    game, after, _ = log_of(live_server_any.database_url, gid)
    assert len(after) == len(before) and game.version == view["version"]
    r = player.act(gid, view["legal_actions"][0], view["version"])
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_server_killed_mid_game_loses_nothing(
    kind: str, request: pytest.FixtureRequest, start_server: Any, new_player: Any
) -> None:
    url = request.getfixturevalue("sqlite_url" if kind == "sqlite" else "pg_url")
    server = start_server(url)
    gid, alice, bob = two_player_game(server, new_player)
    for _ in range(3):
        player, view = prompted(gid, alice, bob)
        assert player.act(gid, view["legal_actions"][0], view["version"]).status_code == 200
    before = {p.username: p.view(gid) for p in (alice, bob)}
    server.restart(kill=True)
    after = {p.username: p.view(gid) for p in (alice, bob)}
    assert after == before
    player, view = prompted(gid, alice, bob)
    assert player.act(gid, view["legal_actions"][0], view["version"]).status_code == 200
    assert_log_is_sound(url, gid)


def test_explain_chat_and_record(live_server: Any, new_player: Any) -> None:
    gid, alice, bob = two_player_game(live_server, new_player)
    player, view = prompted(gid, alice, bob)
    r = player.http.get(
        f"/api/games/{gid}/explain", params={"action": json.dumps(view["legal_actions"][0])}
    )
    assert r.status_code == 200 and isinstance(r.json(), dict)
    r = player.http.get(f"/api/games/{gid}/explain", params={"action": "{not json"})
    assert r.status_code == 422 and r.json()["field"] == "action"
    # Chat: players talk, anyone who may see the game reads, strangers cannot post.
    r = alice.http.post(f"/api/games/{gid}/chat", json={"text": "  Ave, Bob.  "})
    assert r.status_code == 201 and r.json()["text"] == "Ave, Bob."
    assert bob.http.post(f"/api/games/{gid}/chat", json={"text": ""}).status_code == 422
    stranger = new_player(live_server)
    assert stranger.http.post(f"/api/games/{gid}/chat", json={"text": "hi"}).status_code == 403
    messages = httpx.get(f"{live_server.url}/api/games/{gid}/chat").json()["messages"]
    assert [(m["username"], m["text"]) for m in messages] == [(alice.username, "Ave, Bob.")]
    # The record is for games that are over.
    assert alice.http.get(f"/api/games/{gid}/record").status_code == 409
