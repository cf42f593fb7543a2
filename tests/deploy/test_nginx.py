"""deploy/nginx.conf in front of two instances (127.0.0.2 and 127.0.0.3, standing for two
machines) over one PostgreSQL: games played through nginx over the API and sockets.

- a path without a game goes to either instance (an empty hash key: round robin);
- a game's every request and socket reaches one instance (nginx's access log, which
  names the upstream of each, sockets included), and the games spread over both;
- a spectator attached directly to the other instance receives every move
  (PostgreSQL LISTEN/NOTIFY between them), and nothing is lost: each game's log holds
  exactly the moves acknowledged, replays to its stored state, and the spectator's
  last version is the game's;
- the client's address reaches the app through X-Forwarded-For, trusted from nginx
  only; the TLS block terminates HTTPS and secure sockets.
"""

from __future__ import annotations

import json
import re
import ssl
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from app.services.admin_cli import main as admin
from tests.realtime.conftest import Table, make_table
from tests.realtime.test_fanout_pg import move
from tests.realtime.test_ws_protocol import is_snapshot, pick

from .balancer import ROOT
from .conftest import INSTANCE_HEADER, NEEDS_NGINX, Balanced

pytestmark = [pytest.mark.postgres, NEEDS_NGINX]

#: the moves each game makes through nginx's sockets (and one more over HTTP)
MOVES = 5
#: games made until both instances hold some, at most this many
MAX_GAMES = 12


def replayed_actions(database_url: str, game_id: int, capsys: Any) -> int:
    """`imperial-glory admin replay ID`: the game's log replays to its stored state;
    returns how many actions the log holds."""
    capsys.readouterr()
    assert admin(["--url", database_url, "replay", str(game_id)]) == 0
    found = re.search(r"OK: game \d+: (\d+) actions", capsys.readouterr().out)
    assert found is not None
    return int(found.group(1))


def test_paths_without_a_game_spread_and_game_ids_split_between_the_instances(
    balanced: Balanced,
) -> None:
    with httpx.Client(base_url=balanced.url, timeout=10) as http:
        names = {http.get("/healthz").headers[INSTANCE_HEADER] for _ in range(8)}
        assert names == {"a", "b"}
        # 200 game ids (no such games: routed all the same), each asked for under each
        # of its three paths: always the same instance, about half the ids each.
        home: dict[int, set[str]] = {}
        for game in range(1, 201):
            for path in (f"/api/games/{game}", f"/games/{game}/lobby", f"/ws/games/{game}"):
                home.setdefault(game, set()).add(http.get(path).headers[INSTANCE_HEADER])
    assert all(len(names) == 1 for names in home.values())
    share_a = sum(names == {"a"} for names in home.values()) / len(home)
    assert 0.3 < share_a < 0.7, share_a
    # nginx's own record agrees with the answers' headers
    by_game = balanced.games_by_instance()
    assert all(len(counts) == 1 for counts in by_game.values())
    assert {game: set(counts) for game, counts in by_game.items()} == home


def test_each_game_stays_on_one_instance_and_a_spectator_on_the_other_sees_every_move(
    balanced: Balanced, new_player: Any, sockets: Any, capsys: Any
) -> None:
    tables: dict[int, Table] = {}
    home: dict[int, str] = {}
    while len(tables) < 4 or len(set(home.values())) < 2:
        assert len(tables) < MAX_GAMES, f"every game went to one instance: {home}"
        table = make_table(balanced.url, new_player)
        tables[table.game_id] = table
        probe = httpx.get(f"{balanced.url}/api/games/{table.game_id}", timeout=10)
        home[table.game_id] = probe.headers[INSTANCE_HEADER]
    acked: dict[int, int] = {}
    spectators = {}
    for game, table in tables.items():
        other = balanced.instances["b" if home[game] == "a" else "a"]
        socks = {
            seat: sockets(balanced.url, game, table.player_of_seat(seat), label=f"seat{seat}")
            for seat in table.seats
        }
        spectator = sockets(other, game, None, label="spectator-direct")
        for sock in socks.values():
            assert sock.ws.response.headers[INSTANCE_HEADER] == home[game]
        assert spectator.ws.response.headers[INSTANCE_HEADER] != home[game]
        for sock in [*socks.values(), spectator]:
            sock.wait_for(is_snapshot)
        for _ in range(MOVES):
            move(table, socks, [spectator])  # each move reaches the spectator in time
        # one move over HTTP through nginx, too
        state = next(iter(socks.values())).state
        assert state is not None
        actor = table.player_of_seat(int(state["prompts"][0]["seat"]))
        view = actor.view(game)
        r = actor.act(game, pick(view), view["version"])
        assert r.status_code == 200, r.text
        spectator.wait_version(r.json()["version"], timeout=5)
        acked[game] = MOVES + 1
        spectators[game] = spectator
        for sock in socks.values():
            sock.close()  # nginx logs a socket when it closes

    # Nothing lost, nothing doubled: each game's log holds exactly the moves that were
    # acknowledged, replays to its stored state, and the spectator on the other
    # instance ended on the game's version.
    for game, table in tables.items():
        assert replayed_actions(balanced.database_url, game, capsys) == acked[game]
        final = table.players[0].view(game)["version"]
        assert spectators[game].known == final

    # 100% of each game's requests and sockets, as nginx logged them, on one instance.
    deadline = time.monotonic() + 5
    while True:
        by_game = balanced.games_by_instance()
        sockets_logged = [
            line for line in balanced.nginx.log_lines() if line.path.startswith("/ws/games/")
        ]
        if len(sockets_logged) >= 2 * len(tables) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(sockets_logged) == 2 * len(tables)
    for game in tables:
        counts = by_game[game]
        assert counts == {home[game]: counts[home[game]]}, (game, counts)
        assert counts[home[game]] >= 8  # join, start, views, sockets, the HTTP move
    assert set(home.values()) == {"a", "b"}


