"""Notices for people who are away: "your turn" by e-mail (SMTP, or the development
sink of app/services/mailsink.py) and webhook, at most one per game per hour; "a
stand-in played for you" when a bot takes an absent person's seat; a game's own
chat-channel hook ("Parthia (alice) to move, 23 h left"); an optional daily digest.

A decision earns a notice once it has waited `TURN_DELAY` (someone at the table
usually answers sooner, so live players are not mailed). `run_once` runs from the
web app's background loop in every process; the game-row lock and the notices
table keep two processes from sending the same notice. A stand-in notice is queued
in the stand-in's own transaction (`standin_played`) and sent by the loop.

Webhook bodies carry the message as both ``content`` (what a Discord incoming webhook
reads) and ``text`` (Slack's), so one URL of either works as it is.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate
from functools import partial
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.services import clocks, emails, gamelog, lobby, mailsink, timezones, webhooks
from app.services.errors import Invalid
from app.store import notices
from app.store.models import Game, Notification, Seat, User
from app.store.types import utcnow

log = logging.getLogger(__name__)

TURN_DELAY = timedelta(minutes=1)
PER_GAME_GAP = timedelta(hours=1)
DIGEST_EVERY = timedelta(hours=24)


# --------------------------------------------------------------------------- channels


def send_email(
    settings: Settings, to: str, subject: str, body: str, account: int | None = None
) -> None:
    """By SMTP, or into the development sink when no SMTP server is configured, marked
    there as `account`'s mail (the user it is for): /dev/mail shows a person only hers."""
    if not settings.can_mail:
        raise RuntimeError("no SMTP server is configured (SMTP_HOST)")
    if not emails.is_one_address(to):  # a row stored before addresses were checked
        log.warning("no mail sent to %r: it is not one valid e-mail address", to[:80])
        return
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False)
    message.set_content(body)
    if settings.smtp_host:
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=10) as smtp:
            smtp.send_message(message)
    else:
        mailsink.deliver(settings.mail_sink or "", message, account=account)


def chat_payload(text: str, **fields: Any) -> dict[str, Any]:
    """A webhook body both Discord (``content``) and Slack (``text``) incoming webhooks
    accept; the other fields are for a receiver of one's own (both services ignore
    them)."""
    return {"content": text, "text": text, **fields}


def time_left(span: timedelta) -> str:
    """ "23 h left", "14 min left": a whole number, rounded down."""
    seconds = span.total_seconds()
    if seconds >= 2 * 3600:
        return f"{int(seconds // 3600)} h left"
    if seconds >= 60:
        return f"{int(seconds // 60)} min left"
    return "less than a minute left"


def channels(user: User, settings: Settings) -> list[str]:
    found = []
    if user.email and settings.can_mail:
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
    #: the user it is for (the mail sink shows a person only her own mails)
    account: int | None = None


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
        jobs.append(Job(row.id, channel, target or "", subject, body, payload, user.id))
    return jobs


def send(factory: sessionmaker[Session], settings: Settings, jobs: list[Job]) -> int:
    """Send claimed notices (no transaction is open meanwhile); record the outcome."""
    sent = 0
    for job in jobs:
        status, error = "sent", None
        try:
            if job.channel == "email":
                send_email(settings, job.target, job.subject, job.body, job.account)
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


def prompt_started(game: Game, deadline_iso: str, seat: int | None = None) -> datetime:
    """When a decision began: the seat's clock started then (app/services/clocks.py);
    for a row without it, its deadline minus the pace's bank."""
    return decision_started(game.pace, game.clocks, deadline_iso, seat)


def decision_started(
    pace: str, game_clocks: dict[str, Any] | None, deadline_iso: str, seat: int | None
) -> datetime:
    """`prompt_started` from a game row's columns."""
    since = ((game_clocks or {}).get("since") or {}).get(str(seat))
    if since:
        return datetime.fromisoformat(since)
    tc = clocks.control(pace)
    return datetime.fromisoformat(deadline_iso) - timedelta(seconds=tc.start if tc else 0)


def last_notice(db: Session, user_id: int, game_id: int) -> datetime | None:
    return notices.last_sent(db, user_id, game_id, "turn")


