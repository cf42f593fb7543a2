"""PostgreSQL's LISTEN/NOTIFY statements, on the psycopg connections app/realtime/pg.py
keeps for them (autocommit: a NOTIFY is sent at once)."""

from __future__ import annotations

from typing import Any

import psycopg


async def listen(conn: psycopg.AsyncConnection[Any], channel: str) -> None:
    """``LISTEN`` on `channel` (a name of ours, quoted as an identifier)."""
    await conn.execute(f'LISTEN "{channel}"')


def notify(conn: psycopg.Connection[Any], channel: str, payload: str) -> None:
    """``pg_notify(channel, payload)``: delivered when the statement commits."""
    conn.execute("SELECT pg_notify(%s, %s)", (channel, payload))
