"""Where the hot paths' database calls run (app/store/blocking.py): on the event loop
with SQLite, in the thread pool with PostgreSQL but for a socket's move of a game the
process holds, which runs on the loop and never waits for a lock."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from sqlalchemy import Engine

from app.store import blocking
from app.store.db import make_engine, make_sessionmaker
from tests.games import two_person_game

T = TypeVar("T")


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


def test_sqlite_runs_on_the_loop_and_a_server_in_the_pool(engine: Engine) -> None:
    expected = engine.dialect.name == "sqlite"
    factory = make_sessionmaker(engine)
    with factory() as db:
        assert blocking.inline(db) is expected
    assert blocking.inline(engine) is expected
    assert blocking.inline(factory) is expected
    with engine.connect() as conn:
        assert blocking.inline(conn) is expected
    assert blocking.inline(None) is False


def test_call_runs_where_it_is_told() -> None:
    async def where(on_loop: bool) -> tuple[int, int]:
        loop_thread = threading.get_ident()
        ran = await blocking.call(on_loop, threading.get_ident)
        return loop_thread, ran

    loop_thread, ran = asyncio.run(where(True))
    assert ran == loop_thread
    loop_thread, ran = asyncio.run(where(False))
    assert ran != loop_thread


def _on_the_loop(fn: Callable[..., T], *args: Any) -> tuple[T, float, int]:
    """``blocking.call(True, fn, *args)`` in a fresh event loop with a ticker on it: what
    it returned, the longest the loop stood still meanwhile, and the loop's thread."""

    async def main() -> tuple[T, float, int]:
        loop_thread = threading.get_ident()
        ticks = [time.monotonic()]

        async def tick() -> None:
            while True:
                await asyncio.sleep(0.01)
                ticks.append(time.monotonic())

        ticker = asyncio.create_task(tick())
        got = await blocking.call(True, fn, *args)
        ticks.append(time.monotonic())
        ticker.cancel()
        return got, max(b - a for a, b in zip(ticks, ticks[1:], strict=False)), loop_thread

    return asyncio.run(main())


def test_a_write_on_the_loop_never_waits_for_sqlites_lock(sqlite_url: str) -> None:
    """Another connection holds SQLite's write lock: a submit begun on the loop does not
    sleep in SQLite's busy handler (that would stop every socket); it is run again in the
    thread pool, which waits for the lock, and lands once the lock is let go."""
    from sqlalchemy.orm import Session, sessionmaker

    from app import engine as game_engine
    from app.services import gamelog, moves
    from tests.conftest import migrate

    migrate(sqlite_url)
    eng = make_engine(sqlite_url)
    factory: sessionmaker[Session] = make_sessionmaker(eng)
    gid, users = two_person_game(factory)
    with factory() as db:
        game, state = gamelog.read_current(db, gid)
        assert state is not None
        seat = game_engine.pending(state)[0]["seat"]
        action = game_engine.legal_actions(state, seat)[0]
        version = game.version

    holder = eng.raw_connection()
    holder.execute("BEGIN IMMEDIATE")  # type: ignore[attr-defined]
    threads: list[int] = []

    def submit() -> int:
        threads.append(threading.get_ident())
        with factory() as db:
            result = moves.submit_action(db, gid, users[seat], action, version, None)
            db.commit()
            return result.version

    threading.Timer(0.4, holder.rollback).start()
    version_after, worst_gap, loop_thread = _on_the_loop(submit)
    holder.close()
    eng.dispose()
    assert version_after == version + 1
    assert worst_gap < 0.2, f"the loop stood still for {worst_gap:.3f} s"
    assert threads[0] == loop_thread and threads[-1] != loop_thread and len(threads) == 2


@pytest.mark.postgres
def test_a_held_move_runs_on_the_loop_and_never_waits_for_a_row_lock(pg_url: str) -> None:
    """PostgreSQL: a move of a game this process holds runs on the loop, on the loop's
    own connection (``store.db.loop_engine``), as one statement. When another writer
    holds the game's row, it does not wait on the loop: the statement takes the row
    ``NOWAIT``, the transaction path refuses to start there (`Busy`), and the move runs
    again in the thread pool, which waits for the lock and lands once it is let go."""
    from sqlalchemy import text
    from sqlalchemy.orm import Session, sessionmaker

    from app import engine as game_engine
    from app.services import gamelog, heldwrite, moves
    from app.store.db import loop_engine
    from tests.conftest import migrate

    migrate(pg_url)
    eng = make_engine(pg_url)
    loop_eng = loop_engine(eng)
    assert loop_eng is not None
    in_memory = make_engine("sqlite://")
    assert loop_engine(in_memory) is None  # SQLite's calls on the loop share its pool
    in_memory.dispose()
    factory: sessionmaker[Session] = make_sessionmaker(eng)
    on_loop_factory: sessionmaker[Session] = make_sessionmaker(loop_eng)
    gid, users = two_person_game(factory)
    key = str(eng.url)
    threads: list[int] = []

    def position() -> tuple[int, int, dict[str, object]]:
        with factory() as db:
            game, state = gamelog.read_current(db, gid)
            assert state is not None
            seat = game_engine.pending(state)[0]["seat"]
            return game.version, seat, game_engine.legal_actions(state, seat)[0]

    def submit(version: int, seat: int, action: dict[str, object]) -> int:
        threads.append(threading.get_ident())
        with (on_loop_factory if blocking.on_loop() else factory)() as db:
            result = moves.submit_action(db, gid, users[seat], action, version, None)
            db.commit()
            return result.version

    # The first move is written the ordinary way (nothing held yet), in the pool.
    version, seat, action = position()
    assert heldwrite.held(key, gid, version) is None
    assert _on_the_loop(submit, version, seat, action)[0] == version + 1
    # Now the game is held: the next move is written on the loop itself.
    version, seat, action = position()
    assert heldwrite.held(key, gid, version) is not None
    threads.clear()
    after, _, loop_thread = _on_the_loop(submit, version, seat, action)
    assert after == version + 1 and threads == [loop_thread]
    # Another writer holds the row: the loop does not wait for it.
    version, seat, action = position()
    assert heldwrite.held(key, gid, version) is not None
    holder = factory()
    holder.execute(text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": gid})
    threading.Timer(0.4, holder.rollback).start()
    threads.clear()
    after, worst_gap, loop_thread = _on_the_loop(submit, version, seat, action)
    holder.close()
    loop_eng.dispose()
    eng.dispose()
    assert after == version + 1
    assert worst_gap < 0.2, f"the loop stood still for {worst_gap:.3f} s"
    assert threads[0] == loop_thread and threads[-1] != loop_thread and len(threads) == 2
