"""PostgreSQL connections are pinged only after sitting idle in the pool
(app/store/db.py): a busy connection costs no extra round trip, and a dead idle one
is replaced before anybody uses it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, event, text
from sqlalchemy.exc import OperationalError

from app.store import db as store_db
from app.store.db import make_engine


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:
    eng = make_engine(pg_url, pool_size=1, max_overflow=0)
    yield eng
    eng.dispose()


def _backend_pid(eng: Engine) -> int:
    with eng.connect() as conn:
        return int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def _kill(eng: Engine, pid: int) -> None:
    killer = make_engine(str(eng.url.render_as_string(hide_password=False)))
    with killer.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        conn.commit()
    killer.dispose()


def _pings(eng: Engine) -> list[int]:
    seen: list[int] = []
    real = eng.dialect.do_ping

    def counting(dbapi_conn: object) -> bool:
        seen.append(1)
        return bool(real(dbapi_conn))

    eng.dialect.do_ping = counting  # type: ignore[method-assign]
    return seen


def test_a_connection_in_steady_use_is_not_pinged(engine: Engine) -> None:
    pings = _pings(engine)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    pids = {_backend_pid(engine) for _ in range(5)}
    assert len(pids) == 1  # the one pooled connection, reused
    assert pings == [] and len(statements) == 5


def test_a_dead_idle_connection_is_replaced_before_use(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _backend_pid(engine)  # pool_size 1: the pool now holds this connection
    _kill(engine, first)  # from outside, as a database restart would
    monkeypatch.setattr(store_db, "PING_IDLE_S", 0.0)  # it has now been idle "long enough"
    pings = _pings(engine)
    second = _backend_pid(engine)  # no error: the dead one was pinged and replaced
    assert second != first and pings == [1]


def test_without_the_idle_ping_a_dead_connection_fails_once_then_the_pool_recovers(
    engine: Engine,
) -> None:
    """What the idle ping saves: a connection killed while in steady use fails the one
    transaction that finds it, and the pool is renewed for the next."""
    first = _backend_pid(engine)
    _kill(engine, first)
    with pytest.raises(OperationalError):
        _backend_pid(engine)
    assert _backend_pid(engine) != first
