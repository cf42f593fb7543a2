"""LISTEN/NOTIFY plumbing against the real PostgreSQL server (no app, no hub)."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from app.realtime.pg import PgListener, PgPublisher, decode_payload, encode_payload, libpq_dsn


def test_payload_round_trip() -> None:
    assert decode_payload(encode_payload(12, 345)) == (12, 345, "")
    assert decode_payload(encode_payload(12, 345, "ab12")) == (12, 345, "ab12")
    assert decode_payload("junk") is None
    assert decode_payload("1:x") is None


@pytest.mark.postgres
def test_publisher_reaches_every_listener_and_listener_survives_a_dropped_connection(
    pg_url: str,
) -> None:
    channel = "ig_games_test_pg_notify"
    dsn = libpq_dsn(pg_url)

    async def scenario() -> None:
        got: dict[str, list[tuple[int, int]]] = {"a": [], "b": []}
        resyncs: list[str] = []
        arrived = asyncio.Event()

        def sink(name: str):
            def on_notify(game: int, version: int) -> None:
                got[name].append((game, version))
                arrived.set()

            return on_notify

        a = PgListener(dsn, sink("a"), lambda: resyncs.append("a"), channel=channel)
        b = PgListener(dsn, sink("b"), lambda: resyncs.append("b"), channel=channel)
        await a.start()
        await b.start()
        publisher = PgPublisher(dsn, channel=channel)
        publisher.start()
        try:
            for v in (1, 2, 3):
                publisher.publish(7, v)

            async def until(pred, timeout: float = 5.0) -> None:
                deadline = asyncio.get_running_loop().time() + timeout
                while not pred():
                    assert asyncio.get_running_loop().time() < deadline, (got, resyncs)
                    await asyncio.sleep(0.02)

            await until(lambda: len(got["a"]) == 3 and len(got["b"]) == 3)
            assert got["a"] == got["b"] == [(7, 1), (7, 2), (7, 3)]

            # Kill a's LISTEN backend: it must come back and ask for a resync.
            with psycopg.connect(dsn, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND query LIKE %s "
                    "AND pid <> pg_backend_pid()",
                    (f'LISTEN "{channel}"%',),
                )
            await until(lambda: "a" in resyncs or "b" in resyncs, timeout=10)
            await until(lambda: a.listening.is_set() and b.listening.is_set())
            publisher.publish(8, 1)
            await until(lambda: (8, 1) in got["a"] and (8, 1) in got["b"])
        finally:
            await asyncio.to_thread(publisher.stop)
            await a.stop()
            await b.stop()

    asyncio.run(scenario())
