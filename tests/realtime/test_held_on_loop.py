"""A socket's held move on the event loop (app/realtime/held.py, PostgreSQL): written by
one statement on an async connection, and handed to the ordinary path whenever it is
not, a lost connection included, with nothing lost or applied twice."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.realtime.held import HeldWriter
from app.realtime.pg import libpq_dsn
from app.realtime.source import ServiceSource
from app.services import gamelog, logins
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Seat
from tests.conftest import migrate
from tests.games import two_person_game

pytestmark = pytest.mark.postgres


@pytest.fixture
def factory(pg_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(pg_url)
    eng = make_engine(pg_url)
    yield make_sessionmaker(eng)
    eng.dispose()


@pytest.fixture
def tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every token is its own user's cached session (the socket's login check)."""
    monkeypatch.setattr(logins, "cached_ids", lambda token: (int(token), "csrf"))
    monkeypatch.setattr(logins, "user_id_for_token", lambda _db, token: int(token))


def _message(factory: sessionmaker[Session], gid: int, key: str) -> tuple[int, dict[str, Any]]:
    """The prompted seat and its first legal action as a socket sends it."""
    with factory() as db:
        row, state = gamelog.read_current(db, gid)
    assert state is not None
    seat = engine.pending(state)[0]["seat"]
    action = engine.legal_actions(state, seat)[0]
    message = {
        "type": "action",
        "action": action,
        "expected_version": row.version,
        "idempotency_key": key,
    }
    return seat, message


def _version(factory: sessionmaker[Session], gid: int) -> int:
    with factory() as db:
        return gamelog.read_current(db, gid)[0].version


def test_a_held_move_is_written_on_the_loop_and_declines_what_it_cannot_write(
    factory: sessionmaker[Session], pg_url: str, tokens: None
) -> None:
    gid, users = two_person_game(factory)
    source = ServiceSource(factory)

    async def scenario() -> None:
        writer = HeldWriter(libpq_dsn(pg_url))
        try:
            seat, message = _message(factory, gid, "k1")
            # Nothing held yet (the game was started, not moved, by this process).
            assert (
                await source.submit_held(writer, gid, users[seat], message, str(users[seat]))
                is None
            )
            ack = source.submit(gid, users[seat], message, str(users[seat]), held=False)
            assert ack["type"] == "ack"

            seat, message = _message(factory, gid, "k2")
            ack = await source.submit_held(writer, gid, users[seat], message, str(users[seat]))
            assert ack == {
                "type": "ack",
                "version": message["expected_version"] + 1,
                "replayed": False,
            }
            assert writer.stats["written"] == 1 and _version(factory, gid) == ack["version"]
            # What the next move starts from is in memory: the frame at the new version.
            assert gamelog.held(source._db_key or "", gid, ack["version"]) is not None  # noqa: SLF001

            # Someone else's seat: not this user's move, so the ordinary path answers it.
            seat, message = _message(factory, gid, "k3")
            other = next(u for s, u in users.items() if s != seat)
            assert await source.submit_held(writer, gid, other, message, str(other)) is None

            # A seat changed without a new version: the statement writes nothing.
            with factory() as db:
                db.execute(update(Seat).where(Seat.game_id == gid).values(missed=1))
                db.commit()
            assert (
                await source.submit_held(writer, gid, users[seat], message, str(users[seat]))
                is None
            )
            assert writer.stats["declined"] == 1
            ack = source.submit(gid, users[seat], message, str(users[seat]), held=False)
            assert ack["type"] == "ack" and _version(factory, gid) == ack["version"]
        finally:
            await writer.close()

    asyncio.run(scenario())


def test_a_lost_connection_hands_the_move_on_and_it_is_applied_once(
    factory: sessionmaker[Session], pg_url: str, tokens: None
) -> None:
    """The statement's connection is dead: the held path writes nothing and says so,
    and the ordinary path applies the move once; sent again with the same idempotency
    key, it is answered as a retry."""
    gid, users = two_person_game(factory)
    source = ServiceSource(factory)

    async def scenario() -> None:
        writer = HeldWriter(libpq_dsn(pg_url))
        try:
            seat, message = _message(factory, gid, "warm")
            source.submit(gid, users[seat], message, str(users[seat]), held=False)
            seat, message = _message(factory, gid, "k-lost")
            before = _version(factory, gid)
            dead = await writer_connection(writer)
            await dead.close()
            assert (
                await source.submit_held(writer, gid, users[seat], message, str(users[seat]))
                is None
            )
            assert writer.stats["failed"] == 1 and _version(factory, gid) == before
            ack = source.submit(gid, users[seat], message, str(users[seat]), held=False)
            assert ack["type"] == "ack" and ack["version"] == before + 1
            again = source.submit(gid, users[seat], message, str(users[seat]))
            assert again == {**ack, "replayed": True}
            assert _version(factory, gid) == before + 1
        finally:
            await writer.close()

    asyncio.run(scenario())


async def writer_connection(writer: HeldWriter) -> Any:
    """Open the writer's one pooled connection (as its first write would) and return it."""
    import psycopg

    conn = await psycopg.AsyncConnection.connect(writer.dsn, autocommit=True)
    writer._idle.append(conn)  # noqa: SLF001
    return conn
