"""Action throughput of the JSON API against a real server.

Starts `imperial-glory serve` on a fresh database (SQLite file, or a new PostgreSQL
database with --db postgresql), then runs GAMES two-player teaching games at once,
one thread per game: each step reads the prompted player's view and posts their
first legal action. Prints one JSON object:

  {"db", "games", "actions", "seconds", "actions_per_s", "p50_ms", "p99_ms"}

where the latencies are those of POST /api/games/{id}/actions (apply + log + commit).

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
    env.update(RATE_SIGNUP="100000/60", RATE_ACTIONS="100000/60")  # one address, many players
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


def play(base: str, steps: int, latencies: list[float], lock: threading.Lock) -> int:
    alice, bob = player(base), player(base)
    game = alice.post(
        "/api/games", json={"scenario": "teaching", "seats": [{"kind": "human"}, {"kind": "human"}]}
    ).json()
    bob.post(f"/api/games/{game['id']}/join", json={}).raise_for_status()
    alice.post(f"/api/games/{game['id']}/start").raise_for_status()
    done = 0
    for _ in range(steps):
        for client in (alice, bob):
            view = client.get(f"/api/games/{game['id']}/view").json()
            if view["legal_actions"]:
                break
        else:
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
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="ig-bench-"))
    url, drop = database(args.db, workdir)
    proc, base = start_server(url, workdir)
    latencies: list[float] = []
    lock = threading.Lock()
    counts: list[int] = []
    try:
        t0 = time.perf_counter()
        threads = [
            threading.Thread(target=lambda: counts.append(play(base, args.steps, latencies, lock)))
            for _ in range(args.games)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - t0
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
        if drop:
            drop()
    ordered = sorted(latencies)
    result = {
        "db": args.db,
        "games": args.games,
        "actions": len(latencies),
        "seconds": round(seconds, 2),
        "actions_per_s": round(len(latencies) / seconds, 1) if seconds else 0,
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 1)
        if ordered
        else None,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
