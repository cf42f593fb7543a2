"""The socket protocol on a real uvicorn server (SQLite file): access, hello/sync/state,
updates, actions with the HTTP API's semantics, chat. See docs/realtime.md."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus

from .conftest import Table, make_table
from .wsclient import GameSocket


def is_snapshot(m: dict[str, Any]) -> bool:
    return m.get("type") in ("state", "sync")


def pick(msg: dict[str, Any]) -> dict[str, Any]:
    """A legal action that keeps the game simple (pass / end / draw first)."""
    legal = msg["legal_actions"]
    assert legal, msg["prompts"]
    for kind in ("pass", "end_turn", "draw", "dismiss", "decline"):
        for action in legal:
            if action["type"] == kind or action.get("move") == kind:
                return dict(action)
    return dict(legal[0])


def actor_of(table: Table, socks: dict[int, GameSocket]) -> tuple[int, GameSocket]:
    """The seat that must decide now (the first prompted one) and its socket."""
    msg = next(iter(socks.values())).state
    assert msg is not None
    seat = int(msg["prompts"][0]["seat"])
    return seat, socks[seat]


@pytest.fixture
def table(live_server: Any, new_player: Any) -> Table:
    return make_table(live_server, new_player)


def open_seats(live_server: Any, sockets: Any, table: Table) -> dict[int, GameSocket]:
    socks = {}
    for player, seat in zip(table.players, table.seats, strict=True):
        sock = sockets(live_server, table.game_id, player)
        sock.wait_for(is_snapshot)
        socks[seat] = sock
    return socks


def test_seated_players_get_their_seat_spectators_the_public_view(
    live_server: Any, new_player: Any, sockets: Any, table: Table
) -> None:
    socks = open_seats(live_server, sockets, table)
    for seat, sock in socks.items():
        first = sock.messages[0]
        assert first["type"] == "state"  # hello with last_seq null: a full state
        assert first["seat"] == seat
        assert first["view"]["me"]["seat"] == seat
        assert first["version"] == table.player_of_seat(seat).view(table.game_id)["version"]
        # The same payload as the HTTP view (same service), plus the log tail.
        http = table.player_of_seat(seat).view(table.game_id)
        for key in ("seat", "status", "view", "legal_actions", "prompts", "seats", "version"):
            assert first[key] == http[key], key
        assert first["last_seq"] == http["last_seq"]
    anonymous = sockets(live_server, table.game_id, None)
    stranger = sockets(live_server, table.game_id, new_player(live_server))
    for sock in (anonymous, stranger):
        msg = sock.wait_for(is_snapshot)
        assert msg["seat"] is None
        assert msg["legal_actions"] == []
        assert "me" not in msg["view"]
        assert msg["prompts"] == socks[table.seats[0]].messages[0]["prompts"]


def test_private_games_refuse_strangers_and_unknown_games_refuse_everyone(
    live_server: Any, new_player: Any, sockets: Any
) -> None:
    table = make_table(live_server, new_player, public=False)
    owner = sockets(live_server, table.game_id, table.players[0])
    assert owner.wait_for(is_snapshot)["seat"] == table.seats[0]
    for who in (None, new_player(live_server)):
        cookie = who.session_cookie if who else None
        with pytest.raises(InvalidStatus) as refused:
            GameSocket(live_server.url, table.game_id, cookie)
        assert refused.value.response.status_code == 403
    with pytest.raises(InvalidStatus):
        GameSocket(live_server.url, 987654, table.players[0].session_cookie)
    # A forged cookie is nobody.
    with pytest.raises(InvalidStatus):
        GameSocket(live_server.url, table.game_id, "not-a-session")


def test_a_cross_site_origin_is_refused(live_server: Any, table: Table) -> None:
    cookie = table.players[0].session_cookie
    with pytest.raises(InvalidStatus):
        GameSocket(
            live_server.url, table.game_id, cookie, headers={"Origin": "https://evil.example"}
        )
    same = GameSocket(
        live_server.url,
        table.game_id,
        cookie,
        headers={"Origin": live_server.url},
    )
    try:
        assert same.wait_for(is_snapshot)["seat"] == table.seats[0]
    finally:
        same.close()


def test_every_change_is_pushed_to_every_socket_with_only_new_events(
    live_server: Any, sockets: Any, table: Table
) -> None:
    socks = open_seats(live_server, sockets, table)
    watcher = sockets(live_server, table.game_id, None)
    watcher.wait_for(is_snapshot)
    seen: dict[int, set[int]] = {id(s): set() for s in [*socks.values(), watcher]}
    for _ in range(6):
        seat, sock = actor_of(table, socks)
        before = sock.version
        assert before is not None
        reply = sock.act(pick(sock.state or {}), before)
        assert reply["type"] == "ack", reply
        version = reply["version"]
        for other in [*socks.values(), watcher]:
            msg = other.wait_version(version)
            assert msg["type"] == "update"
            seqs = [e["seq"] for e in msg["events"]]
            assert seqs == sorted(seqs)
            assert not set(seqs) & seen[id(other)], "an event was sent twice"
            seen[id(other)].update(seqs)
    # Everyone saw every public event exactly once; the last_seq matches the server.
    http = table.players[0].view(table.game_id)
    public = table.players[0].http.get(f"/api/games/{table.game_id}/events?since=0").json()
    everyone = {e["seq"] for e in public["events"] if e.get("to") is None}
    for sock in [*socks.values(), watcher]:
        assert everyone <= seen[id(sock)] | _tail_seqs(sock)
        assert sock.version == http["version"]


def _tail_seqs(sock: GameSocket) -> set[int]:
    return {e["seq"] for m in sock.messages if m.get("type") == "state" for e in m["events"]}


def test_hello_with_last_seq_gets_exactly_the_missed_events(
    live_server: Any, sockets: Any, table: Table
) -> None:
    socks = open_seats(live_server, sockets, table)
    seat0 = table.seats[0]
    player0 = table.player_of_seat(seat0)
    socks[seat0].close()
    away_seq = socks[seat0].last_seq
    assert away_seq is not None
    # The other seat (or whoever is prompted) plays on while seat 0 is away.
    others = {s: k for s, k in socks.items() if s != seat0}
    moves = 0
    while moves < 4:
        http = player0.view(table.game_id)
        prompted = int(http["prompts"][0]["seat"])
        if prompted == seat0:
            r = player0.act(table.game_id, pick(http), http["version"])
            assert r.status_code == 200, r.text
        else:
            sock = others[prompted]
            sock.wait_version(http["version"])
            assert sock.act(pick(sock.state or {}), http["version"])["type"] == "ack"
        moves += 1
    back = sockets(live_server, table.game_id, player0, last_seq=away_seq)
    sync = back.wait_for(is_snapshot)
    assert sync["type"] == "sync" and sync["since"] == away_seq
    missed = player0.http.get(f"/api/games/{table.game_id}/events?since={away_seq}").json()
    assert sync["events"] == missed["events"]
    assert sync["events"], "moves were made while away"
    assert sync["version"] == player0.view(table.game_id)["version"]
    assert sync["last_seq"] == missed["last_seq"]
    # Nonsense positions get a full state instead.
    for bogus in (10**6, -5, "x"):
        sock = sockets(live_server, table.game_id, player0, hello=False)
        sock.send({"type": "hello", "last_seq": bogus})
        assert sock.wait_for(is_snapshot)["type"] == "state"
    # A second hello on an open socket resyncs it.
    back.send({"type": "hello", "last_seq": away_seq})
    again = back.wait_for(lambda m: m.get("type") == "sync", start=1)
    assert again["events"] == sync["events"]


def test_actions_on_the_socket_have_the_http_semantics(
    live_server: Any, new_player: Any, sockets: Any, table: Table
) -> None:
    socks = open_seats(live_server, sockets, table)
    seat, sock = actor_of(table, socks)
    idle_seat = next(s for s in socks if s != seat)
    idle = socks[idle_seat]
    version = sock.version
    assert version is not None

    # 409: a stale version, with the current version.
    stale = sock.act(pick(sock.state or {}), version - 1)
    assert stale["type"] == "error" and stale["status"] == 409
    assert stale["current_version"] == version
    # 422: an action the rules refuse, with the engine's reason.
    bogus = sock.act({"type": "no_such_action"}, version)
    assert bogus["type"] == "error" and bogus["status"] == 422 and bogus["reason"]
    http = table.player_of_seat(seat).act(table.game_id, {"type": "no_such_action"}, version)
    assert http.status_code == 422 and http.json()["detail"] == bogus["reason"]
    # 422: not this seat's decision.
    wrong = idle.act(pick(sock.state or {}), version)
    assert wrong["type"] == "error" and wrong["status"] == 422
    assert wrong["code"] == "not_your_turn"
    # 422 naming the field: a malformed message.
    sock.send({"type": "action", "action": {"type": "draw"}, "req_id": "m1"})
    malformed = sock.wait_for(lambda m: m.get("req_id") == "m1")
    assert malformed["status"] == 422 and "expected_version" in malformed["reason"]
    sock.send(
        {
            "type": "action",
            "action": {},
            "expected_version": version,
            "req_id": "m2",
            "idempotency_key": "k",
        }
    )
    assert "action" in sock.wait_for(lambda m: m.get("req_id") == "m2")["reason"]
    # 403: a spectator cannot act; a stranger neither.
    anon = sockets(live_server, table.game_id, None)
    anon.wait_for(is_snapshot)
    assert anon.act(pick(sock.state or {}), version)["status"] == 403
    stranger = sockets(live_server, table.game_id, new_player(live_server))
    stranger.wait_for(is_snapshot)
    assert stranger.act(pick(sock.state or {}), version)["status"] == 403
    # Nothing was applied by any of that.
    assert table.players[0].view(table.game_id)["version"] == version

    # The same idempotency key twice: applied once, the retry answers the first result.
    key = uuid.uuid4().hex
    action = pick(sock.state or {})
    first = sock.act(action, version, idempotency_key=key)
    assert first["type"] == "ack" and first["version"] > version
    again = sock.act(action, version, idempotency_key=key)
    assert again["type"] == "ack" and again["version"] == first["version"] and again["replayed"]
    # ... also when the retry comes over HTTP.
    r = table.player_of_seat(seat).act(table.game_id, action, version, idempotency_key=key)
    assert r.status_code == 200 and r.json()["version"] == first["version"]
    assert table.players[0].view(table.game_id)["version"] == first["version"]
    # The socket's own update arrives too (acting sockets are kept posted like the rest).
    assert sock.wait_version(first["version"])["version"] == first["version"]


def test_bad_messages_get_clear_errors_and_the_socket_stays_open(
    live_server: Any, sockets: Any, table: Table
) -> None:
    sock = sockets(live_server, table.game_id, table.players[0])
    sock.wait_for(is_snapshot)
    sock.ws.send("this is not json")
    assert sock.wait_for(lambda m: m.get("type") == "error")["status"] == 400
    sock.send({"type": "launch_missiles", "req_id": 9})
    err = sock.wait_for(lambda m: m.get("req_id") == 9)
    assert err["status"] == 400 and "launch_missiles" in err["reason"]
    sock.send({"type": "ping"})
    sock.wait_for(lambda m: m.get("type") == "pong")


def test_chat_lines_are_pushed_to_everyone_watching(
    live_server: Any, sockets: Any, table: Table
) -> None:
    socks = open_seats(live_server, sockets, table)
    watcher = sockets(live_server, table.game_id, None)
    watcher.wait_for(is_snapshot)
    speaker = table.players[0]
    r = speaker.http.post(f"/api/games/{table.game_id}/chat", json={"text": "Ave, Han!"})
    assert r.status_code == 201, r.text
    for sock in [*socks.values(), watcher]:
        line = sock.wait_for(lambda m: m.get("type") == "chat")
        assert line["message"]["text"] == "Ave, Han!"
        assert line["message"]["username"] == speaker.username
    # A reconnecting client that says which chat line it saw last gets the ones after it.
    last = socks[table.seats[1]].wait_for(lambda m: m.get("type") == "chat")["message"]["id"]
    r = speaker.http.post(f"/api/games/{table.game_id}/chat", json={"text": "Second"})
    assert r.status_code == 201
    late = sockets(live_server, table.game_id, table.players[1], hello=False)
    late.send({"type": "hello", "last_seq": None, "last_chat_id": last})
    got = late.wait_for(lambda m: m.get("type") == "chat")
    assert got["message"]["text"] == "Second"
    assert json.dumps(late.messages).count('"Ave, Han!"') == 0


def test_the_hub_reload_gives_each_user_exactly_the_seat_view(
    live_server: Any, new_player: Any, sockets: Any, table: Table
) -> None:
    """The hub reads the game once for all users; what it builds must be what
    ``play.seat_view`` (the HTTP view) gives each of them, events as ``events_since``."""
    from app.realtime.hub import Want
    from app.realtime.source import ServiceSource
    from app.services import play
    from app.store.db import make_engine, make_sessionmaker

    socks = open_seats(live_server, sockets, table)
    seat, sock = actor_of(table, socks)
    assert sock.act(pick(sock.state or {}), sock.version)["type"] == "ack"
    stranger = new_player(live_server)
    users = [p.user_id for p in table.players] + [stranger.user_id, None]
    sql = make_engine(live_server.database_url)
    try:
        source = ServiceSource(make_sessionmaker(sql))
        load = source.load(table.game_id, [Want(u, 0) for u in users] + [Want(None, None)], 0)
        with source.session() as db:
            for user in users:
                expected = play.seat_view(db, table.game_id, user)
                assert load.seats[user].payload == expected
                events = play.events_since(db, table.game_id, expected["seat"], 0)
                assert load.seats[user].events[0] == events
                assert events
            assert load.seats[None].events[None] == play.events_since(db, table.game_id, None, 0)
    finally:
        sql.dispose()


def test_after_logging_out_a_socket_can_watch_but_not_act(
    live_server: Any, new_player: Any, sockets: Any
) -> None:
    table = make_table(live_server, new_player)
    socks = open_seats(live_server, sockets, table)
    seat, sock = actor_of(table, socks)
    player = table.player_of_seat(seat)
    r = player.http.post("/api/logout")
    assert r.status_code in (200, 204), r.text
    refused = sock.act(pick(sock.state or {}), sock.version)
    assert refused["type"] == "error" and refused["status"] == 401
    # The other seat's moves still reach it (watching needs no session on a public game).
    assert table.players[0].view(table.game_id)["version"] == sock.version
