"""Websocket fan-out: commit -> receipt latency on every socket of N live games.

    python bench/ws_fanout.py --games N [--moves M] [--think S] [--db sqlite|postgresql]
                              [--warmup K] [--whole] [--workers W [--spread]] [--nginx N]
                              [--json]

Every socket asks for patches, as the page does (``--whole``: whole updates, as before),
and applies them as live.js does; the figures include how many updates came as patches
and the KB received per action.

What it does (loopback only, bounded):
1. starts a real server on this machine: ``imperial-glory serve`` (uvicorn) in a
   subprocess, on a fresh SQLite file (default) or a fresh PostgreSQL database on
   127.0.0.1:5432 (``--db postgresql``), migrated first;
2. creates N games of the six-seat main scenario (``four_empires``: Rome, Parthia,
   Kushan, Han, Xiongnu, Satavahana), every seat a different person, so each game has 6
   sockets, one per seat (6 N sockets in all). The 6 N accounts come logged in from the
   server's bench-only ``POST /api/bench/accounts`` (the bench starts the server with
   ``BENCH_ACCOUNTS=true``; one request, one shared precomputed password hash, where 6 N
   sign-ups would each spend an argon2 hash); a server without that route (404) gets
   six people signed up as before, seated in every game. The games are created, joined
   and started through the ordinary API, ``--setup-at-once`` games at a time, and the
   sockets connected as many at a time; ``setup_s`` (accounts, games, sockets until
   each has its first state) is printed with its parts. The open-files limit is raised
   to what 6 N sockets need, for the bench and the server it starts (which inherits it);
3. every game plays ``--moves`` moves: the prompted seat sends an action on its own
   socket (a cheap legal choice), waits for the ack and for the update on all six
   sockets, then "thinks" ``--think`` seconds (uniform 0..2x jitter) before its next move;
   all games run at once;
4. latency = the time a socket receives the update minus the server's ``committed_at``
   stamp in it (wall clock taken by ``publish()`` right after the commit; same machine,
   same clock; only the committing process stamps its pushes, so with ``--spread`` it
   is the writer's sockets' figure). Also reported: send -> ack, send -> every socket
   of the game has the new version ("submit_to_all"), and messages per second received. Each game's first
   ``--warmup`` moves (default 1) are reported apart (``warmup_*``), not in these: a
   game's first move in a process that has not written it yet takes the ordinary
   transaction, and the bench starts every game within the first ``2 * think``
   seconds, a burst of cold moves that only a restart of a busy server meets (at 200
   games it held the p99 at 140-460 ms; docs/performance.md, "Running the benchmarks");
5. memory: the server process's resident set (VmRSS). The games are set up in two
   halves, each its games and then their sockets, and the figures per game are slopes
   over the second half, so that the process's one-time warm-up (imports, compiled
   statements, caches, malloc arenas: ~15 MB, paid by the first games) is not spread
   over the games: ``kb_per_live_game_marginal`` = what one more live game with its six
   sockets, each holding its first state, adds (RSS after the second half's sockets
   minus after the first half's, over the second half's games); ``kb_per_game`` (the
   game created, joined and started, no socket) and ``kb_per_socket`` its parts;
   ``kb_per_live_game_marginal_at_end`` adds what the moves grew the process by, per
   game (an upper bound: the moves' own warm-up is spread in it);
   ``kb_per_live_game_at_end`` is the growth since start over N, warm-up and all, as
   before;
6. the floor, measured in the same run after the games (bench/floor.py): one
   PostgreSQL transaction that locks a row, appends an action, updates a 5 KB
   snapshot and NOTIFYs; the ratios of the p50s to it are printed too;
7. CPU over the measured run: the server's per action and busy fraction (in cores),
   the bench client's own and PostgreSQL's (every ``postgres`` process), each per
   action and in cores, and the whole machine's (0-1 of all cores). The
   client shares the machine with the server: when the machine is near 1, the tail
   latencies are the run queue's, not the server's.

``--workers W`` (PostgreSQL): the server is ``imperial-glory serve --workers W``, which
keeps each game's sockets on one worker; CPU and memory are then the sum over the
parent and its workers. ``--spread`` spreads each game's six sockets over the workers
on purpose instead (seat i on worker i mod W, through the server's bench-only
``--bench-routing``): what a game costs when the processes holding its sockets apply
each other's moves.

``--nginx N`` (PostgreSQL): N plain ``imperial-glory serve`` processes on 127.0.0.1, ports
P..P+N-1, behind Debian's nginx run from ``deploy/nginx.conf`` (by game id, as
tests/deploy runs it; ``tests/deploy/balancer.py``), the bench talking to nginx: the
balancer's way to what ``--workers N`` does. CPU and memory are then the sum over the
N processes and nginx (its master and worker); nginx's own share is reported apart
(``nginx_cpu_ms_per_action``).

Prints one JSON object (``--json``) or a short table. Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests" / "deploy"))  # balancer.py: nginx from deploy/

from procstat import family, family_cpu_seconds, machine_ticks, named_cpu_seconds  # noqa: E402

from app.realtime import patch  # noqa: E402


def rss_kb(pid: int) -> int:
    """The resident set of a process and its descendants in KB (Linux /proc)."""
    total = 0
    for each in family(pid):
        with contextlib.suppress(OSError):
            total += _rss_kb(each)
    return total


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


SCENARIO = "four_empires"
POWERS = ["rome", "parthia", "kushan", "han", "xiongnu", "satavahana"]
#: the PostgreSQL server the bench's databases are made on (as bench/floor.py's)
PG_SERVER = os.environ.get("BENCH_PG", "postgresql://postgres@127.0.0.1:5432").replace(
    "postgresql://", "postgresql+psycopg://", 1
)
SESSION_COOKIE = "ig_session"
#: file descriptors the bench (and the server, which inherits its limit) need beyond
#: one per socket: the HTTP pool, the database's connections, the interpreter's own
SPARE_FILES = 1024
PREFERRED = ("pass", "choose_slot", "draw", "dismiss", "end_turn", "decline", "tax")
RANK = {kind: rank for rank, kind in enumerate(PREFERRED)}
#: what a message says about that one push, not about the game (live.js's PER_MESSAGE):
#: not kept with the fields a patch applies to, so a patch never inherits them
PER_MESSAGE = frozenset(
    [
        "type",
        "events",
        "since",
        "last_seq",
        "chat_last_id",
        "committed_at",
        "resync",
        "base",
        "patch",
    ]
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """One ``imperial-glory serve`` subprocess on a fresh database (``nginx``: that many,
    behind nginx)."""

    def __init__(
        self,
        db: str,
        workdir: Path,
        workers: int = 1,
        spread: bool = False,
        nginx: int = 0,
        cli: list[str] | None = None,
        start_s: float = 60.0,
    ) -> None:
        """`cli`: the command line that runs ``imperial-glory`` (default: ``python -m
        app.cli``; bench/memory.py runs it under tracemalloc), `start_s`: how long it
        may take to answer."""
        self.db = db
        self.balancer: Any = None
        self.procs: list[subprocess.Popen[bytes]] = []
        self.workdir = workdir
        self.pg_name: str | None = None
        if db == "sqlite":
            self.url = f"sqlite:///{workdir / 'bench.sqlite3'}"
        else:
            import psycopg

            self.pg_name = f"ig_bench_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(
                PG_SERVER.replace("+psycopg", "") + "/postgres", autocommit=True
            ) as conn:
                conn.execute(f'CREATE DATABASE "{self.pg_name}"')
            self.url = f"{PG_SERVER}/{self.pg_name}"
        from app.store.cli import upgrade

        upgrade(self.url)
        self.log = (workdir / "server.log").open("wb")
        env = {**os.environ, "DATABASE_URL": self.url, "LOG_LEVEL": "warning"}
        # One address for 6,000 sockets (and, without the bench route, six people in up
        # to 1,000 games each): the limits a host sets for strangers (docs/api.md,
        # "Limits") would refuse the bench's own sockets. Loopback is a trusted proxy
        # by default, which the per-address caps leave alone; lifted here all the same,
        # so that a TRUSTED_PROXIES in the environment cannot cap the bench.
        env.update(
            RATE_SIGNUP="100000/60",
            RATE_ACTIONS="100000/60",
            RATE_GAMES="100000/60",
            WS_PER_USER="100000",
            WS_PER_ADDRESS="100000",
            HTTP_CONNECTIONS_PER_ADDRESS="100000",
            # the bench-only account route (app/web/routes/bench.py): 6 N people at once
            BENCH_ACCOUNTS="true",
        )
        ports = [free_port() for _ in range(max(1, nginx))]
        for port in ports:
            self.procs.append(
                subprocess.Popen(
                    (cli or [sys.executable, "-m", "app.cli"])
                    + ["serve", "--host", "127.0.0.1"]
                    + ["--port", str(port)]
                    + (["--workers", str(workers)] if workers > 1 else [])
                    + (["--bench-routing"] if spread else []),
                    cwd=ROOT,
                    env=env,
                    stdout=self.log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        for port, proc in zip(ports, self.procs, strict=True):
            self._wait(f"http://127.0.0.1:{port}", proc, workdir, start_s)
        self.base = f"http://127.0.0.1:{ports[0]}"
        if nginx:
            from balancer import Nginx

            self.balancer = Nginx(workdir / "nginx", [f"127.0.0.1:{port}" for port in ports])
            self.balancer.start()
            self.base = self.balancer.url

    @staticmethod
    def _wait(base: str, proc: subprocess.Popen[bytes], workdir: Path, start_s: float) -> None:
        deadline = time.monotonic() + start_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError("server exited; see " + str(workdir / "server.log"))
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("server did not start")

    @property
    def pids(self) -> list[int]:
        """The server's processes (each with its descendants): the app's, and nginx."""
        return [proc.pid for proc in self.procs] + (
            self.balancer.pids if self.balancer is not None else []
        )

    def cpu_seconds(self) -> float:
        return sum(family_cpu_seconds(pid) for pid in self.pids)

    def nginx_cpu_seconds(self) -> float:
        if self.balancer is None:
            return 0.0
        return sum(family_cpu_seconds(pid) for pid in self.balancer.pids)

    def rss_kb(self) -> int:
        return sum(rss_kb(pid) for pid in self.pids)

    def stop(self) -> None:
        if self.balancer is not None:
            self.balancer.stop()
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        self.log.close()
        if self.pg_name:
            import psycopg

            with psycopg.connect(
                PG_SERVER.replace("+psycopg", "") + "/postgres", autocommit=True
            ) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')


def raise_open_files(need: int) -> int:
    """Lift this process's soft limit on open files towards `need` (6,000 sockets hold
    6,000 descriptors here and as many in the server, which inherits the limit when it
    is started after this), at most to the hard limit; the limit in force. A limit
    still short of `need` is an error naming it, not a run that fails at socket 1,021."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    infinite = resource.RLIM_INFINITY
    if soft != infinite and soft < need:
        soft = need if hard == infinite else min(hard, need)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if soft != infinite and soft < need:
        raise SystemExit(
            f"{need} open files are needed and the hard limit is {hard}: raise it "
            "(ulimit -Hn) or run fewer games"
        )
    return -1 if soft == infinite else int(soft)


