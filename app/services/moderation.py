"""Moderation for a public lobby (issue 41, part 5): what each person does for herself
(block a player, mute a table's chat, report a player or a chat line) and what the
admins do with the reports (dismiss, suspend an account, lift a suspension).

- **Block**: none of the blocked person's chat reaches her, over HTTP or a socket (the
  lines are filtered per reader: ``chat.since``, and the hub's ``GameLoad.hidden``), and
  neither can seat the other at a table: joining and rematches are refused
  (``lobby._not_blocked``).
- **Mute** a table's chat for herself: her sockets get no chat lines of that game, her
  page says it is muted; unmuting shows what was said meanwhile.
- **Report** a player, or one chat line of theirs, with a reason of ``REASONS`` and up
  to ``MAX_TEXT`` characters of her own; one report per line per reporter, one open
  report per player per reporter; rate-limited per reporter (``RATE_REPORT``, at the
  route, as chat is).
- **Suspend** (admins): every session of the account ends, its sockets close (4401
  "account suspended": in this process at once through the publisher, in the others by
  a NOTIFY sent with the commit), it cannot sign in (the reason is told to whoever
  knows its password), its seats in running games pass to stand-ins (why "suspended",
  announced to the table, as a deleted account's do: one unit of work), its lobby seats
  are given up, and the open reports about it are closed as acted on. **Unsuspend**
  lets it sign in again; opening a game then takes its seat back
  (``standins.INVOLUNTARY``).

Every action is written to the moderation log (``ModerationEntry``): who did what to
whom, when and why; an action of the command line has no actor. Services never commit
(the request owns its transaction), but for a suspension, which changes games and is
committed and published by its unit of work (app/services/unit.py).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.services import lobby, publisher, standins, unit
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from app.store import accounts as accounts_store
from app.store import moderation as store
from app.store.models import ChatMessage, ModerationEntry, Report, User
from app.store.types import utcnow

log = logging.getLogger(__name__)

#: why a report is made: its code and how the form says it
REASONS: dict[str, str] = {
    "abuse": "Abuse, insults or harassment",
    "spam": "Spam or advertising",
    "cheating": "Cheating or collusion",
    "name": "An offensive name",
    "other": "Something else (say what)",
}
#: a reporter's own words, a suspension's or a dismissal's reason: at most this long
MAX_TEXT = 500
#: chat lines shown before and after a reported line in the admins' queue
CONTEXT_LINES = 3
#: who the log names for an action of the command line
COMMAND_LINE = "the command line"


# --------------------------------------------------------------------------- people


def user_named(db: Session, name: str) -> User:
    """The player called `name` (any case), or NotFound. A deleted account is nobody."""
    key = name.strip().lower()
    user = accounts_store.user_named(db, key[:64]) if key else None
    if user is None or key.startswith("deleted-"):
        raise NotFound(f"There is no player {name.strip()[:64]!r}.")
    return user


def user_by_name_or_email(db: Session, who: str) -> User:
    """The player named `who`, or whose e-mail address it is (the command line)."""
    if "@" in who:
        user = accounts_store.user_with_email(db, who.strip())
        if user is None:
            raise NotFound(f"No player has the e-mail address {who.strip()!r}.")
        return user
    return user_named(db, who)


def _record(
    db: Session,
    actor: User | None,
    action: str,
    target: User | None,
    reason: str | None = None,
    game_id: int | None = None,
    report_id: int | None = None,
    now: datetime | None = None,
) -> ModerationEntry:
    entry = ModerationEntry(
        actor_id=actor.id if actor is not None else None,
        action=action,
        target_id=target.id if target is not None else None,
        game_id=game_id,
        report_id=report_id,
        reason=reason,
        created_at=now or utcnow(),
    )
    db.add(entry)
    db.flush()
    return entry


def _words(text: str | None, field: str, required: bool = False, what: str = "say why") -> str:
    text = (text or "").strip()
    if required and not text:
        raise Invalid(f"Please {what}.", field=field)
    if len(text) > MAX_TEXT:
        raise Invalid(f"Keep it under {MAX_TEXT} characters ({len(text)} now).", field=field)
    return text


# --------------------------------------------------------------------------- blocks


def block(db: Session, user: User, name: str, now: datetime | None = None) -> tuple[User, bool]:
    """`user` blocks the player `name`: (that player, whether this is new)."""
    target = user_named(db, name)
    if target.id == user.id:
        raise Invalid("You cannot block yourself.", code="self", field="username")
    now = now or utcnow()
    added = store.add_block(db, user.id, target.id, now)
    if added:
        _record(db, user, "block", target, now=now)
    return target, added


def unblock(db: Session, user: User, name: str) -> User:
    """`user` no longer blocks `name` (NotFound if she did not)."""
    target = user_named(db, name)
    if not store.remove_block(db, user.id, target.id):
        raise NotFound(f"You do not block {target.username}.")
    _record(db, user, "unblock", target)
    return target


def blocks_of(db: Session, user: User) -> list[dict[str, Any]]:
    """Whom `user` blocks, the latest first."""
    return [
        {
            "user_id": b.blocked_id,
            "username": b.blocked.username,
            "since": b.created_at.isoformat(),
        }
        for b in store.blocks_of(db, user.id)
    ]


def blocked_ids(db: Session, user_id: int | None) -> set[int]:
    return store.blocked_ids(db, user_id) if user_id is not None else set()


# --------------------------------------------------------------------------- mutes


def set_muted(db: Session, user: User, game_id: int, on: bool) -> bool:
    """Mute (`on`) or unmute the table talk of `game_id` for `user`; returns `on`."""
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, user.id):
        raise Forbidden("This game is private.")
    if store.set_muted(db, user.id, game.id, on, utcnow()):
        _record(db, user, "mute" if on else "unmute", None, game_id=game.id)
    return on


def is_muted(db: Session, user_id: int | None, game_id: int) -> bool:
    return user_id is not None and store.muted(db, user_id, game_id)


def chat_hidden(
    db: Session, game_id: int, user_ids: Collection[int | None]
) -> dict[int | None, frozenset[int] | None]:
    """For the readers of one table's chat: whose lines each may not be sent (those
    she blocks), or None for one who muted it. Readers with nothing hidden are left out."""
    people = [u for u in user_ids if u is not None]
    out: dict[int | None, frozenset[int] | None] = {
        user_id: frozenset(hidden) for user_id, hidden in store.blocks_among(db, people).items()
    }
    for user_id in store.muted_among(db, game_id, people):
        out[user_id] = None
    return out


# --------------------------------------------------------------------------- reports


def report(
    db: Session,
    reporter: User,
    reason: str,
    text: str = "",
    username: str | None = None,
    message_id: int | None = None,
    now: datetime | None = None,
) -> Report:
    """`reporter` reports a chat line (`message_id`) or a player (`username`)."""
    if reason not in REASONS:
        choices = ", ".join(REASONS)
        raise Invalid(f"Choose a reason: one of {choices}.", code="bad_reason", field="reason")
    text = _words(text, "text", required=reason == "other", what="say what happened")
    now = now or utcnow()
    message: ChatMessage | None = None
    if message_id is not None:
        message = store.line(db, message_id)
        game = lobby.get_game(db, message.game_id) if message is not None else None
        if message is None or game is None or not lobby.can_see(db, game, reporter.id):
            raise NotFound(f"There is no chat line {message_id}.", field="message_id")
        target = message.user
        if username and user_named(db, username).id != target.id:
            raise Invalid(
                f"Chat line {message_id} is not {username.strip()[:64]}'s.", field="username"
            )
    elif username:
        target = user_named(db, username)
    else:
        raise Invalid("Name the player or the chat line you report.", field="username")
    if target.id == reporter.id:
        what = "your own line" if message is not None else "yourself"
        raise Invalid(f"You cannot report {what}.", code="self", field="message_id")
    if message is not None:
        before = store.report_of_line(db, reporter.id, message.id)
        if before is not None:
            raise Conflict(
                f"You reported this line already ({before.created_at:%d %b %H:%M} UTC); "
                "the moderators have it.",
                code="already_reported",
            )
    else:
        before = store.open_report_of_player(db, reporter.id, target.id)
        if before is not None:
            raise Conflict(
                f"You reported {target.username} already ({before.created_at:%d %b %H:%M} "
                "UTC); the moderators have it.",
                code="already_reported",
            )
    row = Report(
        reporter_id=reporter.id,
        reported_id=target.id,
        game_id=message.game_id if message is not None else None,
        message_id=message.id if message is not None else None,
        reason=reason,
        text=text,
        status="open",
        created_at=now,
    )
    db.add(row)
    db.flush()
    said = f"{reason}: {text}" if text else reason
    _record(db, reporter, "report", target, said, row.game_id, row.id, now)
    return row


def report_json(row: Report) -> dict[str, Any]:
    return {
        "id": row.id,
        "reported": row.reported.username,
        "reason": row.reason,
        "reason_label": REASONS.get(row.reason, row.reason),
        "text": row.text,
        "game_id": row.game_id,
        "message_id": row.message_id,
        "status": row.status,
        "at": row.created_at.isoformat(),
    }


# --------------------------------------------------------------------------- admins


def require_admin(user: User | None) -> User:
    """`user`, if an admin; else Forbidden (the admin page, every admin action)."""
    if user is None or not user.is_admin:
        raise Forbidden("Only an admin may do this.")
    return user


def _line_json(m: ChatMessage, reported: int | None) -> dict[str, Any]:
    return {
        "id": m.id,
        "username": m.user.username,
        "text": m.text,
        "at": m.created_at.isoformat(),
        "reported": m.id == reported,
    }


def queue(db: Session, limit: int = 100) -> list[dict[str, Any]]:
    """The open reports, the oldest first, each with its context: the reported line
    and up to ``CONTEXT_LINES`` lines around it, its game, and the reporter's reason."""
    out = []
    for row in store.open_reports(db, limit):
        item = report_json(row)
        item["reporter"] = row.reporter.username
        item["reported_suspended"] = row.reported.suspended_at is not None
        item["context"] = (
            [
                _line_json(m, row.message_id)
                for m in store.lines_around(db, row.game_id, row.message_id, CONTEXT_LINES)
            ]
            if row.message_id is not None and row.game_id is not None
            else []
        )
        out.append(item)
    return out


