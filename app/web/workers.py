"""`imperial-glory serve --workers N`: N processes on one port, each game on one of them.

A game's sockets and requests are best served by one process: it holds the game's
state and its last change in memory and pushes a move to every socket from there
(docs/performance.md, "Several processes"). uvicorn's own ``--workers`` lets the kernel
hand each connection to whichever process accepts first, so a game's six sockets end
up spread over all of them and every move is read back through the database by the
others. Here instead:

- the **parent** binds the listening socket and starts N worker processes
  (``python -m app.web.workers``), each with one end of a Unix ``SOCK_SEQPACKET`` pair;
- its accept loop peeks (``MSG_PEEK``: nothing is consumed) at the request line of each
  new connection, reads the game id from ``/ws/games/{id}``, ``/api/games/{id}…`` or
  ``/games/{id}…`` and hands the connection's file descriptor to worker ``id % N``
  (``socket.send_fds``); any other path goes round robin. No byte passes through the
  parent after the hand-off; a keep-alive connection stays with the worker it was
  given (every worker can serve every game: only the fast path needs the right one);
- each **worker** runs uvicorn's ``Server`` on the app with no listening socket of its
  own and feeds every connection it is handed to uvicorn's HTTP protocol, bound to its
  config and state as uvicorn binds its own (``loop.connect_accepted_socket``);
- the parent restarts a worker that dies (its games go to it again once it is back;
  meanwhile to the next live one), and on SIGTERM or SIGINT stops accepting, passes the
  signal on and waits for the workers' graceful shutdown (each drains as ``serve``
  does: app/web/graceful.py).

Between the workers, changes travel as between any processes on one database:
PostgreSQL LISTEN/NOTIFY (``app/realtime/pg.py``); on SQLite there is none, so several
workers are refused (``serve.py``).

``--bench-routing`` (benchmarks and tests only, never in production): a request target
with ``ig_worker=K`` in its query goes to worker ``K % N`` whatever its game, so that a
bench can spread a game's sockets over the workers on purpose (bench/ws_fanout.py
``--spread``). Every answer names the worker that gave it (header ``x-ig-worker: K``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
from typing import Any

import uvicorn

from app.web import graceful
from app.web.metrics_dir import process_gone

log = logging.getLogger("app.web.workers")

#: the environment variable naming a worker's index
WORKER_ENV = "IG_WORKER"
#: the response header naming the worker that answered
WORKER_HEADER = "x-ig-worker"
#: the uvicorn options a worker is started with (JSON), and its end of the pair (fd)
_OPTIONS_ENV = "IG_WORKER_OPTIONS"
_CHANNEL_ENV = "IG_WORKER_FD"

#: at most this much of a new connection is peeked at to find its request line
PEEK_BYTES = 2048
#: a connection that has not sent its request line within this long is closed
LINE_TIMEOUT_S = 10.0
#: a worker that dies is started again after this pause (it may die at once again)
RESTART_PAUSE_S = 0.5

_GAME_PATH = re.compile(rb"^[A-Z]{3,7} /(?:api/|ws/)?games/(\d{1,12})(?=[/?# ])")
_OVERRIDE = re.compile(rb"^[A-Z]{3,7} [^ ?]*\?(?:[^ ]*&)?ig_worker=(\d{1,4})(?=[& ])")


def worker_index() -> int | None:
    """This process's index among the workers of ``serve --workers``, else None."""
    value = os.environ.get(WORKER_ENV)
    return int(value) if value is not None and value.isdigit() else None


def route(head: bytes, workers: int, override: bool = False) -> int | None:
    """The worker a connection whose first bytes are `head` belongs to, or None when
    its path names no game (any worker will do). `override`: honour ``ig_worker=K``."""
    if override and (found := _OVERRIDE.match(head)) is not None:
        return int(found.group(1)) % workers
    found = _GAME_PATH.match(head)
    return int(found.group(1)) % workers if found is not None else None


