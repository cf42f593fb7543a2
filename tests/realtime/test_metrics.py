"""``/metrics`` (app/web/metrics.py, app/services/metrics.py): a game played through a
real server over HTTP and sockets, then the scrape parsed and its counts checked against
what was done and what the database recorded; refusals by address; the counts of
``serve --workers 2`` summed over its processes; a clock's time-out counted."""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.services import accounts, deadlines, lobby, standins, starting
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Game
from app.web.workers import WORKER_HEADER

from .conftest import Table, make_table
from .test_ws_protocol import is_snapshot, pick

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
ACTIONS = "/api/games/{game_id}/actions"


def scrape(url: str, client: Any = httpx, answered: set[str] | None = None) -> Samples:
    """Every sample of ``GET /metrics``, parsed by prometheus-client's own parser;
    `answered` collects the worker that answered (``serve --workers``)."""
    r = client.get(f"{url}/metrics", timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=")
    if answered is not None:
        answered.add(r.headers[WORKER_HEADER])
    out: Samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def moves(samples: Samples, source: str) -> float:
    return value(samples, "imperial_glory_moves_total", source=source)


def http(samples: Samples, route: str, status: int, method: str = "POST") -> float:
    return value(
        samples,
        "imperial_glory_http_responses_total",
        method=method,
        route=route,
        status=str(status),
    )


def settled(table: Table, timeout: float = 20.0) -> dict[str, Any]:
    """The host's view once the bot worker has nothing left to do: only a person is
    prompted, at a version that holds still."""
    host = table.players[0]
    deadline = time.monotonic() + timeout
    last: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        view = host.view(table.game_id)
        people = {int(p["seat"]) for p in view["prompts"]} <= set(table.seats)
        if people and last is not None and last["version"] == view["version"]:
            return view
        last = view if people else None
        time.sleep(0.25)
    raise AssertionError("the bots did not finish their turn")


def logged_sources(database_url: str, game_id: int) -> dict[str, int]:
    path = database_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT source, count(*) FROM actions WHERE game_id = ? GROUP BY source", (game_id,)
        ).fetchall()
    return {str(source): int(n) for source, n in rows}