def owed_turn_notices(db: Session, game: Game, now: datetime) -> list[tuple[Seat, datetime]]:
    """The seats of `game` whose person should now hear that it is their turn."""
    owed = []
    for key, deadline in (game.deadlines or {}).items():
        if deadline is None:
            continue  # a game with no clock
        seat = next((s for s in game.seats if s.index == int(key)), None)
        if seat is None or seat.user is None or not seat.user.notify_turns:
            continue  # (the table's own hook is claim_table's, whatever this says)
        started = prompt_started(game, deadline, int(key))
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
            f"{user.username}, the table is waiting for you: {table_line(seat, deadline, now)}.\n\n"
            f"Decide before {timezones.local(deadline, user.time_zone)}; after that your standing orders "
            f"and a stand-in bot play for you until you are back.\n\n{url}\n"
        )
        payload = chat_payload(
            f"{user.username}: your move in {summary['scenario_name']} #{game.id} — {url}",
            game_id=game.id,
            seat=seat.index,
            deadline=deadline.isoformat(),
            url=url,
        )
        jobs += claim(db, settings, user, game.id, "turn", subject, body, payload)
    return jobs + claim_table(db, game, settings, now)


# --------------------------------------------------------------------------- the table's hook


def table_line(seat: Seat, deadline: datetime | None, now: datetime) -> str:
    """ "Parthia (alice) to move, 23 h left"."""
    power = lobby.power_name_or_none(seat) or f"Seat {seat.index + 1}"
    name = seat.user.username if seat.user else "a bot"
    left = time_left(deadline - now) if deadline is not None else "no clock"
    return f"{power} ({name}) to move, {left}"


def table_payload(game: Game, lines: list[str], url: str) -> dict[str, Any]:
    summary = lobby.game_summary(game)
    title = f"{summary['scenario_name']} #{game.id}"
    return chat_payload(f"{title}: " + "; ".join(lines) + f" — {url}", game_id=game.id, url=url)


def last_table_notice(db: Session, game_id: int, user_id: int) -> datetime | None:
    return notices.last_sent(db, user_id, game_id, "table")


def claim_table(db: Session, game: Game, settings: Settings, now: datetime) -> list[Job]:
    """One post to the game's own hook naming every person whose decision has waited
    a minute (once per decision, at most once an hour per seat)."""
    if not game.webhook_url:
        return []
    owed: list[tuple[Seat, datetime]] = []
    for key, deadline in (game.deadlines or {}).items():
        seat = next((s for s in game.seats if s.index == int(key)), None)
        if deadline is None or seat is None or seat.user is None:
            continue
        started = prompt_started(game, deadline, int(key))
        if now - started < TURN_DELAY:
            continue
        last = last_table_notice(db, game.id, seat.user.id)
        if last is not None and (last >= started or now - last < PER_GAME_GAP):
            continue
        owed.append((seat, datetime.fromisoformat(deadline)))
    if not owed:
        return []
    url = f"{settings.base_url.rstrip('/')}/games/{game.id}"
    payload = table_payload(game, [table_line(s, d, now) for s, d in owed], url)
    first = None
    for seat, _ in owed:
        assert seat.user is not None
        row = Notification(user_id=seat.user.id, game_id=game.id, kind="table", channel="webhook")
        db.add(row)
        db.flush()
        first = first or row.id
    assert first is not None
    return [Job(first, "webhook", game.webhook_url, "", "", payload)]


def set_table_hook(db: Session, game: Game, user_id: int, url: str, allow_private: bool) -> None:
    """A seated person sets (or, with "", clears) the game's chat-channel hook."""
    if lobby.seat_of(game, user_id) is None:
        raise Invalid("Only the people seated at this table can set its webhook.")
    game.webhook_url = webhooks.saved_url(url, allow_private)
    db.flush()


def example_line(game: Game, username: str) -> str:
    """What the channel will hear when it is `username`'s move, with a full bank: e.g.
    "Kushan (alice) to move, 24 h left" (not a stranger's power and another pace)."""
    seat = next((s for s in game.seats if s.user is not None and s.user.username == username), None)
    tc = clocks.control(game.pace)
    left = time_left(timedelta(seconds=tc.start)) if tc else "no clock"
    power = (lobby.power_name_or_none(seat) if seat is not None else None) or "Seat 1"
    return f"{power} ({username}) to move, {left}"


