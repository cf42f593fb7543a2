"""Where the hot paths' database calls run (app/store/blocking.py): on the event loop
with SQLite, in the thread pool with PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from app.store import blocking
from app.store.db import make_engine, make_sessionmaker


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
