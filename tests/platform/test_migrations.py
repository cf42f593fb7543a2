"""Alembic owns the schema: upgrade from empty and downgrade to base, on both databases."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import inspect, select, text

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
    "presence",
    "blocks",
    "chat_mutes",
    "reports",
    "moderation_log",
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


def test_0004_keeps_every_game_state_both_ways(db_url: str) -> None:
    """Up: the old per-action state is the snapshot at the last action. Down: games
    whose snapshot lags their log get the current state back in games.state."""
    import random

    from app import engine
    from app.services import gamelog, moves
    from app.store.db import make_sessionmaker
    from app.store.models import Action, Game
    from tests.games import two_person_game

    upgrade(db_url)
    eng = make_engine(db_url)
    factory = make_sessionmaker(eng)
    try:
        gid, users = two_person_game(factory)
        rng = random.Random(1)
        for _ in range(gamelog.SNAPSHOT_EVERY + 4):  # the snapshot now lags by a few
            with factory() as db:
                row = db.get(Game, gid)
                assert row is not None
                state = gamelog.load_state(row, db)
                seat = engine.pending(state)[0]["seat"]
                action = rng.choice(engine.legal_actions(state, seat))
                moves.submit_action(db, gid, users[seat], action, row.version, None)
                db.commit()
        with factory() as db:
            row = db.get(Game, gid)
            assert row is not None and row.state_seq < row.last_action
            current = engine.dumps(gamelog.load_state(row, db))
            seats = [s.power or "" for s in row.seats]
            log = [
                (a.seat, a.action)
                for a in db.scalars(
                    select(Action).where(Action.game_id == gid).order_by(Action.seq)
                )
            ]
            assert engine.dumps(engine.replay(row.scenario, seats, row.seed or 0, log)) == current
    finally:
        eng.dispose()
    downgrade(db_url, "0003")
    eng = make_engine(db_url)
    try:
        with eng.connect() as conn:
            assert (
                conn.execute(text("SELECT state FROM games WHERE id = :g"), {"g": gid}).scalar()
                == current
            )
            # SQLite alters `games` by copying it: nothing that references it may be lost.
            kept = conn.execute(text("SELECT count(*) FROM actions WHERE game_id = :g"), {"g": gid})
            assert kept.scalar() == len(log)
    finally:
        eng.dispose()
    upgrade(db_url)
    eng = make_engine(db_url)
    gamelog.states.clear()
    try:
        with make_sessionmaker(eng)() as db:
            row = db.get(Game, gid)
            assert row is not None and row.state_seq == row.last_action and row.server_turn
            assert engine.dumps(gamelog.load_state(row, db)) == current
    finally:
        eng.dispose()
