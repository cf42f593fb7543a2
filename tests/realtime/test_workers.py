"""`imperial-glory serve --workers N` (app/web/workers.py): one port, N processes, each
game's sockets and requests on one of them; a worker that dies is started again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.web.workers import WORKER_HEADER, route

from .conftest import make_table
from .test_fanout_pg import move
from .test_ws_protocol import is_snapshot

ROOT = Path(__file__).resolve().parents[2]


def test_a_connection_goes_to_the_worker_of_its_game() -> None:
    assert route(b"GET /ws/games/17 HTTP/1.1\r\n", 2) == 1
    assert route(b"GET /ws/games/17?x=1 HTTP/1.1\r\n", 2) == 1
    assert route(b"POST /api/games/18/actions HTTP/1.1\r\n", 2) == 0
    assert route(b"GET /api/games/18 HTTP/1.1\r\n", 3) == 0
    assert route(b"GET /games/19/review HTTP/1.1\r\n", 2) == 1
    assert route(b"GET /games/7", 2) is None  # no end of the path yet: not read as 7…
    for other in (b"GET /api/games HTTP/1.1\r\n", b"GET /healthz HTTP/1.1\r\n", b"GET /"):
        assert route(other, 2) is None
    assert route(b"GET /api/gamesx/4 HTTP/1.1\r\n", 2) is None
    # The bench's override is honoured only when the server was told to.
    spread = b"GET /ws/games/17?ig_worker=0 HTTP/1.1\r\n"
    assert route(spread, 2) == 1
    assert route(spread, 2, override=True) == 0
    assert route(b"GET /ws/games/17?a=b&ig_worker=2 HTTP/1.1\r\n", 2, override=True) == 0


def test_several_workers_are_refused_on_sqlite(tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}"}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--workers", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--workers needs PostgreSQL" in done.stderr


def _workers(parent: int) -> dict[int, int]:
    """worker index -> pid, of the ``serve --workers`` process `parent`."""
    found: dict[int, int] = {}
    for task in Path(f"/proc/{parent}/task").iterdir():
        for pid in (task / "children").read_text().split():
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:  # exited, and not yet reaped
                continue
            for entry in environ:
                if entry.startswith(b"IG_WORKER="):
                    found[int(entry.split(b"=", 1)[1])] = int(pid)
    return found


def _answered_by(url: str) -> str:
    """The worker that answered a GET of `url`, on a connection of its own."""
    return httpx.get(url, timeout=10).headers[WORKER_HEADER]


@pytest.mark.postgres
@pytest.mark.slow
def test_serve_workers_keeps_a_game_on_one_worker_and_restarts_one_that_dies(
    pg_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    server = start_server(pg_url, args=["--workers", "2"])
    # Paths without a game go round robin: both workers answer.
    assert {_answered_by(f"{server.url}/healthz") for _ in range(6)} == {"0", "1"}
    table = make_table(server, new_player)
    game = table.game_id
    home, other = str(game % 2), str((game + 1) % 2)
    for _ in range(4):
        assert _answered_by(f"{server.url}/api/games/{game}") == home
        assert _answered_by(f"{server.url}/games/{game}") == home
        assert _answered_by(f"{server.url}/api/games/{game + 1}") == other
    s0, s1 = table.seats
    socks = {seat: sockets(server, game, table.player_of_seat(seat)) for seat in (s0, s1)}
    spectator = sockets(server, game, None, label="spectator")
    for sock in [*socks.values(), spectator]:
        assert sock.ws.response.headers[WORKER_HEADER] == home
        sock.wait_for(is_snapshot)
    for _ in range(3):  # each move reaches every socket
        move(table, socks, [spectator])

    # The game's worker is killed: it is started again, and the game is played on.
    before = _workers(server.proc.pid)
    assert sorted(before) == [0, 1]
    os.kill(before[game % 2], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while True:
        now = _workers(server.proc.pid)
        if len(now) == 2 and now[game % 2] != before[game % 2]:
            try:
                if _answered_by(f"{server.url}/api/games/{game}") == home:
                    break
            except httpx.HTTPError:
                pass
        assert time.monotonic() < deadline, "the worker was not started again"
        time.sleep(0.2)
    assert now[(game + 1) % 2] == before[(game + 1) % 2]  # the other one was left alone
    socks = {seat: sockets(server, game, table.player_of_seat(seat)) for seat in (s0, s1)}
    for sock in socks.values():
        assert sock.ws.response.headers[WORKER_HEADER] == home
        sock.wait_for(is_snapshot)
    move(table, socks, [])

    # SIGTERM to the parent alone: the workers shut down with it, each draining as
    # `serve` does (app/web/graceful.py): the game's sockets are closed with 1012.
    assert server.proc is not None
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(30) == 0
    for sock in socks.values():
        frame = getattr(sock.wait_closed(10), "rcvd", None)
        assert frame is not None and frame.code == 1012, frame
    for pid in now.values():
        assert not Path(f"/proc/{pid}").exists() or _zombie(pid)


def _zombie(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "Z"
