"""Accounts: sign up, log in (argon2, throttled), sessions, log out."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.services import webhooks
from app.services.errors import Conflict, Invalid, Throttled, Unauthorized
from app.store.models import LoginFailure, User, UserSession
from app.store.types import utcnow

USERNAME_RE = re.compile(r"^[A-Za-z0-9_-]{3,32}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
THROTTLE_FAILURES = 5
THROTTLE_WINDOW = timedelta(minutes=15)

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_username(username: str) -> str:
    username = username.strip()
    if not USERNAME_RE.match(username):
        raise Invalid(
            "A username is 3 to 32 letters, digits, '-' or '_'.",
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


def signup(db: Session, username: str, password: str, email: str | None = None) -> User:
    username = check_username(username)
    check_password(password)
    key = username.lower()
    if db.scalar(select(User.id).where(User.username_key == key)) is not None:
        raise Conflict(f"The name {username!r} is taken; choose another.", field="username")
    email = (email or "").strip() or None
    if email is not None and ("@" not in email or len(email) > 254):
        raise Invalid("That e-mail address does not look right.", field="email")
    user = User(
        username=username, username_key=key, password_hash=hash_password(password), email=email
    )
    db.add(user)
    db.flush()
    return user


def recent_failures(db: Session, key: str, ip: str, now: datetime) -> int:
    return (
        db.scalar(
            select(func.count(LoginFailure.id)).where(
                LoginFailure.username_key == key,
                LoginFailure.ip == ip,
                LoginFailure.created_at > now - THROTTLE_WINDOW,
            )
        )
        or 0
    )


class LoginFailed(Unauthorized):
    """Wrong name or password. The failure row is in the session: commit it."""

    code = "wrong_password"


def authenticate(db: Session, username: str, password: str, ip: str) -> User:
    """The user, or LoginFailed (failure recorded) / Throttled (nothing recorded)."""
    now = utcnow()
    key = username.strip().lower()[:64]
    if recent_failures(db, key, ip, now) >= THROTTLE_FAILURES:
        minutes = int(THROTTLE_WINDOW.total_seconds() // 60)
        raise Throttled(
            f"Too many failed log-ins for this name from your address; "
            f"try again in {minutes} minutes."
        )
    user = db.scalar(select(User).where(User.username_key == key))
    ok = False
    if user is not None:
        try:
            ok = _hasher.verify(user.password_hash, password)
        except (VerificationError, InvalidHashError):
            ok = False
    if not ok or user is None:
        db.add(LoginFailure(username_key=key, ip=ip, created_at=now))
        db.flush()
        raise LoginFailed("Wrong username or password.")
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
    db.execute(delete(LoginFailure).where(LoginFailure.username_key == key, LoginFailure.ip == ip))
    return user


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
    row = db.scalar(select(UserSession).where(UserSession.token_hash == hash_token(token)))
    if row is None or row.expires_at <= utcnow():
        return None
    return row


def logout(db: Session, token: str | None) -> None:
    if token:
        db.execute(delete(UserSession).where(UserSession.token_hash == hash_token(token)))


def update_preferences(
    db: Session,
    user: User,
    email: str | None = None,
    webhook_url: str | None = None,
    notify_turns: bool | None = None,
    daily_digest: bool | None = None,
    allow_private_webhooks: bool = False,
) -> User:
    """Change the notice settings; None leaves a field as it is, "" clears a text field."""
    if email is not None:
        email = email.strip()
        if email and ("@" not in email or len(email) > 254):
            raise Invalid("That e-mail address does not look right.", field="email")
        user.email = email or None
    if webhook_url is not None:
        webhook_url = webhook_url.strip()
        if webhook_url and not re.match(r"^https?://[^\s/]+", webhook_url):
            raise Invalid("A webhook is an http:// or https:// URL.", field="webhook_url")
        if len(webhook_url) > 500:
            raise Invalid("That URL is too long.", field="webhook_url")
        if webhook_url:
            try:
                webhooks.check_saved(webhook_url, allow_private_webhooks)
            except webhooks.UnsafeWebhook as exc:
                raise Invalid(str(exc), field="webhook_url") from exc
        user.webhook_url = webhook_url or None
    if notify_turns is not None:
        user.notify_turns = notify_turns
    if daily_digest is not None:
        user.daily_digest = daily_digest
    db.flush()
    return user


def purge(db: Session, now: datetime | None = None) -> tuple[int, int]:
    """Housekeeping: delete expired sessions and log-in failures older than the
    throttling window. Returns (sessions, failures) deleted."""
    now = now or utcnow()
    sessions = db.execute(delete(UserSession).where(UserSession.expires_at <= now))
    failures = db.execute(
        delete(LoginFailure).where(LoginFailure.created_at <= now - THROTTLE_WINDOW)
    )
    return getattr(sessions, "rowcount", 0) or 0, getattr(failures, "rowcount", 0) or 0
