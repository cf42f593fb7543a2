"""The SQLAlchemy engine and session factory, from settings.

SQLite gets WAL (readers never wait for the writer), foreign keys and a busy
timeout, so several threads (and processes) can share one file.

PostgreSQL connections are pinged before use only when they have sat idle in the
pool (``PING_IDLE_S``): SQLAlchemy's ``pool_pre_ping`` pings on every checkout, one
more round trip for every request and every socket action, and on a busy server a
connection is back in use within milliseconds. A dead idle connection (the database
restarted, a firewall dropped it) is replaced before anyone uses it; one that dies
while in steady use fails that one transaction, which rolls back, and SQLAlchemy
then renews the whole pool (its disconnect handling).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event, exc, text
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 30_000
#: SQLite's page cache per connection, in KiB (SQLite's default is 2,000). Each pooled
#: connection fills its own as it reads snapshots, and the operating system caches the
#: same file pages anyway: at 2,000 the caches were 7-8 KB of every socket's share of the
#: server's memory at 200 live games (docs/performance.md, "Where the calls run, and the pool")
SQLITE_CACHE_KB = 512
#: SQLite connections a process keeps open; more are opened when needed and closed when
#: returned (an SQLite connection is a file handle, opened in microseconds). Never a
#: cap: a call that runs on the event loop (app/store/blocking.py) must not wait for a
#: connection, since the connections it would wait for are given back by requests that
#: need the same loop to finish (20 clients froze a server for the pool's 30 s timeout).
SQLITE_POOL_SIZE = 5
#: a pooled PostgreSQL connection idle longer than this is pinged before use
PING_IDLE_S = 5.0
#: PostgreSQL connections a process keeps open (``Settings.db_pool_size``), and how many
#: more it may open for a burst (``db_max_overflow``): see `make_engine`
POOL_SIZE = 16
MAX_OVERFLOW = 16
_RETURNED = "ig_returned_at"


def json_text(value: Any) -> str:
    """The JSON columns' encoder: orjson, several times faster than the standard
    library's ``json.dumps`` that SQLAlchemy uses by default (about 5% of an HTTP
    action's CPU went there). The text is compact UTF-8; what it decodes to is the same."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def json_value(text: str | bytes) -> Any:
    """The JSON columns' decoder: orjson (a game row's read decodes five JSON columns for
    each seat's row of the join, about a fifth of the read). Text orjson refuses (``NaN``
    or ``Infinity``, which the standard library's encoder wrote before ``json_text``) is
    decoded as before."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def make_engine(database_url: str, **kwargs: Any) -> Engine:
    """An engine for `database_url` (``sqlite:///path`` or ``postgresql+psycopg://…``).

    A database server's pool keeps ``POOL_SIZE`` connections open, not SQLAlchemy's five.
    A connection over the pool's size is closed when it is returned (``max_overflow``), so
    a process serving more than five calls at once (HTTP requests, socket actions, the
    hub's reloads and the bot worker share it) opened and closed a connection for a
    quarter of its requests: 60 a second under `bench/api_actions.py`, each a backend
    forked by PostgreSQL on the same cores (docs/performance.md, "Where the calls run, and the pool")."""
    kwargs.setdefault("json_serializer", json_text)
    kwargs.setdefault("json_deserializer", json_value)
    if database_url.startswith("sqlite"):
        connect_args = {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
        if ":memory:" not in database_url and database_url.rstrip("/") != "sqlite:":
            kwargs.setdefault("pool_size", SQLITE_POOL_SIZE)
            kwargs.setdefault("max_overflow", -1)  # no cap: see SQLITE_POOL_SIZE
        engine = create_engine(database_url, connect_args=connect_args, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KB}")
            cursor.close()

        return engine
    kwargs.setdefault("pool_size", POOL_SIZE)
    kwargs.setdefault("max_overflow", MAX_OVERFLOW)
    engine = create_engine(database_url, **kwargs)
    if not kwargs.get("pool_pre_ping"):
        _ping_when_idle(engine)
    return engine


def _ping_when_idle(engine: Engine) -> None:
    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_conn: Any, record: Any) -> None:
        if record is not None:
            record.info[_RETURNED] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        returned = record.info.get(_RETURNED)
        if returned is None or time.monotonic() - returned < PING_IDLE_S:
            return  # new, or in steady use
        try:
            engine.dialect.do_ping(dbapi_conn)  # what pool_pre_ping would send
        except Exception as e:
            # The pool discards this connection and checks out another (three tries).
            raise exc.DisconnectionError(f"an idle connection is dead: {e}") from e


def loop_engine(engine: Engine) -> Engine | None:
    """A database server's engine of ONE connection for the calls that run on the event
    loop (app/store/blocking.py), None for SQLite (its calls on the loop share the pool:
    a checkout there never waits for a network). The loop runs one call at a time, so
    one connection is always free for it, and it never waits for the main pool's, which
    the threads may all hold."""
    if engine.dialect.name == "sqlite":
        return None
    url = engine.url.render_as_string(hide_password=False)
    return make_engine(url, pool_size=1, max_overflow=0, pool_timeout=1)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=True)


@contextmanager
def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose transaction commits on success and rolls back on error
    (for background jobs and commands; a web request commits in its router)."""
    db = factory()
    try:
        yield db
        db.commit()
    except BaseException:
        db.rollback()
        raise
    finally:
        db.close()


@contextmanager
def autocommit_reads(db: Session) -> Iterator[None]:
    """On PostgreSQL, outside a transaction: each read its own (READ COMMITTED, as in a
    transaction), with no BEGIN and no ROLLBACK, two round trips of four. Elsewhere, or
    with a transaction open, as it is."""
    conn = db.connection()
    raw: Any = conn.connection.driver_connection
    if conn.dialect.name != "postgresql" or raw.info.transaction_status != 0:  # not IDLE
        yield
        return
    raw.autocommit = True
    try:
        yield
    finally:
        raw.autocommit = False


def pool_in_use(engine: Engine) -> int:
    """Connections checked out of `engine`'s pool now (0 for a pool that does not count)."""
    checked = getattr(engine.pool, "checkedout", None)
    return int(checked()) if callable(checked) else 0


def ping(engine: Engine) -> None:
    """Raise unless the database answers."""
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