def test_a_game_is_counted_by_source_route_status_and_socket(
    sqlite_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    server = start_server(sqlite_url)
    table = make_table(server, new_player, humans=1, bots=1)
    game = table.game_id
    socks = {seat: sockets(server, game, table.player_of_seat(seat)) for seat in table.seats}
    watcher = sockets(server, game, None, label="spectator")
    for sock in [*socks.values(), watcher]:
        sock.wait_for(is_snapshot)
    assert value(scrape(server.url), "imperial_glory_sockets_open") == 2

    route = socket = 0
    for step in range(8):
        view = settled(table)
        seat = int(view["prompts"][0]["seat"])
        person = table.player_of_seat(seat)
        mine = person.view(game)
        if step % 2 == 0:
            key = uuid.uuid4().hex
            r = person.act(game, pick(mine), mine["version"], key)
            assert r.status_code == 200, r.text
            route += 1
            if step == 0:  # the same request again: answered from its key, not a move
                again = person.act(game, pick(mine), mine["version"], key)
                assert again.status_code == 200 and again.json()["replayed"] is True
                stale = person.act(game, pick(mine), mine["version"])
                assert stale.status_code == 409, stale.text
        else:
            reply = socks[seat].act(pick(mine), mine["version"])
            assert reply["type"] == "ack", reply
            socket += 1

    # A person steps away: a stand-in plays her seat; she comes back.
    away = table.players[0]
    assert away.http.post(f"/api/games/{game}/away").status_code == 200
    assert away.http.post(f"/api/games/{game}/reclaim").status_code == 200
    final = settled(table)["version"]

    samples = scrape(server.url)
    logged = logged_sources(server.database_url, game)
    assert moves(samples, "route") == route
    assert moves(samples, "socket") == socket
    assert logged["player"] == route + socket
    bot_moves = logged.get("bot", 0) + logged.get("standin", 0)
    assert bot_moves > 0
    assert moves(samples, "bot") == bot_moves
    assert moves(samples, "clock") == 0
    for source in ("route", "socket", "bot"):  # every counted move was timed
        assert value(samples, "imperial_glory_move_commit_seconds_count", source=source) == moves(
            samples, source
        )
    assert http(samples, ACTIONS, 200) == route + 1  # the replay answered 200 too
    assert http(samples, ACTIONS, 409) == 1
    assert http(samples, "/api/games/{game_id}/away", 200) == 1
    assert http(samples, "/api/games/{game_id}/view", 200, "GET") > 0
    assert not any(
        name == "imperial_glory_http_responses_total" and str(game) in dict(labels)["route"]
        for name, labels in samples
    ), "a raw path leaked into a route label"
    assert value(samples, "imperial_glory_standins_started_total", why="away") == 1
    thinks = sum(
        v
        for (name, _labels), v in samples.items()
        if name == "imperial_glory_bot_think_seconds_count"
    )
    assert thinks >= bot_moves
    assert value(samples, "imperial_glory_bot_think_seconds_count", level=standins.LEVEL) >= (
        logged.get("standin", 0)
    )
    # one observation per push of a new version (moves, and the changes that are not)
    assert 0 < value(samples, "imperial_glory_push_seconds_count") <= final
    assert value(samples, "imperial_glory_games", status="active") == 1
    assert value(samples, "imperial_glory_games", status="finished") == 0
    assert value(samples, "imperial_glory_sockets_open") == 2
    assert ("imperial_glory_db_pool_in_use", ()) in samples

    for sock in [*socks.values(), watcher]:
        sock.close()
    deadline = time.monotonic() + 10
    while value(scrape(server.url), "imperial_glory_sockets_open") != 0:
        assert time.monotonic() < deadline, "closed sockets still counted"
        time.sleep(0.2)


def _from(address: str) -> httpx.Client:
    """A client whose connections leave from `address` (any 127.x reaches loopback)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


def test_metrics_are_refused_beyond_metrics_allow(sqlite_url: str, start_server: Any) -> None:
    server = start_server(sqlite_url)  # METRICS_ALLOW: loopback; TRUSTED_PROXIES: 127.0.0.1
    url = f"{server.url}/metrics"
    with _from("127.0.0.2") as elsewhere, _from("127.0.0.1") as proxy:
        assert proxy.get(url).status_code == 200
        refused = elsewhere.get(url)
        assert refused.status_code == 403
        assert "METRICS_ALLOW" in refused.text and "imperial_glory" not in refused.text
        # Through the trusted proxy, the client it names is the one checked ...
        assert proxy.get(url, headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 403
        # ... and a peer that is not a trusted proxy cannot name itself loopback.
        spoofed = elsewhere.get(url, headers={"X-Forwarded-For": "127.0.0.1"})
        assert spoofed.status_code == 403

    other = start_server(
        sqlite_url.replace(".sqlite3", "-b.sqlite3"), env={"METRICS_ALLOW": "127.0.0.2/32"}
    )
    with _from("127.0.0.2") as allowed, _from("127.0.0.1") as local:
        assert allowed.get(f"{other.url}/metrics").status_code == 200
        assert local.get(f"{other.url}/metrics").status_code == 403


def test_metrics_allow_names_a_malformed_entry() -> None:
    with pytest.raises(ValueError, match="METRICS_ALLOW: 'no-such-net'"):
        Settings(metrics_allow="127.0.0.1, no-such-net")
    assert Settings(metrics_allow="").metrics_allow == ""


@pytest.mark.postgres
def test_serve_workers_counts_add_up_over_the_processes(
    pg_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    server = start_server(pg_url, args=["--workers", "2"])
    tables = [make_table(server, new_player) for _ in range(2)]
    assert {t.game_id % 2 for t in tables} == {0, 1}  # one game on each worker
    opened = [sockets(server, t.game_id, t.players[0]) for t in tables]
    for sock in opened:
        sock.wait_for(is_snapshot)
    made = 0
    for table in tables:
        for _ in range(3):
            view = table.players[0].view(table.game_id)
            person = table.player_of_seat(int(view["prompts"][0]["seat"]))
            mine = person.view(table.game_id)
            r = person.act(table.game_id, pick(mine), mine["version"])
            assert r.status_code == 200, r.text
            made += 1
    # /metrics goes round robin: each worker answers for both, with the same sums.
    answered: set[str] = set()
    for _ in range(4):
        samples = scrape(server.url, answered=answered)
        assert moves(samples, "route") == made
        assert http(samples, ACTIONS, 200) == made
        assert value(samples, "imperial_glory_sockets_open") == len(opened)
        assert value(samples, "imperial_glory_games", status="active") == 2
    assert answered == {"0", "1"}


# --------------------------------------------------------------------------- a clock


@pytest.fixture
def factory(sqlite_url: str) -> Iterator[sessionmaker[Session]]:
    from tests.conftest import migrate

    migrate(sqlite_url)
    engine = make_engine(sqlite_url)
    yield make_sessionmaker(engine)
    engine.dispose()


def _count(source: str) -> float:
    return REGISTRY.get_sample_value("imperial_glory_moves_total", {"source": source}) or 0.0


def test_a_time_out_is_counted_once_as_the_clocks(factory: Callable[[], Session]) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        seats = [lobby.SeatSpec("human"), lobby.SeatSpec("human")]
        game = lobby.create_game(db, alice, "teaching", seats, pace="live")
        lobby.join(db, game, bob)
        starting.start(db, game, alice)
        db.commit()
        game_id, due = game.id, game.next_deadline
    assert due is not None
    before = _count("clock")
    assert deadlines.run_once(factory, due - timedelta(seconds=1)) == []  # not yet
    assert _count("clock") == before
    assert [g for g, _v in deadlines.run_once(factory, due + timedelta(seconds=1))] == [game_id]
    assert _count("clock") == before + 1
    with factory() as db:
        assert any(s.standin for s in db.get(Game, game_id).seats)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- the directory


def test_serve_empties_the_metrics_directory_and_a_dead_worker_leaves_the_gauges(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.web import metrics_dir

    monkeypatch.delenv(metrics_dir.MULTIPROC_ENV, raising=False)
    assert metrics_dir.prepare(1) is None  # one process: its metrics stay in its memory
    given = tmp_path / "prom"
    given.mkdir()
    (given / "counter_4242.db").write_bytes(b"stale")  # a run before this one's
    (given / "notes.txt").write_text("kept")
    monkeypatch.setenv(metrics_dir.MULTIPROC_ENV, str(given))
    assert metrics_dir.prepare(1) == str(given)
    assert sorted(p.name for p in given.iterdir()) == ["notes.txt"]

    # A worker's files: its live gauges go when it is marked dead, its counters stay.
    for name in ("gauge_livesum_77.db", "gauge_liveall_77.db", "counter_77.db"):
        (given / name).write_bytes(b"")
    metrics_dir.process_gone(77)
    assert sorted(p.name for p in given.iterdir()) == ["counter_77.db", "notes.txt"]

    monkeypatch.delenv(metrics_dir.MULTIPROC_ENV)
    made = metrics_dir.prepare(2)  # several workers and none named: a temporary one
    assert made is not None and Path(made).is_dir()
    assert os.environ[metrics_dir.MULTIPROC_ENV] == made
