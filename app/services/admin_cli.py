"""`imperial-glory admin list | inspect ID | replay ID | abort ID | export ID`, and
moderation's `grant | revoke | reports | dismiss | suspend | unsuspend | log`
(app/services/moderation_cli.py), and `backup PATH | restore PATH`
(app/services/backup_cli.py).

Operates on DATABASE_URL (or --url). `replay` rebuilds a game from its seed and
action log and checks it against the stored state (exit 1 on a mismatch).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app import engine
from app.config import Settings
from app.engine.errors import EngineError
from app.services import backup_cli, gamelog, lobby, moderation_cli, records, unit
from app.services.errors import ServiceError
from app.store import lobby as games
from app.store import log
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Game


def _list(db: Any, args: argparse.Namespace) -> int:
    print(f"{'id':>6}  {'status':<9} {'scenario':<14} {'pace':<5} {'ver':>5}  seats")
    for game in games.latest_games(db, args.limit, args.status):
        seats = ", ".join(
            f"{s.power or '?'}:{s.user.username if s.user else (s.bot_level or 'open')}"
            for s in game.seats
        )
        print(
            f"{game.id:>6}  {game.status:<9} {game.scenario:<14} {game.pace:<5} {game.version:>5}  {seats}"
        )
    return 0


def _inspect(db: Any, args: argparse.Namespace) -> int:
    game = lobby.get_game(db, args.game_id)
    count = log.count_actions(db, game.id)
    info: dict[str, Any] = {
        **lobby.game_summary(game),
        "seed": game.seed,
        "actions": count,
        "last_event": game.last_event,
        "deadlines": game.deadlines,
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
    }
    if game.state is not None:
        state = gamelog.load_state(game)
        info["state_hash"] = engine.state_hash(state)
        info["pending"] = engine.pending(state)
        info["turn"], info["phase"] = state.get("turn"), state.get("phase")
    recent = log.last_actions(db, game.id, args.last)
    info["recent_actions"] = [
        {"seq": a.seq, "seat": a.seat, "source": a.source, "action": a.action}
        for a in reversed(recent)
    ]
    print(json.dumps(info, indent=2, default=str))
    return 0


def _replay(db: Any, args: argparse.Namespace) -> int:
    game = lobby.get_game(db, args.game_id)
    if game.state is None:
        print(f"game {game.id} has not started", file=sys.stderr)
        return 2
    record = records.export_record(db, game)
    try:
        ok, computed = records.verify_record(record)
    except EngineError as exc:
        print(f"MISMATCH: game {game.id}: the log does not replay: {exc}", file=sys.stderr)
        return 1
    if ok:
        print(f"OK: game {game.id}: {len(record['actions'])} actions replay to {computed}")
        return 0
    print(
        f"MISMATCH: game {game.id}: replay {computed} != stored {record['state_hash']}",
        file=sys.stderr,
    )
    return 1


def _abort(db: Any, args: argparse.Namespace) -> int:
    """An operator ends a game: one change through the unit of work (committed, and
    published to a server whose publisher is installed in this process)."""

    def decide(work: unit.Work, game: Game) -> int | None:
        if game.status in ("finished", "aborted"):
            print(f"game {game.id} is already {game.status}", file=sys.stderr)
            return None
        game.status = "aborted"
        game.finished_at = work.now
        game.deadlines = {}
        game.next_deadline = None
        work.changed(game, settle=False)
        return game.id

    aborted = unit.change(db, args.game_id, decide)
    if aborted is None:
        return 1
    version = lobby.get_game(db, aborted).version
    print(f"game {aborted} aborted (version {version})")
    return 0


def _export(db: Any, args: argparse.Namespace) -> int:
    game = lobby.get_game(db, args.game_id)
    if game.state is None:
        print(f"game {game.id} has not started", file=sys.stderr)
        return 2
    print(json.dumps(records.export_record(db, game), indent=1))
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="imperial-glory admin", description=__doc__)
    parser.add_argument("--url", help="database URL (default: DATABASE_URL / settings)")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("list", help="recent games")
    p.add_argument("--status", choices=["lobby", "active", "finished", "aborted"])
    p.add_argument("--limit", type=int, default=50)
    p.set_defaults(run=_list)
    p = sub.add_parser("inspect", help="one game: seats, version, prompts, recent actions")
    p.add_argument("game_id", type=int)
    p.add_argument("--last", type=int, default=10, help="recent actions to show")
    p.set_defaults(run=_inspect)
    p = sub.add_parser("replay", help="replay from the seed and check the stored state")
    p.add_argument("game_id", type=int)
    p.set_defaults(run=_replay)
    p = sub.add_parser("abort", help="stop a game (status aborted)")
    p.add_argument("game_id", type=int)
    p.set_defaults(run=_abort)
    p = sub.add_parser("export", help="print the game record (JSON) for `imperial-glory verify`")
    p.add_argument("game_id", type=int)
    p.set_defaults(run=_export)
    moderation_cli.add_commands(sub)
    backup_cli.add_commands(sub)
    args = parser.parse_args(argv)
    engine = make_engine(args.url or Settings().database_url)
    try:
        with make_sessionmaker(engine)() as db:
            try:
                result: int = args.run(db, args)
            except ServiceError as exc:
                print(f"admin: {exc.message}", file=sys.stderr)
                return 1
            return result
    finally:
        engine.dispose()
