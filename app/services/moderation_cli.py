"""`imperial-glory admin grant | revoke | reports | dismiss | suspend | unsuspend | log`:
moderation from the command line (app/services/moderation.py), for the operator who
makes the first admin and for scripts. Each command is one transaction on
DATABASE_URL (or --url); an action is logged with no actor ("the command line").

A suspension made here ends the account's sessions at once everywhere (they are rows in
the database). Its sockets and the tables it sat at are told by NOTIFY on PostgreSQL, in
every server process; on SQLite the server closes its sockets at their next heartbeat
(``WS_HEARTBEAT_S``) and the tables see the stand-ins at their next move or reload.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.services import moderation, publisher, unit
from app.store import moderation as store


def _commit(db: Any) -> None:
    """The command's transaction, committed as a unit of work's (no game in it: nothing
    is published)."""
    work = unit.Work(db)
    work.commit()


def _grant(db: Any, args: argparse.Namespace) -> int:
    user = moderation.set_admin(db, None, args.who, True)
    _commit(db)
    print(f"{user.username} is an admin: the admin page is /admin")
    return 0


def _revoke(db: Any, args: argparse.Namespace) -> int:
    user = moderation.set_admin(db, None, args.who, False)
    _commit(db)
    print(f"{user.username} is no longer an admin")
    return 0


def _reports(db: Any, args: argparse.Namespace) -> int:
    queue = moderation.queue(db, args.limit)
    if args.json:
        print(json.dumps(queue, indent=1))
        return 0
    if not queue:
        print("no open report")
    for r in queue:
        where = f" (game {r['game_id']}, line {r['message_id']})" if r["message_id"] else ""
        print(f"#{r['id']}  {r['at'][:16]}  {r['reporter']} reports {r['reported']}{where}")
        print(f"      {r['reason_label']}" + (f": {r['text']}" if r["text"] else ""))
        for m in r["context"]:
            mark = ">" if m["reported"] else " "
            print(f"    {mark} {m['username']}: {m['text']}")
    return 0


def _dismiss(db: Any, args: argparse.Namespace) -> int:
    moderation.dismiss(db, None, args.report_id, args.note)
    _commit(db)
    print(f"report {args.report_id} dismissed")
    return 0


def _suspend(db: Any, args: argparse.Namespace) -> int:
    changed: list[tuple[int, int]] = []
    moderation.suspend(
        db, None, args.name, args.reason, publish=lambda g, v, _n: changed.append((g, v))
    )
    # The servers' sockets of those games (PostgreSQL): each change is NOTIFYed as a
    # server's own would be, so the tables see the stand-ins now.
    for game_id, version in changed:
        store.notify_on_commit(db, publisher.CHANNEL, publisher.encode_payload(game_id, version))
    _commit(db)
    name = moderation.user_named(db, args.name).username
    print(f"{name} is suspended: sessions ended; stand-ins in {len(changed)} games changed")
    return 0


def _unsuspend(db: Any, args: argparse.Namespace) -> int:
    user = moderation.unsuspend(db, None, args.name, args.note)
    _commit(db)
    print(f"{user.username} may sign in again")
    return 0


def _log(db: Any, args: argparse.Namespace) -> int:
    for e in reversed(moderation.log_json(db, args.limit)):
        to = f" {e['target']}" if e["target"] else ""
        game = f" (game {e['game_id']})" if e["game_id"] else ""
        why = f": {e['reason']}" if e["reason"] else ""
        print(f"{e['at'][:19]}  {e['actor']} {e['action']}{to}{game}{why}")
    return 0


def add_commands(sub: Any) -> None:
    """Add moderation's commands to ``imperial-glory admin``'s subparsers."""
    p = sub.add_parser("grant", help="make a player an admin (by name or e-mail)")
    p.add_argument("who", help="a player's name or e-mail address")
    p.set_defaults(run=_grant)
    p = sub.add_parser("revoke", help="take the admin role away")
    p.add_argument("who", help="a player's name or e-mail address")
    p.set_defaults(run=_revoke)
    p = sub.add_parser("reports", help="the open reports, each line with its context")
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_reports)
    p = sub.add_parser("dismiss", help="dismiss an open report")
    p.add_argument("report_id", type=int)
    p.add_argument("--note", default="", help="why (kept in the log)")
    p.set_defaults(run=_dismiss)
    p = sub.add_parser("suspend", help="suspend an account: sessions end, seats to stand-ins")
    p.add_argument("name")
    p.add_argument("--reason", required=True, help="told to the account when it tries to sign in")
    p.set_defaults(run=_suspend)
    p = sub.add_parser("unsuspend", help="lift a suspension")
    p.add_argument("name")
    p.add_argument("--note", default="", help="why (kept in the log)")
    p.set_defaults(run=_unsuspend)
    p = sub.add_parser("log", help="the moderation log, the latest last")
    p.add_argument("--limit", type=int, default=50)
    p.set_defaults(run=_log)
