"""A database's backup and restore (``imperial-glory admin backup | restore``;
docs/deploy.md, "Backups").

- **PostgreSQL**: ``pg_dump --format=custom`` and ``pg_restore``, found as the tests find
  PostgreSQL's programs (on PATH, else under ``/usr/lib/postgresql/*/bin``) and chosen
  by the server's major version: a ``pg_dump`` older than the server refuses to dump it,
  so an older one is refused here first, naming what was found. ``pg_dump`` reads one
  snapshot of the whole database and blocks no writer: safe while the server runs.
- **SQLite**: Python's online backup API (``sqlite3.Connection.backup``), in one step:
  one read transaction, which in WAL mode never blocks the server's writer either; the
  copy is the database as of one commit.

A restore refuses a target that already holds tables unless forced (then they are
dropped first), and checks the restored schema's alembic revision: an older one is
upgraded to this code's head, one this code does not know (a newer release's) is
reported, the data left in place for that release.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import URL, make_url

from app.store.cli import alembic_config, ensure_sqlite_dir, upgrade

#: the first bytes of each kind of backup file
PG_MAGIC = b"PGDMP"
SQLITE_MAGIC = b"SQLite format 3\x00"
PG_LIBS = Path("/usr/lib/postgresql")


class BackupError(Exception):
    """A backup or restore that cannot be done, with what to do about it."""


@dataclass
class Restored:
    """What a restore did: the revision found in the backup and the one it is at now."""

    found: str | None
    revision: str | None
    upgraded: bool


def is_sqlite(database_url: str) -> bool:
    return database_url.startswith("sqlite")


def sqlite_path(database_url: str) -> Path:
    """The file of an ``sqlite:///path`` URL (a database in memory cannot be backed up)."""
    database = make_url(database_url).database
    if not database or database == ":memory:":
        raise BackupError(f"{database_url}: an SQLite database in memory has no file to back up")
    return Path(database)


# --------------------------------------------------------------------------- the programs


def _version(program: str) -> int | None:
    """The major version a PostgreSQL program says it is (``pg_dump (PostgreSQL) 15.2``)."""
    try:
        out = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except OSError:
        return None
    found = re.search(r"\)\s*(\d+)", out)
    return int(found.group(1)) if found else None


def pg_program(name: str, server_major: int) -> str:
    """``pg_dump`` or ``pg_restore`` at least as new as the server (`server_major`): the
    server's own major version's first, then PATH's, then any other installed."""
    candidates = [str(PG_LIBS / str(server_major) / "bin" / name)]
    if (on_path := shutil.which(name)) is not None:
        candidates.append(on_path)
    candidates += [str(p) for p in sorted(PG_LIBS.glob(f"*/bin/{name}"), reverse=True)]
    seen: list[str] = []
    for candidate in dict.fromkeys(candidates):
        if not os.access(candidate, os.X_OK):
            continue
        major = _version(candidate)
        if major is not None and major >= server_major:
            return candidate
        seen.append(f"{candidate} ({major or '?'})")
    if not seen:
        raise BackupError(
            f"{name} is not installed: install PostgreSQL's client programs "
            f"(Debian: apt-get install postgresql-client-{server_major})"
        )
    raise BackupError(
        f"{name} must be PostgreSQL {server_major} or newer, the server's version; found "
        f"{', '.join(seen)}: install postgresql-client-{server_major}"
    )


def _libpq(database_url: str) -> tuple[str, dict[str, str]]:
    """A libpq URI for `database_url` without its password, and the environment that
    carries the password (never on a command line, where ``ps`` shows it)."""
    url: URL = make_url(database_url)
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _server_major(database_url: str) -> int:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            number = int(conn.execute(text("SHOW server_version_num")).scalar_one())
    except Exception as exc:
        raise BackupError(f"cannot reach the database: {exc}") from exc
    finally:
        engine.dispose()
    return number // 10000


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise BackupError(f"{what} failed: {' / '.join(detail[-3:]) or done.returncode}")


# --------------------------------------------------------------------------- backup


