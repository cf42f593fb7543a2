"""Fan-out across processes: two uvicorn servers on one PostgreSQL database, LISTEN/NOTIFY
between them; a server SIGKILLed between two moves and restarted loses nothing."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest

from app.realtime.pg import CHANNEL, libpq_dsn

from .conftest import Table, make_table
from .test_ws_protocol import is_snapshot, pick
from .wsclient import GameSocket

pytestmark = pytest.mark.postgres

# Delivery by push, not by a later resync: a generous bound, so a loaded CI machine does
# not fail it. How fast a push is, is measured in bench/ (docs/performance.md), not here.
PUSHED = 3.0


def move(table: Table, socks: dict[int, GameSocket], watchers: list[GameSocket]) -> float:
    """The prompted seat acts through its own socket; returns the slowest time (s) from
    sending the action to its update arriving on every other socket."""
    current = max(s.known for s in socks.values())
    for each in socks.values():
        each.wait_version(current)
    state = next(iter(socks.values())).state
    assert state is not None
    seat = int(state["prompts"][0]["seat"])
    sock = socks[seat]
    sent = time.time()
    reply = sock.act(pick(sock.state or {}), int(state["version"]))
    assert reply["type"] == "ack", reply
    slowest = 0.0
    for other in [*socks.values(), *watchers]:
        if other is sock:
            continue
        msg = other.wait_version(reply["version"], timeout=5)
        at = other.received_at[other.messages.index(msg)]
        slowest = max(slowest, at - sent)
    # The actor's own socket gets the new state too (after its ack): wait for it, so a
    # caller reading `sock.version` next sees the position the move made.
    sock.wait_version(reply["version"], timeout=5)
    return slowest


def test_a_move_on_process_a_is_pushed_to_a_client_of_process_b(
    pg_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    a = start_server(pg_url)
    b = start_server(pg_url)
    table = make_table(a, new_player)
    s0, s1 = table.seats
    socks = {
        s0: sockets(a, table.game_id, table.player_of_seat(s0), label="seat-on-A"),
        s1: sockets(b, table.game_id, table.player_of_seat(s1), label="seat-on-B"),
    }
    spectator_b = sockets(b, table.game_id, None, label="spectator-on-B")
    for sock in [*socks.values(), spectator_b]:
        sock.wait_for(is_snapshot)
    # A whole game turn of the teaching scenario, each seat on its own process.
    first_turn = socks[s0].state["view"]["turn"]  # type: ignore[index]
    delays = []
    while socks[s0].state["view"]["turn"] == first_turn:  # type: ignore[index]
        delays.append(move(table, socks, [spectator_b]))
        assert len(delays) < 300, "the turn never ended"
    assert len(delays) > 8
    assert max(delays) < PUSHED, sorted(delays)[-5:]
    # An HTTP move on A (no socket involved on A's side) reaches B's sockets too.
    http = table.players[0].view(table.game_id)
    actor = table.player_of_seat(int(http["prompts"][0]["seat"]))
    sent = time.time()
    r = actor.act(table.game_id, pick(actor.view(table.game_id)), http["version"])
    assert r.status_code == 200, r.text
    msg = spectator_b.wait_version(r.json()["version"], timeout=5)
    assert spectator_b.received_at[spectator_b.messages.index(msg)] - sent < PUSHED
    # Each process pushed to its own sockets: both have the same final version.
    final = table.players[0].view(table.game_id)["version"]
    for sock in [*socks.values(), spectator_b]:
        assert sock.wait_version(final)["version"] == final


def test_a_lost_listen_connection_is_restored_and_resyncs(
    pg_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    a = start_server(pg_url)
    b = start_server(pg_url)
    table = make_table(a, new_player)
    watcher = sockets(b, table.game_id, None, label="watcher-on-B")
    watcher.wait_for(is_snapshot)
    with psycopg.connect(libpq_dsn(pg_url), autocommit=True) as admin:
        killed = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND query LIKE %s",
            (f'LISTEN "{CHANNEL}"%',),
        ).fetchall()
    assert len(killed) == 2  # one LISTEN connection per process, no more
    # Moves made right away (possibly while B is deaf) still reach B's socket.
    for _ in range(3):
        http = table.players[0].view(table.game_id)
        actor = table.player_of_seat(int(http["prompts"][0]["seat"]))
        r = actor.act(table.game_id, pick(actor.view(table.game_id)), http["version"])
        assert r.status_code == 200, r.text
    final = table.players[0].view(table.game_id)["version"]
    assert watcher.wait_version(final, timeout=10)["version"] == final


def test_a_server_killed_between_two_moves_loses_nothing(
    pg_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    a = start_server(pg_url)
    b = start_server(pg_url)
    table = make_table(a, new_player)
    s0, s1 = table.seats
    on_a = sockets(a, table.game_id, table.player_of_seat(s0), label="seat-on-A")
    on_b = sockets(b, table.game_id, table.player_of_seat(s1), label="seat-on-B")
    socks = {s0: on_a, s1: on_b}
    for sock in socks.values():
        sock.wait_for(is_snapshot)
    for _ in range(3):
        move(table, socks, [])
    version_before = on_a.version
    seq_before = on_a.last_seq
    assert version_before is not None and seq_before is not None

    a.stop(kill=True)  # SIGKILL: no shutdown, no goodbye
    on_a.wait_closed(timeout=10)
    a.start()

    # The client comes back with the last seq it saw and resyncs to the same place.
    back = sockets(a, table.game_id, table.player_of_seat(s0), last_seq=seq_before)
    sync = back.wait_for(is_snapshot)
    assert sync["type"] == "sync"
    assert sync["version"] == version_before
    assert sync["events"] == []
    assert sync["last_seq"] == seq_before
    # ... and play continues across both processes.
    socks = {s0: back, s1: on_b}
    for _ in range(4):
        assert move(table, socks, []) < PUSHED
    history = table.players[0].http.get(f"/api/games/{table.game_id}/events?since=0").json()
    seqs = [e["seq"] for e in history["events"]]
    assert seqs == sorted(set(seqs))
    assert back.version == on_b.version == table.players[0].view(table.game_id)["version"]
