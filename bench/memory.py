"""Where a live game's memory goes: the Python heap of a server, N live games against 2N.

    python bench/memory.py [--games N] [--moves M] [--frames F] [--top K]

1. starts ``imperial-glory serve`` on a fresh PostgreSQL database as bench/ws_fanout.py
   does, but under ``tracemalloc`` (F frames a trace, default 12) with a handler that
   dumps a snapshot on SIGUSR1 (``python bench/memory.py --serve ...`` is that wrapper);
2. sets up N six-seat games, each seat a socket holding its first state (as the fan-out
   bench does), plays M moves in each (default 3), and takes snapshot A;
3. does the same for N more games and takes snapshot B;
4. prints, per live game, B - A over N: the resident growth (meaningless under tracing,
   which makes the process several times larger) and the traced heap's, then the heap
   grouped three ways: by the app's outermost frames (who asked), by the allocating line,
   and the part no engine, service, store or render frame took (the sockets' own), per
   socket.

Slow (tracing makes the server several times slower): N = 30 takes minutes. Run it alone
on the machine. Asserts nothing; docs/performance.md, "Memory and the collector", reads
its output.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import signal
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: frames that mean the allocation is a game's (its state, the services, the pushes)
GAME_PARTS = ("engine/", "patch.py", "render.py", "services/", "store/", "psycopg", "sqlalchemy")


def serve_traced(argv: list[str]) -> int:
    """``imperial-glory serve`` under tracemalloc; SIGUSR1 dumps a snapshot to
    $IG_SNAPSHOT.<n> (n = 0, 1, …)."""
    tracemalloc.start(int(os.environ.get("IG_TRACE_FRAMES", "12")))
    taken = [0]

    def dump(_signum: int, _frame: Any) -> None:
        gc.collect()
        path = f"{os.environ['IG_SNAPSHOT']}.{taken[0]}"
        taken[0] += 1
        tracemalloc.take_snapshot().dump(path + ".part")
        os.replace(path + ".part", path)

    signal.signal(signal.SIGUSR1, dump)
    from app.cli import main

    return main(argv)


async def drive(server: Any, games: int, moves: int, snapshot: str) -> list[int]:
    """Two rounds of `games` live games; a snapshot after each; the resident sets."""
    import httpx
    from websockets.asyncio.client import connect
    from ws_fanout import POWERS, SESSION_COOKIE, Sock, bench_accounts, create_game, play

    stats: dict[str, Any] = collections.defaultdict(int)
    for key in ("latency", "act", "cold_act", "cold_all", "all"):
        stats[key] = []
    stats["measure"] = False
    http = httpx.AsyncClient(base_url=server.base, timeout=300)
    people = await bench_accounts(http, 2 * games * len(POWERS))
    assert people is not None, "the server has no bench account route"
    seated = [people[i : i + len(POWERS)] for i in range(0, len(people), len(POWERS))]
    ws_base = server.base.replace("http://", "ws://")
    limit = asyncio.Semaphore(8)

    async def make(six: list[Any]) -> int:
        async with limit:
            return await create_game(http, six)

    async def join(game_id: int, person: Any) -> Any:
        async with limit:
            ws = await connect(
                f"{ws_base}/ws/games/{game_id}",
                additional_headers={"Cookie": f"{SESSION_COOKIE}={person.cookie}"},
                max_size=None,
                ping_interval=None,
                open_timeout=300,
            )
            await ws.send(json.dumps({"type": "hello", "last_seq": None, "patches": True}))
            sock = Sock(ws, stats)
            await sock.until(lambda: sock.state is not None, timeout=300)
            return sock

    tables: list[list[Any]] = []
    rss: list[int] = []
    pid = server.procs[0].pid
    for taken, part in enumerate((seated[:games], seated[games:])):
        made = await asyncio.gather(*(make(six) for six in part))
        mine = [
            list(await asyncio.gather(*(join(g, p) for p in six)))
            for g, six in zip(made, part, strict=True)
        ]
        tables += mine
        await asyncio.gather(
            *(
                play(g, t, moves, 0.3, stats, seed=i, warmup=0)
                for i, (g, t) in enumerate(zip(made, mine, strict=True))
            )
        )
        await asyncio.sleep(2)
        rss.append(server.rss_kb())
        os.kill(pid, signal.SIGUSR1)
        while not Path(f"{snapshot}.{taken}").exists():
            await asyncio.sleep(0.5)
        print(f"{len(tables)} live games, {stats['actions']} moves", file=sys.stderr, flush=True)
    for table in tables:
        for sock in table:
            await sock.ws.close()
    await http.aclose()
    return rss


def short(frame: tracemalloc.Frame) -> str:
    name = frame.filename
    for cut in ("site-packages/", f"{ROOT}/", "python3.11/"):
        name = name.split(cut)[-1]
    return f"{name}:{frame.lineno}"


def report(snapshot: str, games: int, rss: list[int], top: int) -> None:
    drop = [tracemalloc.Filter(False, tracemalloc.__file__)]
    a = tracemalloc.Snapshot.load(f"{snapshot}.0").filter_traces(drop)
    b = tracemalloc.Snapshot.load(f"{snapshot}.1").filter_traces(drop)
    heap = sum(s.size for s in b.statistics("filename")) - sum(
        s.size for s in a.statistics("filename")
    )
    print(f"per live game: resident {(rss[1] - rss[0]) / games:.1f} KB (traced, inflated),")
    print(f"               Python heap {heap / 1024 / games:.1f} KB")
    asked: collections.Counter[str] = collections.Counter()
    line: collections.Counter[str] = collections.Counter()
    sockets: collections.Counter[str] = collections.Counter()
    for stat in b.compare_to(a, "traceback"):
        names = [short(f) for f in stat.traceback]
        app = [n for n in names if n.startswith("app/")]
        asked[" <- ".join(reversed(app[:2])) or "(no app frame)"] += stat.size_diff
        line[names[-1]] += stat.size_diff
        if not any(part in n for n in names for part in GAME_PARTS):
            sockets[names[-1]] += stat.size_diff
    for title, counts, per in (
        ("who asked (outermost app frames), KB a game", asked, games),
        ("allocating line, KB a game", line, games),
        ("the sockets' own (no game frame), KB a socket", sockets, games * 6),
    ):
        total = sum(counts.values()) / 1024 / per
        print(f"\n== {title}: {total:.1f} in all")
        for name, size in counts.most_common(top):
            print(f"{size / 1024 / per:8.2f}  {name}")


def main(argv: list[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:1] == ["--serve"]:
        return serve_traced(args_in[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--moves", type=int, default=3)
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(args_in)
    from ws_fanout import POWERS, SPARE_FILES, Server, raise_open_files

    raise_open_files(2 * args.games * len(POWERS) + SPARE_FILES)
    with tempfile.TemporaryDirectory(prefix="ig-memory-") as tmp:
        snapshot = str(Path(tmp) / "snapshot")
        os.environ.update(IG_SNAPSHOT=snapshot, IG_TRACE_FRAMES=str(args.frames))
        cli = [sys.executable, str(Path(__file__).resolve()), "--serve"]
        server = Server("postgresql", Path(tmp), cli=cli, start_s=600)
        try:
            rss = asyncio.run(drive(server, args.games, args.moves, snapshot))
        finally:
            server.stop()
        report(snapshot, args.games, rss, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