def backup(database_url: str, path: Path) -> None:
    """Write a backup of `database_url` to `path` (written beside it, then renamed: a
    failed backup leaves no half file under the name)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    partial = Path(name)
    try:
        if is_sqlite(database_url):
            _sqlite_backup(sqlite_path(database_url), partial)
        else:
            _pg_backup(database_url, partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _sqlite_backup(source: Path, target: Path) -> None:
    if not source.is_file():
        raise BackupError(f"{source}: no such database file")
    # Read-write, though it only reads: a read-only connection to a WAL database cannot
    # always open its shared memory. The server's writer may hold the lock a moment.
    src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)  # every page in one step: one read transaction
            dst.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
        finally:
            dst.close()
    finally:
        src.close()


def _pg_backup(database_url: str, target: Path) -> None:
    program = pg_program("pg_dump", _server_major(database_url))
    dsn, env = _libpq(database_url)
    _run([program, "--format=custom", "--file", str(target), dsn], env, "pg_dump")


# --------------------------------------------------------------------------- restore


def tables(database_url: str) -> list[str]:
    """The tables the database holds now (none: an empty database)."""
    if is_sqlite(database_url) and not sqlite_path(database_url).exists():
        return []
    engine = create_engine(database_url)
    try:
        return sorted(inspect(engine).get_table_names())
    except Exception as exc:
        raise BackupError(f"cannot reach the database: {exc}") from exc
    finally:
        engine.dispose()


def kind_of(path: Path) -> str:
    """``postgresql`` or ``sqlite``, from the file's first bytes; BackupError otherwise."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise BackupError(f"{path}: {exc.strerror or exc}") from exc
    if head.startswith(PG_MAGIC):
        return "postgresql"
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    raise BackupError(
        f"{path} is not a backup of this site (neither pg_dump's custom format nor SQLite)"
    )


def restore(database_url: str, path: Path, force: bool = False) -> Restored:
    """Restore the backup at `path` into `database_url`, then bring its schema to this
    code's revision. The target must hold no table, unless `force` (then every table in
    it is dropped first)."""
    kind = kind_of(path)
    want = "sqlite" if is_sqlite(database_url) else "postgresql"
    if kind != want:
        raise BackupError(f"{path} is a {kind} backup; the target database is {want}")
    present = tables(database_url)
    if present and not force:
        raise BackupError(
            f"the target database is not empty ({len(present)} tables: "
            f"{', '.join(present[:4])}{' …' if len(present) > 4 else ''}); restore into an "
            "empty database, or pass --force to drop what it holds first"
        )
    if kind == "sqlite":
        _sqlite_restore(path, sqlite_path(database_url))
    else:
        if present:
            _pg_drop_all(database_url)
        _pg_restore(database_url, path)
    return _bring_up(database_url)


def _sqlite_restore(source: Path, target: Path) -> None:
    ensure_sqlite_dir(f"sqlite:///{target}")
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)  # replaces every page of the target
            dst.execute("PRAGMA journal_mode=WAL")  # as the server opens it
        finally:
            dst.close()
    finally:
        src.close()


def _pg_drop_all(database_url: str) -> None:
    """Drop every table (and what hangs on them) in the public schema."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            names = inspect(conn).get_table_names()
            for name in names:
                conn.execute(text(f'DROP TABLE IF EXISTS "{name}" CASCADE'))
    finally:
        engine.dispose()


def _pg_restore(database_url: str, source: Path) -> None:
    program = pg_program("pg_restore", _server_major(database_url))
    dsn, env = _libpq(database_url)
    _run(
        [
            program,
            "--no-owner",  # the target's user owns what is restored
            "--no-privileges",
            "--exit-on-error",
            "--single-transaction",  # all or nothing
            "--dbname",
            dsn,
            str(source),
        ],
        env,
        "pg_restore",
    )


def revision_of(database_url: str) -> str | None:
    """The alembic revision the database's schema is at (None: none recorded)."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return None
            value = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
            return str(value) if value is not None else None
    finally:
        engine.dispose()


def _bring_up(database_url: str) -> Restored:
    """Upgrade the restored schema to head when it is older; a revision this code does
    not know is a BackupError (the backup comes from a newer release)."""
    found = revision_of(database_url)
    script = ScriptDirectory.from_config(alembic_config(database_url))
    head = script.get_current_head()
    if found is None:
        raise BackupError("the restored database records no schema revision (alembic_version)")
    if found == head:
        return Restored(found, head, False)
    known = {rev.revision for rev in script.walk_revisions()}
    if found not in known:
        raise BackupError(
            f"the backup's schema is at revision {found}, which this release does not know "
            f"(its newest is {head}): restore it with the release that made it"
        )
    upgrade(database_url)
    return Restored(found, revision_of(database_url), True)
