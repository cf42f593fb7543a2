"""Accounts: sign up, log in (argon2, throttled), sessions, log out (here or
everywhere), password change and reset by e-mail, account deletion."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import math
import os
import re
import secrets
import threading
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.orm import Session

from app.services import emails, lobby, standins, timezones, unit, webhooks
from app.services.errors import Conflict, Invalid, Suspended, Throttled, Unauthorized
from app.store import accounts as store
from app.store.models import LoginFailure, User, UserSession
from app.store.types import utcnow

log = logging.getLogger(__name__)

USERNAME_RE = re.compile(r"^[A-Za-z0-9_-]{3,32}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
THROTTLE_FAILURES = 5
THROTTLE_WINDOW = timedelta(minutes=15)

_hasher = PasswordHasher()
#: argon2 computations at once. Each holds the hasher's memory cost (64 MiB) while it
#: runs: 40 sign-ups at once took a server from 100 MB to 1.3 GB. More at once than
#: there are cores gains no speed (the work is CPU), so the rest queue here.
HASHING_AT_ONCE = max(2, os.cpu_count() or 2)
_HASHING = threading.BoundedSemaphore(HASHING_AT_ONCE)


def hash_password(password: str) -> str:
    with _HASHING:
        return _hasher.hash(password)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_username(username: str) -> str:
    username = username.strip()
    if not USERNAME_RE.match(username) or username.lower().startswith("deleted-"):
        raise Invalid(
            "A username is 3 to 32 letters, digits, '-' or '_' (and does not start "
            "with 'deleted-').",
            code="bad_username",
            field="username",
        )
    return username


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise Invalid(
            f"A password needs at least {MIN_PASSWORD} characters.",
            code="weak_password",
            field="password",
        )
    if len(password) > MAX_PASSWORD:
        raise Invalid("That password is too long.", code="bad_password", field="password")


def signup(
    db: Session,
    username: str,
    password: str,
    email: str | None = None,
    time_zone: str | None = None,
) -> User:
    """A new account; ``time_zone`` is the zone her browser reported (``timezones.from_browser``:
    one the server does not know is left out, so the mails read UTC until she sets one)."""
    username = check_username(username)
    check_password(password)
    key = username.lower()
    if store.name_taken(db, key):
        raise Conflict(f"The name {username!r} is taken; choose another.", field="username")
    email = emails.normalise(email) if email and email.strip() else None
    user = User(
        username=username,
        username_key=key,
        password_hash=hash_password(password),
        email=email,
        time_zone=timezones.from_browser(time_zone),
    )
    db.add(user)
    db.flush()
    return user


def recent_failures(db: Session, key: str, ip: str, now: datetime) -> tuple[int, datetime | None]:
    """How many failed log-ins for the name `key` came from address `ip` within the
    throttling window, and the oldest of them."""
    count, oldest = store.failures_since(db, key, ip, now - THROTTLE_WINDOW)
    return int(count or 0), oldest


class LoginFailed(Unauthorized):
    """Wrong name or password. The failure row is in the session: commit it."""

    code = "wrong_password"


def authenticate(db: Session, username: str, password: str, ip: str) -> User:
    """The user, or LoginFailed (failure recorded) / Throttled (nothing recorded).

    The throttle counts failures per name AND address: it slows down the address that
    guesses, never the account (its owner logs in from any other address as before,
    issue 26; `ip` is the client's address as the trusted proxies give it)."""
    now = utcnow()
    key = username.strip().lower()[:64]
    failures, oldest = recent_failures(db, key, ip, now)
    if failures >= THROTTLE_FAILURES:
        if oldest is not None and oldest.tzinfo is None:
            oldest = oldest.replace(tzinfo=now.tzinfo)  # SQLite hands times back naive
        free_at = (oldest or now) + THROTTLE_WINDOW
        wait = max(1, math.ceil((free_at - now).total_seconds()))
        raise Throttled(
            f"Too many failed log-ins for this name from your address; try again in "
            f"{math.ceil(wait / 60)} minutes.",
            retry_after=wait,
        )
    user = store.user_named(db, key)
    ok = user is not None and verify_password(user, password)
    if not ok or user is None:
        db.add(LoginFailure(username_key=key, ip=ip, created_at=now))
        db.flush()
        raise LoginFailed("Wrong username or password.")
    if user.suspended_at is not None:
        # Told only to whoever knows the password: a guesser learns nothing of it.
        raise Suspended(suspended_message(user))
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
    store.forget_failures(db, key, ip)
    return user


def suspended_message(user: User) -> str:
    """What a suspended account is told when it tries to sign in."""
    reason = (user.suspended_reason or "").strip() or "no reason was given"
    return (
        f"This account is suspended by the moderators ({reason}). It cannot sign in "
        "until an admin lifts the suspension."
    )


def create_session(db: Session, user: User, days: int) -> tuple[str, UserSession]:
    """A new login: returns the cookie token (only its hash is stored) and the row."""
    token = secrets.token_urlsafe(32)
    row = UserSession(
        token_hash=hash_token(token),
        user_id=user.id,
        csrf_token=secrets.token_urlsafe(32),
        expires_at=utcnow() + timedelta(days=days),
    )
    db.add(row)
    db.flush()
    return token, row


def session_for_token(db: Session, token: str | None) -> UserSession | None:
    if not token:
        return None
    row = store.session_by_hash(db, hash_token(token))
    if row is None or row.expires_at <= utcnow():
        return None
    if row.user.suspended_at is not None:  # a session made while she was being suspended
        return None
    return row


def login_for_token(db: Session, token: str | None) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``session_for_token``'s answer as the columns of the session and of its user, in
    one statement and without ORM rows (what the login cache keeps and attaches)."""
    if not token:
        return None
    got = store.login_by_hash(db, hash_token(token))
    if got is None:
        return None
    login, user = got
    if login["expires_at"] <= utcnow() or user["suspended_at"] is not None:
        return None
    return got


def logout(db: Session, token: str | None) -> None:
    if token:
        store.delete_session(db, hash_token(token))


def fresh_session(
    db: Session, user: User, days: int, previous_token: str | None
) -> tuple[str, UserSession]:
    """Log in with a NEW session token, ending whatever session the request came with
    (no session fixation: a token planted or seen before the log-in is worthless after)."""
    logout(db, previous_token)
    return create_session(db, user, days)


def logout_everywhere(db: Session, user_id: int) -> int:
    """End every session of this user (every browser and device). Returns how many."""
    return store.delete_sessions_of(db, user_id)


def verify_password(user: User, password: str) -> bool:
    try:
        with _HASHING:
            return bool(_hasher.verify(user.password_hash, password))
    except (VerificationError, InvalidHashError):
        return False


def change_password(
    db: Session, user: User, current: str, new: str, days: int
) -> tuple[str, UserSession]:
    """Set a new password (the current one must be right). Every session ends, other
    devices included; the caller gets a fresh one for this browser."""
    if not verify_password(user, current):
        raise Invalid(
            "Your current password is not right.",
            code="wrong_password",
            field="current_password",
        )
    check_password(new)
    user.password_hash = hash_password(new)
    logout_everywhere(db, user.id)
    db.flush()
    return create_session(db, user, days)


# --------------------------------------------------------------------------- reset by e-mail

#: a reset link works this long, and once
RESET_VALID = timedelta(hours=1)


def _reset_signature(user: User, expires: int) -> str:
    # Keyed with the user's current password hash (random salt + hash, never sent
    # anywhere): the token dies as soon as the password changes, which makes it
    # single-use, and nobody without the database can forge one.
    key = hashlib.sha256(f"reset|{user.password_hash}".encode()).digest()
    mac = hmac.new(key, f"{user.id}.{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def reset_token(user: User, now: datetime | None = None) -> str:
    """`<user id>.<expiry, unix seconds>.<signature>`: valid RESET_VALID, once."""
    expires = int(((now or utcnow()) + RESET_VALID).timestamp())
    return f"{user.id}.{expires}.{_reset_signature(user, expires)}"


def request_reset(db: Session, who: str) -> tuple[User, str] | None:
    """The user named (by username or e-mail) and a reset token for them, when they
    have an e-mail address to send it to; None otherwise (the caller answers the
    same either way, so nobody learns which names or addresses exist)."""
    who = who.strip()
    if not who:
        return None
    by_email = "@" in who
    user = store.user_with_email(db, who) if by_email else store.user_named(db, who.lower()[:64])
    if user is None or not user.email or user.password_hash == DELETED_HASH:
        return None
    return user, reset_token(user)


def reset_password(db: Session, token: str, new: str, now: datetime | None = None) -> User:
    """Set the password from an e-mailed token. Every session of the user ends."""
    bad = Invalid(
        "This reset link is not valid: it was used already, has expired or was mistyped. "
        "Ask for a new one.",
        code="bad_reset_token",
        field="token",
    )
    parts = token.strip().split(".")
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
        raise bad
    user_id, expires = int(parts[0]), int(parts[1])
    if user_id > 2**31 - 1 or expires < (now or utcnow()).timestamp():
        raise bad
    user = db.get(User, user_id)
    if user is None or user.password_hash == DELETED_HASH:
        raise bad
    if not hmac.compare_digest(parts[2], _reset_signature(user, expires)):
        raise bad
    check_password(new)
    user.password_hash = hash_password(new)
    logout_everywhere(db, user.id)
    store.forget_failures(db, user.username_key)
    db.flush()
    return user


# --------------------------------------------------------------------------- deletion

#: the password hash of a deleted account: no password verifies against it
DELETED_HASH = "!deleted"


def delete_account(db: Session, user: User, password: str) -> list[tuple[int, int]]:
    """Delete an account, keeping the records of its games intact.

    The user row stays (games, actions and chat lines refer to it) but loses
    everything personal: the name becomes ``deleted-<id>``, the e-mail, webhook and
    password go, every session ends. Lobby games: the seat is freed (a game it hosts
    is cancelled). Running games: a stand-in bot plays the seat to the end. Finished
    games and their records are untouched (they show the new name).

    The whole deletion is one unit of work (app/services/unit.py): committed, then each
    game changed is published. Returns (game_id, version) of the games changed."""
    if not verify_password(user, password):
        raise Invalid("Your password is not right.", code="wrong_password", field="password")
    work = unit.Work(db)
    game_ids = store.games_in_play(db, user.id)
    for game_id in sorted(set(game_ids)):
        game = work.take(game_id)
        if game.status == "lobby":
            lobby.leave(db, game, user)
        elif game.status == "active":
            seat = lobby.seat_of(game, user.id)
            if seat is None or seat.standin is not None:
                continue
            # A stand-in plays her seat to the end, said to the table (stand-in counts).
            standins.stand_in(db, game, seat, "deleted", work.now)
        else:
            continue
        work.changed(game)
    old_key = user.username_key
    user.username = user.username_key = f"deleted-{user.id}"
    user.password_hash = DELETED_HASH
    user.email = None
    user.webhook_url = None
    user.notify_turns = False
    user.daily_digest = False
    logout_everywhere(db, user.id)
    store.forget_failures(db, old_key)
    changed = sorted(work.commit().items())
    log.info("account %s deleted (anonymised)", user.id)
    return changed


def update_preferences(
    db: Session,
    user: User,
    email: str | None = None,
    webhook_url: str | None = None,
    notify_turns: bool | None = None,
    daily_digest: bool | None = None,
    allow_private_webhooks: bool = False,
    notify_standin: bool | None = None,
    time_zone: str | None = None,
) -> User:
    """Change the notice settings; None leaves a field as it is, "" clears a text field
    (a time zone cleared is UTC)."""
    if email is not None:
        user.email = emails.normalise(email) if email.strip() else None
    if webhook_url is not None:
        user.webhook_url = webhooks.saved_url(webhook_url, allow_private_webhooks)
    if notify_turns is not None:
        user.notify_turns = notify_turns
    if daily_digest is not None:
        user.daily_digest = daily_digest
    if notify_standin is not None:
        user.notify_standin = notify_standin
    if time_zone is not None:
        user.time_zone = timezones.check(time_zone)
    db.flush()
    return user


def purge(db: Session, now: datetime | None = None) -> tuple[int, int]:
    """Housekeeping: delete expired sessions and log-in failures older than the
    throttling window. Returns (sessions, failures) deleted."""
    now = now or utcnow()
    return store.purge(db, now, now - THROTTLE_WINDOW)