def progress(line: str) -> None:
    """A line on stderr while the setup of 1,000 games takes its minutes."""
    print(line, file=sys.stderr, flush=True)


class Person:
    """One account, logged in: its name, session cookie and CSRF token. Its requests go
    through the bench's one HTTP client (6,000 clients would cost a TLS context each)."""

    def __init__(self, name: str, cookie: str, csrf: str) -> None:
        self.name = name
        self.cookie = cookie
        self.csrf = csrf

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": f"{SESSION_COOKIE}={self.cookie}", "X-CSRF-Token": self.csrf}


async def bench_accounts(http: httpx.AsyncClient, count: int) -> list[Person] | None:
    """`count` logged-in accounts from the server's bench-only route in one request, or
    None when the server has no such route (404: BENCH_ACCOUNTS off, an older server)."""
    prefix = f"b{uuid.uuid4().hex[:6]}_"
    r = await http.post("/api/bench/accounts", json={"count": count, "prefix": prefix})
    if r.status_code == 404:
        return None
    r.raise_for_status()
    return [Person(a["username"], a["session"], a["csrf_token"]) for a in r.json()["accounts"]]


async def signup(base: str, index: int) -> Person:
    """One person signed up over ``/api/signup`` (an argon2 hash on the server), with a
    client of its own so that its cookie stays out of the shared client's jar."""
    name = f"bench{index}_{uuid.uuid4().hex[:6]}"
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        r = await http.post("/api/signup", json={"username": name, "password": "bench horse 1"})
        r.raise_for_status()
        return Person(name, http.cookies.get(SESSION_COOKIE) or "", r.json()["csrf_token"])