def dismiss(db: Session, actor: User | None, report_id: int, note: str = "") -> Report:
    """An admin (`actor`; None: the command line) dismisses an open report."""
    if actor is not None:
        require_admin(actor)
    note = _words(note, "note")
    row = db.get(Report, report_id)
    if row is None:
        raise NotFound(f"There is no report {report_id}.")
    if row.status != "open":
        raise Conflict(f"Report {report_id} is closed already ({row.status}).", code="closed")
    now = utcnow()
    row.status, row.resolved_at = "dismissed", now
    row.resolved_by = actor.id if actor is not None else None
    row.resolution = note or None
    _record(db, actor, "dismiss", row.reported, note or None, row.game_id, row.id, now)
    return row


def suspend(
    db: Session,
    actor: User | None,
    name: str,
    reason: str,
    now: datetime | None = None,
    publish: unit.Publish | None = None,
) -> dict[int, int]:
    """An admin (`actor`; None: the command line) suspends the account `name` for
    `reason`: one unit of work (committed, then each game changed is published, then its
    sockets are closed). Returns {game id: version} of the games changed."""
    if actor is not None:
        require_admin(actor)
    reason = _words(reason, "reason", required=True, what="give the reason for the suspension")
    target = user_named(db, name)
    if actor is not None and target.id == actor.id:
        raise Invalid("You cannot suspend yourself.", code="self", field="username")
    if target.is_admin:
        raise Forbidden(
            f"{target.username} is an admin: revoke the role first "
            f"(imperial-glory admin revoke {target.username})."
        )
    if target.suspended_at is not None:
        raise Conflict(f"{target.username} is suspended already.", code="already_suspended")
    work = unit.Work(db, now, publish)
    for game_id in sorted(set(accounts_store.games_in_play(db, target.id))):
        game = work.take(game_id)
        if game.status == "lobby":
            lobby.leave(db, game, target)  # a game it hosts is cancelled
        elif game.status == "active":
            seat = lobby.seat_of(game, target.id)
            if seat is None or seat.standin is not None:
                continue
            # A stand-in plays the seat, said to the table, until the account is back.
            standins.stand_in(db, game, seat, "suspended", work.now)
        else:
            continue
        work.changed(game)
    target.suspended_at = work.now
    target.suspended_reason = reason
    accounts_store.delete_sessions_of(db, target.id)
    by = actor.id if actor is not None else None
    closed = store.resolve_reports_on(
        db, target.id, "actioned", by, work.now, f"suspended: {reason}"
    )
    _record(db, actor, "suspend", target, reason, now=work.now)
    # Every other process closes her sockets when this commits (PostgreSQL's NOTIFY).
    store.notify_on_commit(db, publisher.CHANNEL, publisher.ended_payload(target.id))
    changed = work.commit()
    publisher.end_sockets(target.id)
    log.info(
        "account %s suspended by %s (%d games, %d reports closed)",
        target.id,
        actor.username if actor is not None else COMMAND_LINE,
        len(changed),
        len(closed),
    )
    return changed


