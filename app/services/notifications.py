"""Notices for people who are away: "your turn" by e-mail (SMTP) and webhook, at most
one per game per hour, and an optional daily digest of the games waiting for them.

A decision earns a notice once it has waited `TURN_DELAY` (someone at the table
usually answers sooner, so live players are not mailed). `run_once` runs from the
web app's background loop in every process; the game-row lock and the notices
table keep two processes from sending the same notice.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from functools import partial
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.services import gamelog, lobby, webhooks
from app.store.models import Game, Notification, Seat, User
from app.store.types import utcnow

log = logging.getLogger(__name__)

TURN_DELAY = timedelta(minutes=1)
PER_GAME_GAP = timedelta(hours=1)
DIGEST_EVERY = timedelta(hours=24)


# --------------------------------------------------------------------------- channels


def send_email(settings: Settings, to: str, subject: str, body: str) -> None:
    if not settings.smtp_host:
        raise RuntimeError("no SMTP server is configured (SMTP_HOST)")
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=10) as smtp:
        smtp.send_message(message)


def channels(user: User, settings: Settings) -> list[str]:
    found = []
    if user.email and settings.smtp_host:
        found.append("email")
    if user.webhook_url:
        found.append("webhook")
    return found


@dataclass
class Job:
    """One notice to send, already recorded (status `sending`) as notification `row_id`."""

    row_id: int
    channel: str
    target: str
    subject: str
    body: str
    payload: dict[str, Any]


def claim(
    db: Session,
    settings: Settings,
    user: User,
    game_id: int | None,
    kind: str,
    subject: str,
    body: str,
    payload: dict[str, Any],
) -> list[Job]:
    """Record a notice on each of the user's channels (to send after commit)."""
    jobs = []
    for channel in channels(user, settings):
        row = Notification(user_id=user.id, game_id=game_id, kind=kind, channel=channel)
        db.add(row)
        db.flush()
        target = user.email if channel == "email" else user.webhook_url
        jobs.append(Job(row.id, channel, target or "", subject, body, payload))
    return jobs


def send(factory: sessionmaker[Session], settings: Settings, jobs: list[Job]) -> int:
    """Send claimed notices (no transaction is open meanwhile); record the outcome."""
    sent = 0
    for job in jobs:
        status, error = "sent", None
        try:
            if job.channel == "email":
                send_email(settings, job.target, job.subject, job.body)
            else:
                webhooks.post(job.target, job.payload, settings.webhook_allow_private)
            sent += 1
        except Exception as exc:  # a dead mail server or hook must not stop the others
            status, error = "failed", f"{type(exc).__name__}: {exc}"[:500]
            log.warning("notice %s by %s failed: %s", job.row_id, job.channel, error)
        with factory() as db:
            row = db.get(Notification, job.row_id)
            if row is not None:
                row.status, row.error = status, error
                db.commit()
    return sent


# --------------------------------------------------------------------------- turn notices


def prompt_started(game: Game, deadline_iso: str) -> datetime:
    """When a decision began: its deadline minus the pace."""
    span = timedelta(seconds=lobby.PACES.get(game.pace, lobby.PACES["live"]) or 0)
    return datetime.fromisoformat(deadline_iso) - span


def last_notice(db: Session, user_id: int, game_id: int) -> datetime | None:
    return db.scalar(
        select(func.max(Notification.created_at)).where(
            Notification.user_id == user_id,
            Notification.game_id == game_id,
            Notification.kind == "turn",
        )
    )


def owed_turn_notices(db: Session, game: Game, now: datetime) -> list[tuple[Seat, datetime]]:
    """The seats of `game` whose person should now hear that it is their turn."""
    owed = []
    for key, deadline in (game.deadlines or {}).items():
        if deadline is None:
            continue  # a game with no clock
        seat = next((s for s in game.seats if s.index == int(key)), None)
        if seat is None or seat.user is None or not seat.user.notify_turns:
            continue
        started = prompt_started(game, deadline)
        if now - started < TURN_DELAY:
            continue
        last = last_notice(db, seat.user.id, game.id)
        if last is not None and (last >= started or now - last < PER_GAME_GAP):
            continue
        owed.append((seat, datetime.fromisoformat(deadline)))
    return owed