async def create_game(http: httpx.AsyncClient, people: list[Person]) -> int:
    """A six-seat game of `people` (the first hosts), created, joined and started through
    the ordinary API, as a table would."""
    host = people[0]
    r = await http.post(
        "/api/games",
        headers=host.headers,
        json={
            "scenario": SCENARIO,
            "seats": [{"kind": "human"} for _ in POWERS],
            "public": True,
            "pace": "72h",
            "power": POWERS[0],
        },
    )
    r.raise_for_status()
    game_id = int(r.json()["id"])
    for person, power in zip(people[1:], POWERS[1:], strict=True):
        r = await http.post(
            f"/api/games/{game_id}/join", headers=person.headers, json={"power": power}
        )
        r.raise_for_status()
    r = await http.post(f"/api/games/{game_id}/start", headers=host.headers)
    r.raise_for_status()
    return game_id


class Sock:
    """One seat's socket: keeps the latest view and wakes waiters on every message."""

    def __init__(self, ws: ClientConnection, stats: dict[str, Any]) -> None:
        self.ws = ws
        self.stats = stats
        self.state: dict[str, Any] | None = None  # the game's fields, as live.js keeps them
        self.version = -1
        self.seen: dict[int, float] = {}  # version -> when this socket received it
        self.acks: dict[str, dict[str, Any]] = {}
        self.changed = asyncio.Event()
        self.cold = True  # its game is still in its first, unmeasured moves (--warmup)
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        with contextlib.suppress(Exception):
            async for text in self.ws:
                now = time.time()
                msg = orjson.loads(text)
                self.stats["messages"] += 1
                self.stats["bytes"] += len(text)
                kind = msg.get("type")
                if kind == "update" and "patch" in msg:  # as live.js applies them
                    held = self.state
                    if held is None or held["version"] != msg["base"]:
                        self.stats["unpatchable"] += 1
                        await self.ws.send(json.dumps({"type": "hello", "patches": True}))
                        continue
                    self.stats["patched"] += 1
                    rest = {k: v for k, v in msg.items() if k not in ("patch", "base")}
                    msg = {**patch.apply(held, msg["patch"]), **rest}
                if kind == "ping":
                    await self.ws.send('{"type":"pong"}')
                elif kind in ("state", "sync", "update"):
                    self.state = {k: v for k, v in msg.items() if k not in PER_MESSAGE}
                    self.version = max(self.version, int(msg["version"]))
                    self.seen.setdefault(int(msg["version"]), now)
                    measured = self.stats["measure"] and not self.cold
                    if kind == "update" and "committed_at" in msg and measured:
                        self.stats["latency"].append(now - float(msg["committed_at"]))
                elif kind in ("ack", "error"):
                    self.acks[str(msg.get("req_id"))] = msg
                self.changed.set()

    async def until(self, pred: Any, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not pred():
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)