def unsuspend(db: Session, actor: User | None, name: str, note: str = "") -> User:
    """An admin (`actor`; None: the command line) lifts the suspension of `name`: she
    may sign in again, and opening a game gives her seat back from its stand-in."""
    if actor is not None:
        require_admin(actor)
    note = _words(note, "note")
    target = user_named(db, name)
    if target.suspended_at is None:
        raise Conflict(f"{target.username} is not suspended.", code="not_suspended")
    target.suspended_at = None
    target.suspended_reason = None
    _record(db, actor, "unsuspend", target, note or None)
    return target


def suspended_accounts(db: Session) -> list[dict[str, Any]]:
    """The suspended accounts, the latest first: since when, why and by whom."""
    out = []
    for user in store.suspended(db):
        entry = store.last_entry(db, "suspend", user.id)
        out.append(
            {
                "username": user.username,
                "since": user.suspended_at.isoformat() if user.suspended_at else None,
                "reason": user.suspended_reason,
                "by": _actor_name(entry.actor if entry is not None else None),
            }
        )
    return out


def set_admin(db: Session, actor: User | None, who: str, on: bool) -> User:
    """Grant (`on`) or revoke the admin role of the player named `who` (or whose
    e-mail address it is): the command line's ``admin grant`` and ``revoke``."""
    target = user_by_name_or_email(db, who)
    if on and target.suspended_at is not None:
        raise Conflict(f"{target.username} is suspended: lift the suspension first.")
    if target.is_admin == on:
        raise Conflict(f"{target.username} is {'an admin' if on else 'not an admin'} already.")
    target.is_admin = on
    _record(db, actor, "grant" if on else "revoke", target)
    return target


def _actor_name(actor: User | None) -> str:
    return actor.username if actor is not None else COMMAND_LINE


def log_json(db: Session, limit: int = 50) -> list[dict[str, Any]]:
    """The latest entries of the moderation log."""
    return [
        {
            "id": e.id,
            "at": e.created_at.isoformat(),
            "actor": _actor_name(e.actor),
            "action": e.action,
            "target": e.target.username if e.target is not None else None,
            "game_id": e.game_id,
            "report_id": e.report_id,
            "reason": e.reason,
        }
        for e in store.log_entries(db, limit)
    ]


def is_suspended(db: Session, user_id: int) -> bool:
    """Whether `user_id`'s account is suspended now (one primary-key read)."""
    return store.suspension_of(db, user_id) is not None