def claim_game(db: Session, game_id: int, settings: Settings, now: datetime) -> list[Job]:
    """Under the game's lock: record the turn notices owed now (the caller commits)."""
    game = gamelog.lock_game(db, game_id)
    if game.status != "active":
        return []
    jobs: list[Job] = []
    summary = lobby.game_summary(game)
    for seat, deadline in owed_turn_notices(db, game, now):
        user = seat.user
        assert user is not None
        url = f"{settings.base_url.rstrip('/')}/games/{game.id}"
        subject = f"Imperial Glory: your move in {summary['scenario_name']} #{game.id}"
        body = (
            f"{user.username}, the table is waiting for you ({seat.power}).\n\n"
            f"Decide before {deadline:%Y-%m-%d %H:%M} UTC, or the default applies.\n\n{url}\n"
        )
        payload = {
            "text": f"{user.username}: your move in {summary['scenario_name']} #{game.id} — {url}",
            "game_id": game.id,
            "seat": seat.index,
            "deadline": deadline.isoformat(),
            "url": url,
        }
        jobs += claim(db, settings, user, game.id, "turn", subject, body, payload)
    return jobs


def candidate_games(db: Session, now: datetime) -> list[int]:
    """Running games whose oldest pending decision has waited at least TURN_DELAY."""
    old_enough = [
        (Game.pace == pace) & (Game.next_deadline <= now + timedelta(seconds=span) - TURN_DELAY)
        for pace, span in lobby.PACES.items()
        if span is not None  # a game with no clock has no deadline
    ]
    return list(
        db.scalars(
            select(Game.id).where(
                Game.status == "active", Game.next_deadline.is_not(None), or_(*old_enough)
            )
        )
    )


# --------------------------------------------------------------------------- digests


def waiting_games(db: Session, user_id: int) -> list[Game]:
    return [g for g in lobby.my_games(db, user_id) if lobby.game_summary(g, user_id)["my_turn"]]


def claim_digest(db: Session, user_id: int, settings: Settings, now: datetime) -> list[Job]:
    """Take this user's digest for today (atomically: one process wins) and record it."""
    taken = db.execute(
        update(User)
        .where(
            User.id == user_id,
            User.daily_digest.is_(True),
            User.last_digest_at.is_(None) | (User.last_digest_at <= now - DIGEST_EVERY),
        )
        .values(last_digest_at=now)
    )
    if getattr(taken, "rowcount", 0) != 1:
        return []
    user = db.get(User, user_id)
    games = waiting_games(db, user_id)
    if user is None or not games:
        return []
    base = settings.base_url.rstrip("/")
    lines = [f"- {g.scenario} #{g.id}: {base}/games/{g.id}" for g in games]
    body = f"{user.username}, {len(games)} game(s) are waiting for you:\n\n" + "\n".join(lines)
    payload = {"text": body, "games": [g.id for g in games]}
    return claim(db, settings, user, None, "digest", "Imperial Glory: your games", body, payload)


# --------------------------------------------------------------------------- the loop


def run_once(
    factory: sessionmaker[Session], settings: Settings, now: datetime | None = None
) -> int:
    """Send every notice owed now; returns how many were sent."""
    now = now or utcnow()
    with factory() as db:
        game_ids = candidate_games(db, now)
        digest_users = list(
            db.scalars(
                select(User.id).where(
                    User.daily_digest.is_(True),
                    User.last_digest_at.is_(None) | (User.last_digest_at <= now - DIGEST_EVERY),
                )
            )
        )
    sent = 0
    for game_id in game_ids:
        sent += _claim_and_send(
            factory, settings, partial(claim_game, game_id=game_id, settings=settings, now=now)
        )
    for user_id in digest_users:
        sent += _claim_and_send(
            factory, settings, partial(claim_digest, user_id=user_id, settings=settings, now=now)
        )
    return sent


def _claim_and_send(
    factory: sessionmaker[Session], settings: Settings, take: Callable[[Session], list[Job]]
) -> int:
    with factory() as db:
        try:
            jobs = take(db)
            db.commit()
        except Exception:
            db.rollback()
            log.exception("claiming notices failed (%s)", take)
            return 0
    return send(factory, settings, jobs)