def test_the_client_address_comes_from_nginx_alone(balanced: Balanced) -> None:
    """X-Forwarded-For: the address nginx saw is the client's; one a client makes up is
    believed neither through nginx (appended to, the rightmost untrusted one wins) nor
    sent to an instance directly (the client is not a trusted proxy)."""
    transport = httpx.HTTPTransport(local_address="127.0.0.4")
    forged = {"X-Forwarded-For": "203.0.113.9"}
    with httpx.Client(transport=transport, timeout=10) as http:
        for _ in range(4):  # both instances (round robin), through nginx
            assert http.get(f"{balanced.url}/healthz?via-nginx", headers=forged).is_success
        for server in balanced.instances.values():
            assert http.get(f"{server.url}/healthz?direct", headers=forged).is_success
    time.sleep(0.3)  # the access lines reach the logs
    for server in balanced.instances.values():
        lines = [line for line in server.log().splitlines() if "/healthz?" in line]
        assert any("127.0.0.4:" in line and "via-nginx" in line for line in lines), lines
        assert any("127.0.0.4:" in line and "direct" in line for line in lines), lines
        assert not any("203.0.113.9" in line for line in lines), lines


def test_the_tls_block_terminates_https_and_secure_sockets(
    start_balanced: Any, new_player: Any
) -> None:
    balanced = start_balanced(tls=True)
    r = httpx.get(f"{balanced.nginx.tls_url}/healthz", verify=False, timeout=10)
    assert r.status_code == 200 and r.http_version in ("HTTP/1.1", "HTTP/2")
    assert r.headers["strict-transport-security"].startswith("max-age=")
    # A player over plain HTTP through the same nginx, her socket over wss:// on the
    # TLS port: the same upstream, and its first state.
    alice = new_player(balanced.url)
    game = alice.create_game(scenario="teaching", pace="live")
    assert alice.start(game["id"]).status_code == 200
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    wss = balanced.nginx.tls_url.replace("https://", "wss://") + f"/ws/games/{game['id']}"
    with connect(
        wss,
        ssl=context,
        additional_headers={"Cookie": f"ig_session={alice.session_cookie}"},
        open_timeout=10,
    ) as ws:
        ws.send('{"type":"hello","last_seq":null}')
        first = ws.recv(timeout=10)
        assert '"type":"state"' in str(first).replace(" ", "") or "sync" in str(first)
        home = httpx.get(f"{balanced.url}/api/games/{game['id']}").headers[INSTANCE_HEADER]
        assert ws.response is not None
        assert ws.response.headers[INSTANCE_HEADER] == home


def test_the_fanout_bench_runs_behind_nginx() -> None:
    """bench/ws_fanout.py --nginx 2: two plain instances behind nginx from deploy/, the
    bench's figures for the balancer (docs/deploy.md, "What each setup holds")."""
    done = subprocess.run(
        [sys.executable, "bench/ws_fanout.py", "--games", "2", "--moves", "2", "--think", "0"]
        + ["--db", "postgresql", "--nginx", "2", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["nginx"] == 2
    assert result["actions"] == 4 and result["lost"] == 0 and result["action_errors"] == 0
    assert result["nginx_cpu_ms_per_action"] >= 0  # four moves may cost nginx no clock tick
