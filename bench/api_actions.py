"""Action throughput of the JSON API against a real server.

Starts `imperial-glory serve` on a fresh database (SQLite file, or a new PostgreSQL
database with --db postgresql), then runs GAMES two-player teaching games at once,
one thread per game: each step reads the prompted player's view and posts their
first legal action. Prints one JSON object:

  {"db", "games", "actions", "seconds", "actions_per_s", "p50_ms", "p99_ms"}

where the latencies are those of POST /api/games/{id}/actions (apply + log + commit),
plus the database's floor measured in the same run (bench/floor.py: one transaction
that locks a row, appends an action, updates a 5 KB snapshot and NOTIFYs, on
PostgreSQL; and the same on this run's database), the ratio of the p50 to the
PostgreSQL floor, the server's CPU seconds per action, the cores kept busy by the
server, by this bench's clients and by the whole machine, and the machine's load.

"actions_per_s" is what the one server process sustained while the clients (threads
in this process, on the same machine) drove it: each step is a GET of the view and
the POST of an action, so the server serves two requests per action.

    .venv/bin/python bench/api_actions.py --games 8 --steps 30 --db sqlite
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from procstat import cpu_seconds, machine_ticks  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def database(kind: str, workdir: Path) -> tuple[str, Any]:
    if kind == "sqlite":
        return f"sqlite:///{workdir / 'bench.sqlite3'}", None
    import psycopg

    server = os.environ.get("BENCH_PG", "postgresql://postgres@127.0.0.1:5432")
    name = f"ig_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"{server.replace('postgresql://', 'postgresql+psycopg://')}/{name}", drop


def start_server(url: str, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "DATABASE_URL": url}
    env.update(
        RATE_SIGNUP="100000/60", RATE_ACTIONS="100000/60", RATE_GAMES="100000/60"
    )  # one address, many players
    subprocess.run(
        [sys.executable, "-m", "app.cli", "db", "upgrade"], cwd=ROOT, env=env, check=True
    )
    port = free_port()
    log = (workdir / "server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def player(base: str) -> httpx.Client:
    http = httpx.Client(base_url=base, timeout=60)
    r = http.post(
        "/api/signup", json={"username": f"b{uuid.uuid4().hex[:12]}", "password": "bench password"}
    )
    r.raise_for_status()
    http.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return http


def play(base: str, steps: int, latencies: list[float], lock: threading.Lock, bots: int = 0) -> int:
    alice = player(base)
    if bots:
        # One person against `bots` heuristic bots: the person's submit must not wait
        # for them (the bot worker answers after the commit; we poll until prompted).
        seats = [{"kind": "human"}] + [{"kind": "bot", "bot_level": "heuristic"}] * bots
        scenario = "teaching" if bots == 1 else "four_empires"
        game = alice.post("/api/games", json={"scenario": scenario, "seats": seats}).json()
        people = [alice]
    else:
        bob = player(base)
        seats = [{"kind": "human"}, {"kind": "human"}]
        game = alice.post("/api/games", json={"scenario": "teaching", "seats": seats}).json()
        bob.post(f"/api/games/{game['id']}/join", json={}).raise_for_status()
        people = [alice, bob]
    alice.post(f"/api/games/{game['id']}/start").raise_for_status()
    done = 0
    for _ in range(steps):
        deadline = time.monotonic() + 60
        view: dict[str, Any] = {}
        client = alice
        while time.monotonic() < deadline:
            for client in people:
                view = client.get(f"/api/games/{game['id']}/view").json()
                if view["legal_actions"] or view["status"] != "active":
                    break
            if view["legal_actions"] or view["status"] != "active":
                break
            time.sleep(0.02)  # a bot is thinking
        if not view.get("legal_actions"):
            break
        t0 = time.perf_counter()
        r = client.post(
            f"/api/games/{game['id']}/actions",
            json={
                "action": view["legal_actions"][0],
                "expected_version": view["version"],
                "idempotency_key": uuid.uuid4().hex,
            },
        )
        elapsed = time.perf_counter() - t0
        r.raise_for_status()
        with lock:
            latencies.append(elapsed)
        done += 1
        if r.json()["status"] != "active":
            break
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--steps", type=int, default=30, help="actions per game at most")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--floor-n", type=int, default=500, help="floor transactions")
    parser.add_argument(
        "--bots", type=int, default=0, help="one person against this many bots per game"
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="ig-bench-"))
    url, drop = database(args.db, workdir)
    proc, base = start_server(url, workdir)
    latencies: list[float] = []
    lock = threading.Lock()
    counts: list[int] = []
    try:
        cpu0 = cpu_seconds(proc.pid)
        mine0 = time.process_time()
        busy0, total0 = machine_ticks()
        t0 = time.perf_counter()
        threads = [
            threading.Thread(
                target=lambda: counts.append(play(base, args.steps, latencies, lock, args.bots))
            )
            for _ in range(args.games)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - t0
        cpu = cpu_seconds(proc.pid) - cpu0
        client_cpu = time.process_time() - mine0
        busy1, total1 = machine_ticks()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
        if drop:
            drop()
    ordered = sorted(latencies)
    result: dict[str, Any] = {
        "db": args.db,
        "bots_per_game": args.bots,
        "games": args.games,
        "actions": len(latencies),
        "seconds": round(seconds, 2),
        "actions_per_s": round(len(latencies) / seconds, 1) if seconds else 0,
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 1)
        if ordered
        else None,
    }
    from floor import floor

    pg = floor("postgresql", args.floor_n)
    result["server_cpu_ms_per_action"] = (
        round(cpu * 1000 / len(latencies), 2) if latencies else None
    )
    # Cores busy over the run: the server, this bench's client threads, the whole machine
    # (with PostgreSQL's backends): whether the server or the machine was the limit.
    result["server_cpu_busy"] = round(cpu / seconds, 2) if seconds else None
    result["client_cpu_busy"] = round(client_cpu / seconds, 2) if seconds else None
    result["machine_busy"] = round((busy1 - busy0) / max(1, total1 - total0), 2)
    result["pg_floor_p50_ms"] = pg["floor_p50_ms"]
    result["pg_floor_tx_per_s"] = pg["floor_tx_per_s"]
    if args.db == "sqlite":
        result["sqlite_floor_p50_ms"] = floor("sqlite", args.floor_n)["floor_p50_ms"]
    if result["p50_ms"]:
        result["p50_over_pg_floor"] = round(result["p50_ms"] / pg["floor_p50_ms"], 1)
    result["cpus"] = os.cpu_count()
    result["load_avg_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