def choose(msg: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The first legal action of the earliest kind in PREFERRED (by its type or its
    move), else a random one: a cheap legal choice, found in one pass."""
    legal = msg["legal_actions"]
    last = len(PREFERRED)
    best, best_rank = None, last
    for action in legal:
        rank = min(RANK.get(action["type"], last), RANK.get(action.get("move"), last))
        if rank < best_rank:
            best, best_rank = action, rank
    return dict(best if best is not None else rng.choice(legal))


async def play(
    game_id: int,
    socks: list[Sock],
    moves: int,
    think: float,
    stats: dict[str, Any],
    seed: int,
    warmup: int = 1,
) -> None:
    rng = random.Random(seed)
    await asyncio.sleep(rng.random() * think)  # spread the games' first moves
    for move in range(moves):
        cold = move < warmup
        for s in socks:
            s.cold = cold
        top = max(s.version for s in socks)
        try:
            for s in socks:
                await s.until(lambda s=s, top=top: s.version >= top, timeout=120)
        except TimeoutError:
            stats["lost"] += 1
            return
        state = socks[0].state
        assert state is not None
        if state["status"] != "active" or not state["prompts"]:
            return
        seat = int(state["prompts"][0]["seat"])
        sock = socks[seat]
        req = uuid.uuid4().hex
        sent = time.time()
        await sock.ws.send(
            json.dumps(
                {
                    "type": "action",
                    "action": choose(sock.state or {}, rng),
                    "expected_version": top,
                    "idempotency_key": req,
                    "req_id": req,
                }
            )
        )
        try:
            await sock.until(lambda sock=sock, req=req: req in sock.acks, timeout=300)
        except TimeoutError:
            stats["timeouts"] += 1
            continue
        reply = sock.acks.pop(req)
        stats["cold_act" if cold else "act"].append(time.time() - sent)
        if reply["type"] != "ack":
            stats["errors"] += 1
            continue
        stats["actions"] += 1
        version = int(reply["version"])
        everyone = True
        for s in socks:
            try:
                await s.until(lambda s=s, v=version: s.version >= v, timeout=30)
            except TimeoutError:
                stats["lost"] += 1
                everyone = False
        if everyone:
            last = max(min(t for v, t in s.seen.items() if v >= version) for s in socks)
            stats["cold_all" if cold else "all"].append(last - sent)
        for s in socks:  # what the next move's figure needs, not the whole game's
            for v in [v for v in s.seen if v < version]:
                del s.seen[v]
        await asyncio.sleep(think * 2 * rng.random())


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    stats: dict[str, Any] = {
        "messages": 0,
        "latency": [],
        "act": [],
        "cold_act": [],
        "cold_all": [],
        "actions": 0,
        "errors": 0,
        "lost": 0,
        "timeouts": 0,
        "measure": False,
        "all": [],
        "bytes": 0,
        "patched": 0,
        "unpatchable": 0,
    }
    patches = not args.whole
    rss_start = server.rss_kb()
    # Setup parses 6 N whole states, millions of objects: the collector would walk
    # them again and again as they pile up (see below), so it stays off until they
    # are all in, and collects once then.
    gc.disable()
    t0 = time.monotonic()
    at_once = args.setup_at_once
    http = httpx.AsyncClient(
        base_url=server.base,
        timeout=300,
        limits=httpx.Limits(max_connections=at_once, max_keepalive_connections=at_once),
    )
    accounts = await bench_accounts(http, args.games * len(POWERS))
    if accounts is not None:  # a person a seat
        seated = [accounts[i : i + len(POWERS)] for i in range(0, len(accounts), len(POWERS))]
    else:  # no bench route: six people in every game, as before
        six = [await signup(server.base, i) for i in range(len(POWERS))]
        seated = [six] * args.games
    t_accounts = time.monotonic()
    cpu_accounts = server.cpu_seconds()
    progress(f"{len(seated) * len(POWERS)} seats' accounts in {t_accounts - t0:.1f} s")
    limit = asyncio.Semaphore(at_once)
    ws_base = server.base.replace("http://", "ws://")

    async def make(people: list[Person]) -> int:
        async with limit:
            return await create_game(http, people)

    async def join(game_id: int, seat: int, person: Person) -> Sock:
        # --spread: seat i on worker i mod W (the server's --bench-routing)
        query = f"?ig_worker={seat % args.workers}" if args.spread else ""
        async with limit:
            ws = await connect(
                f"{ws_base}/ws/games/{game_id}{query}",
                additional_headers={"Cookie": f"{SESSION_COOKIE}={person.cookie}"},
                max_size=None,
                open_timeout=300,
                # Liveness is the app's heartbeat (it answers the server's pings); the
                # library's own keepalive would only measure this client's own backlog.
                ping_interval=None,
            )
            await ws.send(json.dumps({"type": "hello", "last_seq": None, "patches": patches}))
            sock = Sock(ws, stats)
            await sock.until(lambda: sock.state is not None, timeout=300)
            return sock

    async def seat(game_id: int, people: list[Person]) -> list[Sock]:
        return list(await asyncio.gather(*(join(game_id, i, p) for i, p in enumerate(people))))

    # Two halves, each its games and then their sockets, so that memory is also read as
    # a slope: what the second half's live games added, each (the first half pays the
    # process's one-time warm-up: imports, compiled statements, caches, arenas).
    games: list[int] = []
    tables: list[list[Sock]] = []
    half = args.games // 2
    rss_half = rss_games = rss_start
    t_games = cpu_games = 0.0
    for part in (seated[:half], seated[half:]):
        if not part:
            continue
        rss_before = server.rss_kb()
        t_part, cpu_part = time.monotonic(), server.cpu_seconds()
        made = await asyncio.gather(*(make(people) for people in part))
        t_games += time.monotonic() - t_part
        cpu_games += server.cpu_seconds() - cpu_part
        rss_games = server.rss_kb()  # this part's games made, no socket yet
        tables += await asyncio.gather(*(seat(g, p) for g, p in zip(made, part, strict=True)))
        games += made
        rss_half = rss_before
        progress(f"{len(games)} games with their {len(games) * len(POWERS)} sockets")
    setup = time.monotonic() - t0
    cpu_sockets = server.cpu_seconds() - cpu_accounts - cpu_games
    t_sockets = setup - (t_accounts - t0) - t_games
    rss_sockets = server.rss_kb()

    # The client holds every socket's latest state: 1,200 parsed views, millions of
    # objects, which every collection the next message's parse triggers walked again
    # (three quarters of the client's time went there, and its backlog into every
    # latency). Those objects are plain JSON, freed by reference counting: collect
    # once, then keep the collector out of the measured run.
    gc.collect()
    stats["measure"] = True
    stats["messages"] = stats["bytes"] = 0
    cpu0 = server.cpu_seconds()
    nginx0 = server.nginx_cpu_seconds()
    pg0 = named_cpu_seconds("postgres")
    mine0 = time.process_time()
    busy0, total0 = machine_ticks()
    t1 = time.monotonic()
    await asyncio.gather(
        *(
            play(game_id, table, args.moves, args.think, stats, seed=i, warmup=args.warmup)
            for i, (game_id, table) in enumerate(zip(games, tables, strict=True))
        )
    )
    duration = time.monotonic() - t1
    busy1, total1 = machine_ticks()
    client_cpu = time.process_time() - mine0
    pg_cpu = named_cpu_seconds("postgres") - pg0
    gc.enable()
    rss_end = server.rss_kb()
    cpu = server.cpu_seconds() - cpu0
    nginx_cpu = server.nginx_cpu_seconds() - nginx0
    for table in tables:
        for s in table:
            await s.ws.close()
            s.task.cancel()
    await http.aclose()
    lat = [x * 1000 for x in stats["latency"]]
    act = [x * 1000 for x in stats["act"]]
    every = [x * 1000 for x in stats["all"]]
    cold_act = [x * 1000 for x in stats["cold_act"]]
    cold_every = [x * 1000 for x in stats["cold_all"]]
    from floor import floor

    pg = floor("postgresql", 500)
    sockets = args.games * len(POWERS)
    second = args.games - half
    return {
        "games": args.games,
        "sockets": args.games * len(POWERS),
        "db": args.db,
        "workers": args.workers,
        "spread": args.spread,
        "nginx": args.nginx,
        "scenario": SCENARIO,
        "moves_per_game": args.moves,
        "think_s": args.think,
        "actions": stats["actions"],
        "action_errors": stats["errors"],
        "updates_measured": len(lat),
        "lost": stats["lost"],
        "ack_timeouts": stats["timeouts"],
        "p50_ms": round(pct(lat, 0.50), 2),
        "p90_ms": round(pct(lat, 0.90), 2),
        "p99_ms": round(pct(lat, 0.99), 2),
        "max_ms": round(max(lat), 2) if lat else None,
        "mean_ms": round(statistics.fmean(lat), 2) if lat else None,
        "send_to_ack_p50_ms": round(pct(act, 0.50), 2),
        "send_to_ack_p99_ms": round(pct(act, 0.99), 2),
        "submit_to_all_p50_ms": round(pct(every, 0.50), 2),
        "submit_to_all_p99_ms": round(pct(every, 0.99), 2),
        "warmup_moves_per_game": args.warmup,
        "warmup_send_to_ack_p50_ms": round(pct(cold_act, 0.50), 2),
        "warmup_send_to_ack_p99_ms": round(pct(cold_act, 0.99), 2),
        "warmup_submit_to_all_p50_ms": round(pct(cold_every, 0.50), 2),
        "warmup_submit_to_all_p99_ms": round(pct(cold_every, 0.99), 2),
        "pg_floor_p50_ms": pg["floor_p50_ms"],
        "pg_floor_p99_ms": pg["floor_p99_ms"],
        "submit_to_all_p50_over_floor": round(pct(every, 0.50) / pg["floor_p50_ms"], 1),
        "commit_to_socket_p50_over_floor": round(pct(lat, 0.50) / pg["floor_p50_ms"], 1),
        "rss_start_mb": round(rss_start / 1024, 1),
        "rss_end_mb": round(rss_end / 1024, 1),
        "rss_half_mb": round(rss_half / 1024, 1),
        "rss_sockets_mb": round(rss_sockets / 1024, 1),
        # the slope: what each live game of the second half added (with one half only,
        # N = 1, the growth since start, warm-up and all)
        "kb_per_game": round((rss_games - rss_half) / second, 1),
        "kb_per_socket": round((rss_sockets - rss_games) / (second * len(POWERS)), 1),
        "kb_per_live_game_marginal": round((rss_sockets - rss_half) / second, 1),
        # the slope plus what the moves added per game (an upper bound: the moves' own
        # one-time warm-up is in it, spread over the N games)
        "kb_per_live_game_marginal_at_end": round(
            (rss_sockets - rss_half) / second + (rss_end - rss_sockets) / args.games, 1
        ),
        "kb_per_live_game_at_end": round((rss_end - rss_start) / args.games, 1),
        "server_cpu_ms_per_action": round(cpu * 1000 / max(1, stats["actions"]), 2),
        "server_cpu_busy": round(cpu / duration, 2),
        # --nginx: nginx's part of the server's figure (0 without it)
        "nginx_cpu_ms_per_action": round(nginx_cpu * 1000 / max(1, stats["actions"]), 2),
        # the bench's own client, in cores, and every core of the machine, 0-1: when
        # the machine is near 1, latencies are the run queue's, not the server's
        "client_cpu_busy": round(client_cpu / duration, 2),
        "client_cpu_ms_per_action": round(client_cpu * 1000 / max(1, stats["actions"]), 2),
        # every PostgreSQL process on the machine (the bench's database's and any other's)
        "postgres_cpu_busy": round(pg_cpu / duration, 2),
        "postgres_cpu_ms_per_action": round(pg_cpu * 1000 / max(1, stats["actions"]), 2),
        "machine_busy": round((busy1 - busy0) / max(1, total1 - total0), 2),
        "messages_per_s": round(stats["messages"] / duration, 1),
        "patches": patches,
        "updates_patched": stats["patched"],
        "patches_unapplicable": stats["unpatchable"],
        "kb_received_per_action": round(stats["bytes"] / 1024 / max(1, stats["actions"]), 1),
        "actions_per_s": round(stats["actions"] / duration, 1),
        "duration_s": round(duration, 2),
        "setup_s": round(setup, 2),
        # its parts: the accounts (bench route or sign-ups), creating, joining and
        # starting the games over HTTP, the sockets until each has its first state
        "setup_accounts": "bench_route" if accounts is not None else "signup",
        "setup_accounts_s": round(t_accounts - t0, 2),
        "setup_games_s": round(t_games, 2),
        "setup_sockets_s": round(t_sockets, 2),
        # the server's CPU for them (parent and workers), less disturbed by the machine's
        # other work than the seconds: a game created, joined by five and started, and a
        # socket connected with its first state
        "setup_server_cpu_ms_per_game": round(cpu_games * 1000 / args.games, 1),
        "setup_server_cpu_ms_per_socket": round(cpu_sockets * 1000 / sockets, 1),
        "open_files_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        # the bench client's own peak memory: 6 N sockets' parsed states
        "client_rss_max_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=10, help="moves per game")
    parser.add_argument("--think", type=float, default=3.0, help="mean seconds between moves")
    parser.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="each game's first moves, reported apart (warmup_*), not in the latencies",
    )
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--whole", action="store_true", help="ask for whole updates, not patches (as before)"
    )
    parser.add_argument("--server-log", help="keep the server's log at this path")
    parser.add_argument(
        "--workers", type=int, default=1, help="serve --workers W (PostgreSQL only)"
    )
    parser.add_argument(
        "--spread", action="store_true", help="each game's sockets over all the workers"
    )
    parser.add_argument(
        "--nginx",
        type=int,
        default=0,
        help="N plain serve processes behind nginx from deploy/nginx.conf (PostgreSQL only)",
    )
    parser.add_argument(
        "--setup-at-once",
        type=int,
        default=16,
        help="games created, and sockets connected, at once during setup",
    )
    args = parser.parse_args(argv)
    if args.workers > 1 and args.db != "postgresql":
        parser.error("--workers needs --db postgresql")
    if args.spread and args.workers < 2:
        parser.error("--spread needs --workers 2 or more")
    if args.nginx and (args.db != "postgresql" or args.workers > 1):
        parser.error("--nginx needs --db postgresql, and no --workers")
    if not 1 <= args.games <= 1000 or not 1 <= args.moves <= 1000:
        parser.error("--games and --moves must be between 1 and 1000")
    if args.setup_at_once < 1:
        parser.error("--setup-at-once must be 1 or more")
    raise_open_files(args.games * len(POWERS) + SPARE_FILES)
    with tempfile.TemporaryDirectory(prefix="ig-bench-") as tmp:
        server = Server(args.db, Path(tmp), args.workers, args.spread, args.nginx)
        try:
            result = asyncio.run(run(args, server))
        finally:
            server.stop()
            if args.server_log:
                Path(args.server_log).write_bytes((Path(tmp) / "server.log").read_bytes())
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
