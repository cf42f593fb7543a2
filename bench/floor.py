"""The database's floor: what one action can cost at best, measured in the same run as
the benchmark it is compared with (bench/api_actions.py, bench/ws_fanout.py).

One transaction on one connection, like an action's: lock the game row, append an
action row, update a 5 KB snapshot, ``pg_notify`` (PostgreSQL) — then commit. Prints
(or returns) the transaction's p50 / p99 in ms and transactions per second.

    .venv/bin/python bench/floor.py --db postgresql --n 2000
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

PG_SERVER = os.environ.get("BENCH_PG", "postgresql://postgres@127.0.0.1:5432")
SNAPSHOT = "x" * 5000


def _figures(times: list[float], seconds: float) -> dict[str, Any]:
    ordered = sorted(times)
    return {
        "floor_p50_ms": round(statistics.median(ordered) * 1000, 3),
        "floor_p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000, 3),
        "floor_tx_per_s": round(len(times) / seconds, 1),
        "floor_n": len(times),
    }


def floor_postgresql(n: int = 1000) -> dict[str, Any]:
    import psycopg

    name = f"ig_floor_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        with psycopg.connect(f"{PG_SERVER}/{name}") as conn:
            conn.execute("CREATE TABLE g (id int primary key, version int, snap text)")
            conn.execute("CREATE TABLE a (id serial primary key, game_id int, seq int, body jsonb)")
            conn.execute("INSERT INTO g VALUES (1, 0, %s)", (SNAPSHOT,))
            conn.commit()
            times: list[float] = []
            t0 = time.perf_counter()
            for i in range(n):
                start = time.perf_counter()
                conn.execute("SELECT version FROM g WHERE id = 1 FOR UPDATE")
                conn.execute(
                    "INSERT INTO a (game_id, seq, body) VALUES (1, %s, %s)",
                    (i, json.dumps({"type": "pass", "i": i})),
                )
                conn.execute(
                    "UPDATE g SET version = version + 1, snap = %s WHERE id = 1",
                    (SNAPSHOT[:-8] + f"{i:08d}",),
                )
                conn.execute("SELECT pg_notify('ig_floor', %s)", (f"1:{i}",))
                conn.commit()
                times.append(time.perf_counter() - start)
            return _figures(times, time.perf_counter() - t0)
    finally:
        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def floor_sqlite(n: int = 1000) -> dict[str, Any]:
    """The same transaction on an SQLite file, with the app's settings (WAL,
    synchronous=NORMAL); ``BEGIN IMMEDIATE`` is its lock, and there is no NOTIFY."""
    with tempfile.TemporaryDirectory(prefix="ig-floor-") as tmp:
        conn = sqlite3.connect(Path(tmp) / "floor.sqlite3", isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE g (id integer primary key, version int, snap text)")
        conn.execute("CREATE TABLE a (id integer primary key, game_id int, seq int, body text)")
        conn.execute("INSERT INTO g VALUES (1, 0, ?)", (SNAPSHOT,))
        times: list[float] = []
        t0 = time.perf_counter()
        for i in range(n):
            start = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("SELECT version FROM g WHERE id = 1").fetchone()
            conn.execute(
                "INSERT INTO a (game_id, seq, body) VALUES (1, ?, ?)",
                (i, json.dumps({"type": "pass", "i": i})),
            )
            conn.execute(
                "UPDATE g SET version = version + 1, snap = ? WHERE id = 1",
                (SNAPSHOT[:-8] + f"{i:08d}",),
            )
            conn.execute("COMMIT")
            times.append(time.perf_counter() - start)
        conn.close()
        return _figures(times, time.perf_counter() - t0)


def floor(db: str, n: int = 1000) -> dict[str, Any]:
    return floor_postgresql(n) if db == "postgresql" else floor_sqlite(n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--n", type=int, default=1000)
    args = parser.parse_args()
    print(json.dumps({"db": args.db, **floor(args.db, args.n)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
