"""What a process keeps of its database connections (app/store/db.py).

A PostgreSQL process keeps its connections (``POOL_SIZE``): a burst of concurrent calls
opens connections once, and the next burst reuses them. With SQLAlchemy's default pool
(five kept, the rest closed when returned) every burst of more than five opened and
closed connections again: 60 a second under the API bench. An SQLite connection keeps a
small page cache of its own (``SQLITE_CACHE_KB``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, text

from app.config import Settings
from app.store.db import MAX_OVERFLOW, POOL_SIZE, SQLITE_CACHE_KB, make_engine

BURST = 12  # concurrent calls: HTTP requests, socket actions, the hub and the bot worker


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:
    eng = make_engine(pg_url)
    yield eng
    eng.dispose()


def _burst(eng: Engine) -> None:
    """BURST transactions that all hold a connection at the same moment."""
    barrier = threading.Barrier(BURST)
    errors: list[BaseException] = []

    def one() -> None:
        try:
            with eng.connect() as conn:
                conn.execute(text("SELECT 1"))
                barrier.wait(timeout=30)
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(BURST)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.postgres
def test_a_burst_of_calls_reuses_the_connections_of_the_last(engine: Engine) -> None:
    opened: list[int] = []
    event.listen(engine, "connect", lambda *_: opened.append(1))
    _burst(engine)
    assert len(opened) == BURST
    _burst(engine)
    _burst(engine)
    assert len(opened) == BURST  # none opened again
    assert engine.pool.checkedin() == BURST  # all kept, none closed on return


def test_the_pool_is_sized_by_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert BURST <= POOL_SIZE
    server = Settings(database_url="postgresql+psycopg://u@127.0.0.1/x")
    assert server.pool_options == {"pool_size": POOL_SIZE, "max_overflow": MAX_OVERFLOW}
    monkeypatch.setenv("DB_POOL_SIZE", "4")
    monkeypatch.setenv("DB_MAX_OVERFLOW", "2")
    sized = Settings(database_url="postgresql+psycopg://u@127.0.0.1/x")
    eng = make_engine(sized.database_url, **sized.pool_options)
    try:
        assert eng.pool.size() == 4 and eng.pool._max_overflow == 2  # type: ignore[attr-defined]
    finally:
        eng.dispose()
    assert Settings(database_url="sqlite:///x.sqlite3").pool_options == {}


def test_an_sqlite_connection_keeps_a_small_page_cache(tmp_path: Path) -> None:
    """Every pooled SQLite connection has its own page cache; the file's pages are in the
    operating system's cache as well, so each is kept small (``SQLITE_CACHE_KB``)."""
    eng = make_engine(f"sqlite:///{tmp_path / 'cache.sqlite3'}")
    try:
        with eng.connect() as conn:
            assert conn.execute(text("PRAGMA cache_size")).scalar_one() == -SQLITE_CACHE_KB
            assert conn.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
    finally:
        eng.dispose()