def table_test(game: Game, username: str, settings: Settings) -> Callable[[], None]:
    """The test post to the game's hook, ready to send (after the caller has ended its
    transaction: nothing stays open while a remote server answers). Raises Invalid
    when the table has no hook."""
    if not game.webhook_url:
        raise Invalid("This table has no webhook yet: save one first.", field="webhook_url")
    url = f"{settings.base_url.rstrip('/')}/games/{game.id}"
    summary = lobby.game_summary(game)
    text = (
        f"{summary['scenario_name']} #{game.id}: a test from {username}. This channel will "
        f'hear whose move it is ("{example_line(game, username)}"). {url}'
    )
    target, payload = game.webhook_url, chat_payload(text, game_id=game.id, url=url, test=True)
    return partial(
        _deliver_test,
        partial(webhooks.post, target, payload, settings.webhook_allow_private),
    )


def test_personal(user: User, channel: str, settings: Settings) -> None:
    """Send the user a test notice by e-mail or on their own webhook now."""
    url = f"{settings.base_url.rstrip('/')}/account"
    text = f"{user.username}, this is a test notice from Imperial Glory. Your settings: {url}"
    if channel == "email":
        if not user.email:
            raise Invalid("Save an e-mail address first.", field="email")
        if not settings.can_mail:
            raise Invalid("This server sends no e-mail (its operator set no SMTP_HOST).")
        _deliver_test(
            lambda: send_email(
                settings, user.email or "", "Imperial Glory: a test notice", text, user.id
            )
        )
    else:
        if not user.webhook_url:
            raise Invalid("Save a webhook URL first.", field="webhook_url")
        _deliver_test(
            lambda: webhooks.post(
                user.webhook_url or "",
                chat_payload(text, url=url, test=True),
                settings.webhook_allow_private,
            )
        )


def _deliver_test(send_now: Callable[[], None]) -> None:
    try:
        send_now()
    except webhooks.UnsafeWebhook as exc:
        raise Invalid(str(exc)) from exc
    except Exception as exc:  # the person should see why, in plain words
        raise Invalid(f"The test did not go through: {type(exc).__name__}: {exc}"[:300]) from exc


# --------------------------------------------------------------------------- stand-in notices


def standin_played(db: Session, game: Game, seat: Seat) -> None:
    """Queue "you are away and a stand-in played" for the seat's person (in the
    caller's transaction, so it goes out only if the stand-in does); the notice loop
    sends it. Called where a stand-in takes a seat (app/services/standins.py)."""
    user = db.get(User, seat.user_id) if seat.user_id is not None else None
    if user is None or not user.notify_standin:
        return
    for channel in ("email", "webhook"):
        if (channel == "email" and user.email) or (channel == "webhook" and user.webhook_url):
            db.add(
                Notification(
                    user_id=user.id,
                    game_id=game.id,
                    kind="standin",
                    channel=channel,
                    status="queued",
                )
            )
    db.flush()


#: why a stand-in took her seat, as the mail's subject and first line say it (issue 40:
#: the mail after a table vote did not say the table voted); keys as ``standins.WHY``
SUBJECT_WHY = {
    "vote": "the table voted you a stand-in",
    "time": "your time ran out",
    "gone": "you left the table",
}
BODY_WHY = {
    "vote": "the table voted to hand your seat in {title} to a stand-in while the game waited "
    "for you",
    "time": "your time ran out when {title} needed you",
    "gone": "your page of {title} was closed while the game waited for you",
    "away": "you were away when {title} needed you",
}


def standin_why(game: Game, seat: Seat | None) -> str | None:
    """Why a stand-in plays ``seat`` now (the clocks' record of who is away: time, vote,
    gone …), or None when it no longer does."""
    away = ((game.clocks or {}).get("away") or {}) if seat is not None else {}
    entry = away.get(str(seat.index)) if seat is not None else None
    return str(entry.get("why")) if isinstance(entry, dict) and entry.get("why") else None


def standin_job(db: Session, row: Notification, settings: Settings) -> Job | None:
    """The message of a queued stand-in notice, or None when there is no one to tell."""
    user = db.get(User, row.user_id)
    game = db.get(Game, row.game_id) if row.game_id is not None else None
    if user is None or game is None:
        return None
    seat = lobby.seat_of(game, user.id)
    power = (lobby.power_name_or_none(seat) if seat else None) or "your power"
    summary = lobby.game_summary(game)
    title = f"{summary['scenario_name']} #{game.id}"
    url = f"{settings.base_url.rstrip('/')}/games/{game.id}"
    why = standin_why(game, seat) or ""
    said = SUBJECT_WHY.get(why, "you are away")
    line = BODY_WHY.get(why, BODY_WHY["away"]).format(title=title)
    subject = f"Imperial Glory: {said}, a bot plays {power} for you in {title}"
    body = (
        f"{user.username}, {line}, so a stand-in bot "
        f"now plays {power} for you; the table goes on.\n\n"
        f"Take your seat back by opening the game: the stand-in steps aside as soon as "
        f'your page is open ("I\'m back" or a move of yours does it too):\n\n'
        f"{url}\n\n"
        f"Standing orders (what to do when attacked, how to vote) let the server answer "
        f"for you next time: {url}/orders\n"
    )
    text = f"{user.username}: {said}, a bot plays {power} for you in {title} — {url}"
    target = user.email if row.channel == "email" else user.webhook_url
    if not target:
        return None
    payload = chat_payload(text, game_id=game.id, url=url)
    return Job(row.id, row.channel, target, subject, body, payload, user.id)


