"""`imperial-glory db upgrade [rev] | downgrade [rev] | current` (alembic, on DATABASE_URL)."""

from __future__ import annotations

import argparse
from pathlib import Path

from alembic import command
from alembic.config import Config

from app.config import Settings

ROOT = Path(__file__).resolve().parent.parent.parent


def alembic_config(database_url: str) -> Config:
    """The alembic configuration for this checkout, pointed at `database_url`."""
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return cfg


def ensure_sqlite_dir(database_url: str) -> None:
    """Create the directory of an SQLite file (``sqlite:///data/x.sqlite3``) if missing."""
    prefix = "sqlite:///"
    if database_url.startswith(prefix) and ":memory:" not in database_url:
        Path(database_url[len(prefix) :]).parent.mkdir(parents=True, exist_ok=True)


def upgrade(database_url: str, revision: str = "head") -> None:
    ensure_sqlite_dir(database_url)
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="imperial-glory db", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("upgrade", help="apply migrations (default: to head)")
    up.add_argument("revision", nargs="?", default="head")
    down = sub.add_parser("downgrade", help="revert migrations (default: to base, i.e. empty)")
    down.add_argument("revision", nargs="?", default="base")
    sub.add_parser("current", help="print the database's revision")
    parser.add_argument("--url", help="database URL (default: DATABASE_URL / settings)")
    args = parser.parse_args(argv)
    url = args.url or Settings().database_url
    if args.cmd == "upgrade":
        upgrade(url, args.revision)
    elif args.cmd == "downgrade":
        downgrade(url, args.revision)
    else:
        ensure_sqlite_dir(url)
        command.current(alembic_config(url), verbose=False)
    return 0