# --------------------------------------------------------------------------- the parent


class _Worker:
    """One worker process and the parent's end of its channel."""

    def __init__(self, index: int, options: dict[str, Any]) -> None:
        self.index = index
        self.options = options
        self.proc: subprocess.Popen[bytes] | None = None
        self.channel: socket.socket | None = None

    def start(self) -> None:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {
            **os.environ,
            WORKER_ENV: str(self.index),
            _OPTIONS_ENV: json.dumps(self.options),
            _CHANNEL_ENV: str(theirs.fileno()),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app.web.workers"], env=env, pass_fds=[theirs.fileno()]
        )
        theirs.close()
        mine.settimeout(2.0)  # a worker too busy to take a connection for 2 s: next one
        self.channel = mine

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def hand(self, conn: socket.socket) -> bool:
        """Give `conn` to this worker; False if it cannot take it."""
        if self.channel is None or not self.alive():
            return False
        try:
            socket.send_fds(self.channel, [b"c"], [conn.fileno()])
        except OSError:
            return False
        return True

    def close_channel(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None


class Router:
    """The parent: accepts, routes, watches the workers."""

    def __init__(
        self,
        listener: socket.socket,
        workers: list[_Worker],
        override: bool = False,
        grace_s: float = 8.0,
    ) -> None:
        self.listener = listener
        self.grace_s = grace_s
        self.workers = workers
        self.override = override
        self.turn = 0
        self.stopping = asyncio.Event()
        self.handed = [0] * len(workers)

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        accepting = loop.create_task(self._accept())
        watching = loop.create_task(self._watch())
        await self.stopping.wait()
        accepting.cancel()
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await accepting
        with contextlib.suppress(asyncio.CancelledError):
            await watching
        self.listener.close()
        # a worker ends itself HARD_MARGIN_S after its grace at the latest (graceful.py)
        await asyncio.to_thread(self._stop_workers, self.grace_s + graceful.HARD_MARGIN_S + 2)

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[None]] = set()
        while True:
            conn, _addr = await loop.sock_accept(self.listener)
            task = loop.create_task(self._route(conn))
            pending.add(task)
            task.add_done_callback(pending.discard)

    async def _route(self, conn: socket.socket) -> None:
        """Peek at `conn`'s request line and hand it to its worker."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LINE_TIMEOUT_S
        try:
            while True:
                await _readable(conn, deadline - loop.time())
                head = conn.recv(PEEK_BYTES, socket.MSG_PEEK)
                if not head:
                    return  # closed before it asked anything
                if b"\n" in head or len(head) >= PEEK_BYTES:
                    break
                await asyncio.sleep(0.005)  # a request line in several segments
            wanted = route(head, len(self.workers), self.override)
            if wanted is None:
                wanted = self.turn = (self.turn + 1) % len(self.workers)
            for step in range(len(self.workers)):  # its own worker, else the next live one
                index = (wanted + step) % len(self.workers)
                if self.workers[index].hand(conn):
                    self.handed[index] += 1
                    return
            log.error("no worker could take a connection")
        except (TimeoutError, OSError):
            pass
        finally:
            conn.close()  # the worker holds its own descriptor of the connection

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(RESTART_PAUSE_S)
            for worker in self.workers:
                if not worker.alive() and not self.stopping.is_set():
                    code = worker.proc.returncode if worker.proc is not None else None
                    log.warning("worker %d exited (%s); starting it again", worker.index, code)
                    if worker.proc is not None:
                        process_gone(worker.proc.pid)  # its live gauges leave /metrics
                    worker.close_channel()
                    worker.start()

    def _stop_workers(self, timeout: float = 30.0) -> None:
        for worker in self.workers:
            if worker.alive() and worker.proc is not None:
                with contextlib.suppress(ProcessLookupError):
                    worker.proc.send_signal(signal.SIGTERM)
        for worker in self.workers:
            if worker.proc is None:
                continue
            try:
                worker.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait(5)
            process_gone(worker.proc.pid)
            worker.close_channel()


async def _readable(conn: socket.socket, timeout: float) -> None:
    """Wait until `conn` has bytes (or is closed); TimeoutError after `timeout` s."""
    if timeout <= 0:
        raise TimeoutError
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(conn.fileno(), wake)
    try:
        await asyncio.wait_for(ready, timeout)
    finally:
        loop.remove_reader(conn.fileno())


def run(options: dict[str, Any], workers: int, override: bool = False, grace_s: float = 8.0) -> int:
    """Serve `options` (uvicorn.Config's keywords, JSON-able: the app and the HTTP
    protocol named by import string) with `workers` processes; returns on SIGTERM/SIGINT,
    once the workers have drained (each within `grace_s` and the watchdog's margin)."""
    host, port = str(options["host"]), int(options["port"])
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(int(options.get("backlog", 2048)))
    listener.setblocking(False)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(message)s")
    log.info(
        "Routing http://%s:%d to %d workers by game id (pid %d)", host, port, workers, os.getpid()
    )
    pool = [_Worker(i, options) for i in range(workers)]
    for worker in pool:
        worker.start()
    asyncio.run(Router(listener, pool, override, grace_s).serve())
    return 0


# --------------------------------------------------------------------------- a worker


def _server_class() -> Any:
    class HandedServer(graceful.GracefulServer):
        """uvicorn's server with no listening socket: it serves the connections the
        parent hands it over `channel`, with the protocol uvicorn would have made, and
        drains on SIGTERM as ``serve`` does (graceful.py)."""

        def __init__(self, config: uvicorn.Config, channel: socket.socket, grace_s: float) -> None:
            super().__init__(config, grace_s)
            self.channel = channel

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=[])
            if self.should_exit:
                return
            self.channel.setblocking(False)
            asyncio.get_running_loop().add_reader(self.channel.fileno(), self._receive)
            log.info("worker %s ready (pid %d)", worker_index(), os.getpid())

        def _protocol(self) -> asyncio.Protocol:
            config = self.config
            protocol: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
                config=config,
                server_state=self.server_state,
                app_state=self.lifespan.state,
                _loop=asyncio.get_running_loop(),
            )
            return protocol

        def _receive(self) -> None:
            loop = asyncio.get_running_loop()
            while True:
                try:
                    data, fds, _flags, _addr = socket.recv_fds(self.channel, 16, 4)
                except BlockingIOError:
                    return
                except OSError:
                    data, fds = b"", []
                if not data and not fds:  # the parent is gone: finish what we serve
                    loop.remove_reader(self.channel.fileno())
                    self.should_exit = True
                    return
                for fd in fds:
                    conn = socket.socket(fileno=fd)
                    if self.should_exit:
                        conn.close()
                        continue
                    task = loop.create_task(loop.connect_accepted_socket(self._protocol, conn))
                    task.add_done_callback(_report)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self.channel.fileno())
            await super().shutdown(sockets=sockets)

    return HandedServer


def _report(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("a handed connection could not be served: %s", task.exception())


def worker_main() -> int:
    """A worker's entry point (``python -m app.web.workers``, started by the parent)."""
    options = json.loads(os.environ[_OPTIONS_ENV])
    channel = socket.socket(fileno=int(os.environ.pop(_CHANNEL_ENV)))
    os.environ.pop(_OPTIONS_ENV, None)
    # uvicorn's default headers: on every answer, HTTP and websocket, at no cost
    options["headers"] = [*options.get("headers", []), (WORKER_HEADER, str(worker_index()))]
    config = uvicorn.Config(**options)
    grace_s = float(config.timeout_graceful_shutdown or graceful.HARD_MARGIN_S)
    _server_class()(config, channel, grace_s).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(worker_main())