def claim_queued(db: Session, row_id: int, settings: Settings) -> list[Job]:
    """Take one queued notice (atomically: one process wins) and build its message."""
    if not notices.claim_queued(db, row_id):
        return []
    row = db.get(Notification, row_id)
    job = standin_job(db, row, settings) if row is not None else None
    if job is None and row is not None:
        row.status, row.error = "failed", "nobody to tell"
    return [job] if job is not None else []


def candidate_games(db: Session, now: datetime) -> list[int]:
    """Running games where a notice may be owed: a decision has waited at least
    TURN_DELAY, and its person has had no turn notice about the game since it began
    (nor within PER_GAME_GAP), or the game has a table hook. Read without locks from
    the rows' clocks and the notices sent: only these games are then locked and looked
    at again (`claim_game`), not every running game at every pass (at 200 live games,
    a tenth of the process's time, and a lock each move had to wait for)."""
    cutoffs = [
        (pace, now + timedelta(seconds=clocks.longest(tc)) - TURN_DELAY)
        for pace, tc in lobby.PACES.items()
        if tc is not None  # a game with no clock has no deadline
    ]
    waiting: dict[int, list[tuple[int, datetime]]] = {}
    hooked: set[int] = set()
    for game_id, pace, deadlines, game_clocks, hook in notices.games_waiting(db, cutoffs):
        for key, deadline in (deadlines or {}).items():
            if deadline is None:
                continue
            started = decision_started(pace, game_clocks, deadline, int(key))
            if now - started >= TURN_DELAY:
                waiting.setdefault(game_id, []).append((int(key), started))
        if hook and game_id in waiting:
            hooked.add(game_id)
    last = notices.last_turn_notices(db, sorted(set(waiting) - hooked))
    owed = set(hooked)
    for game_id, seats in waiting.items():
        for seat, started in seats:
            user_id, sent = last.get((game_id, seat), (None, None))
            if user_id is None and game_id not in hooked:
                continue  # a bot's seat, or an empty one
            if sent is None or (sent < started and now - sent >= PER_GAME_GAP):
                owed.add(game_id)
    return sorted(owed)


# --------------------------------------------------------------------------- digests


def waiting_games(db: Session, user_id: int) -> list[Game]:
    return [g for g in lobby.my_games(db, user_id) if lobby.game_summary(g, user_id)["my_turn"]]


def claim_digest(db: Session, user_id: int, settings: Settings, now: datetime) -> list[Job]:
    """Take this user's digest for today (atomically: one process wins) and record it."""
    if not notices.claim_digest(db, user_id, now, DIGEST_EVERY):
        return []
    user = db.get(User, user_id)
    games = waiting_games(db, user_id)
    if user is None or not games:
        return []
    base = settings.base_url.rstrip("/")
    lines = [f"- {g.scenario} #{g.id}: {base}/games/{g.id}" for g in games]
    body = f"{user.username}, {len(games)} game(s) are waiting for you:\n\n" + "\n".join(lines)
    payload = chat_payload(body, games=[g.id for g in games])
    return claim(db, settings, user, None, "digest", "Imperial Glory: your games", body, payload)


# --------------------------------------------------------------------------- the loop


def run_once(
    factory: sessionmaker[Session], settings: Settings, now: datetime | None = None
) -> int:
    """Send every notice owed now; returns how many were sent."""
    now = now or utcnow()
    with factory() as db:
        game_ids = candidate_games(db, now)
        digest_users = notices.digest_users(db, now, DIGEST_EVERY)
        queued = notices.queued(db, 100)
    sent = 0
    for row_id in queued:
        sent += _claim_and_send(
            factory, settings, partial(claim_queued, row_id=row_id, settings=settings)
        )
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
