"""The bot worker: bots and stand-ins answer their prompts off the request path.

A person's submit only appends their action and commits; if a bot (or a stand-in for
an absent player) is prompted next, the game row says so (``games.server_turn``) and
the worker answers, like any player: it reads the game, lets the bot choose, and sends
the choice through ``moves.submit_server_move`` with the version it read (a stale one
is refused and the worker looks again). So a person's submit returns at the
database's pace whatever the number of bots, and every bot move is its own short
transaction, published like any other.

Why an in-process asyncio task with threads, not a separate process: the worker then
shares the process's latest-state cache (no reload to think), its publish reaches the
hub directly (fan-out from memory), and ``make run`` stays one command. Thinking runs
in a thread pool, never on the event loop (the "strong" level may think for a second);
every database touch runs in another small pool.

Nothing stalls a game:
- a bot that raises is restarted once; if it fails again, or thinks longer than
  ``settings.bot_think_timeout_s``, the prompt gets the engine's default action;
- the worker's own tasks are supervised: a failed step is logged and retried by the
  sweep, which every ``settings.bot_sweep_s`` seconds also finds games that wait on a
  bot after a restart, a crash or a change made by another process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.services import gamelog, metrics, moves, unit
from app.services.errors import StaleVersion
from app.store import lobby

log = logging.getLogger("app.realtime.bots")

#: attempts at a bot's choice before the prompt's default answers for it
THINK_ATTEMPTS = 2


class BotWorker:
    def __init__(
        self,
        factory: sessionmaker[Session],
        publish: Callable[[int, int, bool], None],
        *,
        think_timeout_s: float = 10.0,
        sweep_s: float = 2.0,
        threads: int = 2,
    ) -> None:
        self.factory = factory
        self.publish = publish
        self.think_timeout_s = think_timeout_s
        self.sweep_s = sweep_s
        self._io = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ig-bot-db")
        self._think = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ig-bot-think")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wanted: set[int] = set()
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        #: stopping (``drain``): no new work; and past its deadline: commit nothing more
        self._draining = False
        self._abandon = False
        self.stats = {"moves": 0, "failures": 0, "defaults": 0, "stale": 0}

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._sweeper = self._loop.create_task(self._sweep_forever(), name="ig-bot-sweep")

    async def drain(self, deadline: float) -> None:
        """The process is stopping (SIGTERM): take no new game, let the moves being made
        be committed (and published: the runtime still runs) until `deadline` (the
        loop's clock). A move still being thought then is abandoned: nothing is
        committed, and the game row's ``server_turn`` flag stays set, so another
        process's sweep (or this one's, restarted) plays it; never twice, since a move
        is written against the version it was thought from."""
        assert self._loop is not None
        self._draining = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        busy = [t for t in self._tasks.values() if not t.done()]
        if busy:
            _done, late = await asyncio.wait(busy, timeout=max(deadline - self._loop.time(), 0))
            if late:
                self._abandon = True
                log.warning("stopping: %d bot moves still thought are left to the sweep", len(late))

    async def stop(self) -> None:
        tasks = [t for t in [self._sweeper, *self._tasks.values()] if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._io.shutdown(wait=False, cancel_futures=True)
        self._think.shutdown(wait=False, cancel_futures=True)

    # -- notifications ----------------------------------------------------------------
    def notify(self, game_id: int) -> None:
        """Game `game_id` changed: look whether a bot is due. Loop thread only."""
        if self._draining:
            return  # the game row says a bot is due: the sweep of a running process sees it
        self._wanted.add(game_id)
        task = self._tasks.get(game_id)
        if task is None or task.done():
            assert self._loop is not None
            self._tasks[game_id] = self._loop.create_task(
                self._serve(game_id), name=f"ig-bot-{game_id}"
            )

    def notify_threadsafe(self, game_id: int) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self.notify, game_id)

    async def _sweep_forever(self) -> None:
        assert self._loop is not None
        while True:
            try:
                ids = await self._loop.run_in_executor(self._io, self._due_games)
                for game_id in ids:
                    self.notify(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot sweep failed")
            await asyncio.sleep(self.sweep_s)

    def _due_games(self) -> list[int]:
        with self.factory() as db:
            return lobby.server_turn_due(db)

    async def _serve(self, game_id: int) -> None:
        """This game's bot moves, one after another, until no bot is due."""
        assert self._loop is not None
        try:
            while game_id in self._wanted and not self._draining:
                self._wanted.discard(game_id)
                try:
                    moved = await self._loop.run_in_executor(self._io, self.step, game_id)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    self.stats["failures"] += 1
                    log.exception("bot step of game %s failed (the sweep retries)", game_id)
                    return
                if moved:
                    self._wanted.add(game_id)
        finally:
            if self._tasks.get(game_id) is asyncio.current_task():
                del self._tasks[game_id]

    # -- one move (worker thread) -----------------------------------------------------------
    def step(self, game_id: int) -> bool:
        """Answer the first bot prompt of `game_id`, if any; True if a move was made
        (or lost a race and should be looked at again)."""
        with self.factory() as db:
            row, state = gamelog.read_current(db, game_id)
            if row.status != "active" or state is None:
                return False
            seat = moves.bot_turn(row, state)
            if seat is None:
                if row.server_turn:  # nothing to do after all: clear the to-do flag
                    unit.clear_server_turn(db, game_id, row.version)
                return False
        action = self.choose(row, state, seat)
        if self._abandon:
            return False  # stopping, past the grace: the sweep of a running process plays it
        db = self.factory()
        try:  # decided, written, committed and published by the unit of work
            unit.server_move(db, game_id, seat.index, action, row.version, self.publish)
        except StaleVersion:
            db.rollback()
            self.stats["stale"] += 1
            return True
        finally:
            db.close()
        self.stats["moves"] += 1
        return True

    def choose(self, game: Any, state: dict[str, Any], seat: Any) -> dict[str, Any]:
        """The bot's choice, thought in the think pool: restarted once if it raises;
        the prompt's default if it fails again or thinks too long. The whole think is
        observed (``metrics.thought``), defaults and retries included."""
        started = time.perf_counter()
        try:
            return self._choose(game, state, seat)
        finally:
            metrics.thought(moves.bot_for(seat) or "bot", time.perf_counter() - started)

    def _choose(self, game: Any, state: dict[str, Any], seat: Any) -> dict[str, Any]:
        for attempt in range(THINK_ATTEMPTS):
            future = self._think.submit(moves.bot_action, game, state, seat)
            try:
                return future.result(timeout=self.think_timeout_s)
            except FutureTimeout:
                log.error(
                    "bot of game %s seat %s thought over %.1fs: default action",
                    game.id,
                    seat.index,
                    self.think_timeout_s,
                )
                break
            except Exception:
                self.stats["failures"] += 1
                log.exception(
                    "bot of game %s seat %s failed (attempt %d)", game.id, seat.index, attempt + 1
                )
        self.stats["defaults"] += 1
        prompt = next(p for p in engine.pending(state) if p["seat"] == seat.index)
        return engine.default_action(state, prompt)


def drain(factory: sessionmaker[Session], game_id: int, limit: int = 10_000) -> int:
    """Answer every bot prompt of `game_id` now, in this thread, until a person must
    decide or the game ends: the worker's own step, for command-line tools and tests
    that run without a server. Returns the number of moves made."""
    worker = BotWorker(factory, lambda _game, _version, _notified: None, threads=1)
    try:
        moves = 0
        while moves < limit and worker.step(game_id):
            moves += 1
        return moves
    finally:
        worker._io.shutdown(wait=False)
        worker._think.shutdown(wait=False)
