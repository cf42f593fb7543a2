"""`imperial-glory admin backup PATH` and `admin restore PATH [--force] [--verify]`
(docs/deploy.md, "Backups"; the files and programs: app/store/backup.py).

``backup`` is safe while the server runs (one consistent snapshot; no writer waits).
``restore`` is not: stop the server, restore into an empty database (``--force`` drops
what the target holds first), start it again. The restored schema is brought to this
release's revision. ``--verify`` then replays every started game from its seed and log
and checks the stored position's hash, as ``admin replay ID`` does for one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.config import Settings
from app.engine.errors import EngineError
from app.services import lobby, records
from app.store import backup as store
from app.store import lobby as games


def _url(args: argparse.Namespace) -> str:
    return str(args.url or Settings().database_url)


def _backup(_db: Any, args: argparse.Namespace) -> int:
    path = Path(args.path)
    if path.exists() and not args.force:
        print(f"admin: {path} exists; pass --force to replace it", file=sys.stderr)
        return 1
    try:
        store.backup(_url(args), path)
    except store.BackupError as exc:
        print(f"admin: backup: {exc}", file=sys.stderr)
        return 1
    print(f"backed up to {path} ({path.stat().st_size:,} bytes)")
    return 0


def verify_all(db: Any) -> tuple[int, list[str]]:
    """Replay every started game; (how many were checked, what failed, one line each)."""
    failed: list[str] = []
    ids = games.started_ids(db)
    for game_id in ids:
        game = lobby.get_game(db, game_id)
        try:
            ok, computed = records.verify_record(records.export_record(db, game))
        except (EngineError, ValueError, KeyError) as exc:
            failed.append(f"game {game_id}: the log does not replay: {exc}")
            continue
        if not ok:
            failed.append(f"game {game_id}: replay gives {computed}, not the stored position")
    return len(ids), failed


def _restore(db: Any, args: argparse.Namespace) -> int:
    try:
        done = store.restore(_url(args), Path(args.path), force=args.force)
    except store.BackupError as exc:
        print(f"admin: restore: {exc}", file=sys.stderr)
        return 1
    upgraded = f" (upgraded from {done.found})" if done.upgraded else ""
    print(f"restored {args.path}: schema at revision {done.revision}{upgraded}")
    if not args.verify:
        return 0
    checked, failed = verify_all(db)
    for line in failed:
        print(f"MISMATCH: {line}", file=sys.stderr)
    print(f"verified {checked - len(failed)} of {checked} started games")
    return 1 if failed else 0


def add_commands(sub: Any) -> None:
    """Add ``backup`` and ``restore`` to the ``admin`` command's subparsers."""
    p = sub.add_parser("backup", help="back the database up to PATH (safe while serving)")
    p.add_argument("path", help="the backup file to write")
    p.add_argument("--force", action="store_true", help="replace PATH if it exists")
    p.set_defaults(run=_backup)
    p = sub.add_parser("restore", help="restore a backup into an empty database")
    p.add_argument("path", help="a file written by `admin backup`")
    p.add_argument("--force", action="store_true", help="drop every table the target holds first")
    p.add_argument(
        "--verify", action="store_true", help="then replay every started game and check it"
    )
    p.set_defaults(run=_restore)
