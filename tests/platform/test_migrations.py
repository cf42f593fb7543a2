"""Alembic owns the schema: upgrade from empty and downgrade to base, on both databases."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import inspect

from app.store.cli import downgrade, upgrade
from app.store.db import make_engine
from app.store.models import Base

ROOT = Path(__file__).resolve().parents[2]
TABLES = {
    "notifications",
    "users",
    "sessions",
    "login_failures",
    "games",
    "seats",
    "invites",
    "actions",
    "events",
    "snapshots",
    "chat_messages",
    "player_stats",
}


def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_from_empty_then_downgrade_to_base(db_url: str) -> None:
    assert tables(db_url) <= {"alembic_version"}
    upgrade(db_url)
    assert tables(db_url) >= TABLES
    assert set(Base.metadata.tables) == TABLES
    downgrade(db_url, "base")
    assert tables(db_url) <= {"alembic_version"}
    upgrade(db_url)  # and back up again: the downgrade left nothing behind
    assert tables(db_url) >= TABLES


def test_models_match_the_migrations(migrated_url: str) -> None:
    """`alembic check`: the models and the migrated schema do not differ."""
    from alembic import command

    from app.store.cli import alembic_config

    command.check(alembic_config(migrated_url))


def test_db_command(sqlite_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": sqlite_url}
    run = [sys.executable, "-m", "app.cli", "db"]
    subprocess.run([*run, "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    current = subprocess.run(
        [*run, "current"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    assert "(head)" in current.stdout
    subprocess.run([*run, "downgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    assert tables(sqlite_url) <= {"alembic_version"}


def test_notifications_migration_keeps_users_with_defaults(db_url: str) -> None:
    from sqlalchemy import text

    upgrade(db_url, "0001")
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO users (username, username_key, password_hash, created_at) "
                    "VALUES ('old', 'old', 'x', CURRENT_TIMESTAMP)"
                )
            )
        upgrade(db_url)
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT notify_turns, daily_digest, webhook_url FROM users")
            ).one()
        assert (bool(row[0]), bool(row[1]), row[2]) == (True, False, None)
        downgrade(db_url, "0001")
        assert "notifications" not in tables(db_url)
    finally:
        engine.dispose()
