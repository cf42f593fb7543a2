"""Request dependencies: settings, the database session, the logged-in user, CSRF.

The request owns the transaction: a router calls the service, then ``db.commit()``,
then publishes; anything raised before the commit is rolled back when the
session closes.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session

from app.config import Settings
from app.services import logins, ratelimit
from app.services.errors import Forbidden, Unauthorized
from app.services.logins import SESSION_COOKIE
from app.store import blocking
from app.store.models import User, UserSession

log = logging.getLogger(__name__)

#: double-submit CSRF cookie for forms sent before logging in (sign up, log in)
ANON_CSRF_COOKIE = "ig_csrf"
CSRF_HEADER = "X-CSRF-Token"


# The dependencies below are ``async def`` because they do no I/O on their common
# path: FastAPI runs a plain ``def`` dependency in the thread pool, one hand-off per
# dependency and two for a generator, which cost more than the work itself (five or
# six per request, about a tenth of an API request's CPU). Where one may touch the
# database (a session to end, a login not in the cache) it goes to the pool for that.


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(get_settings)]


def _end(db: Session) -> None:
    db.rollback()
    db.close()


async def get_db(request: Request) -> AsyncIterator[Session]:
    """A session for the request; the router commits. Making one opens no connection;
    ending one that holds none (committed, or never used) does no I/O, so only a
    session still in a transaction is ended in the thread pool."""
    db: Session = request.app.state.sessionmaker()
    try:
        yield db
    finally:
        await end_session(db)


async def end_session(db: Session) -> None:
    """Roll back what was not committed and close; on the loop unless there is I/O
    to wait for (a database server's session still in a transaction)."""
    if db.in_transaction():
        await blocking.call(blocking.inline(db), _end, db)
    else:
        _end(db)


DB = Annotated[Session, Depends(get_db)]


async def get_login(request: Request, db: DB) -> UserSession | None:
    # Cached in memory, cleared on log-out (app/services/logins.py); a miss reads
    # the database in the thread pool.
    token = request.cookies.get(SESSION_COOKIE)
    hit = logins.cached(db, token)
    if hit is not None or not token:
        return hit
    return await run_in_threadpool(logins.session_for_token, db, token)


Login = Annotated[UserSession | None, Depends(get_login)]


async def optional_user(login: Login) -> User | None:
    return login.user if login else None


MaybeUser = Annotated[User | None, Depends(optional_user)]


async def require_login(login: Login) -> UserSession:
    if login is None:
        raise Unauthorized("Log in first.")
    return login


RequiredLogin = Annotated[UserSession, Depends(require_login)]


async def require_user(login: RequiredLogin) -> User:
    return login.user


CurrentUser = Annotated[User, Depends(require_user)]


def same_token(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(str(a), str(b))


async def api_csrf(
    login: RequiredLogin,
    x_csrf_token: Annotated[str | None, Header(alias=CSRF_HEADER)] = None,
) -> UserSession:
    """JSON API writes carry the session's CSRF token in the X-CSRF-Token header."""
    if not same_token(x_csrf_token, login.csrf_token):
        raise Forbidden(
            "Missing or wrong CSRF token: send the X-CSRF-Token header "
            "(from GET /api/me or the login response)."
        )
    return login


CsrfChecked = Annotated[UserSession, Depends(api_csrf)]


def csrf_token_for(request: Request, login: UserSession | None) -> str:
    """The token a page embeds in its forms (and its meta tag)."""
    if login is not None:
        return login.csrf_token
    token = request.cookies.get(ANON_CSRF_COOKIE) or getattr(request.state, "anon_csrf", None)
    if not token:
        token = secrets.token_urlsafe(24)
        request.state.anon_csrf = token  # set as a cookie by the template renderer
    return str(token)


def form_csrf_ok(request: Request, login: UserSession | None, submitted: str | None) -> bool:
    expected = login.csrf_token if login else request.cookies.get(ANON_CSRF_COOKIE)
    return same_token(submitted, expected)


def client_ip(request: Request) -> str:
    """The client's address as the per-address limits count it: the peer's, or the
    one a trusted proxy names in X-Forwarded-For (uvicorn's proxy headers,
    ``TRUSTED_PROXIES``); an IPv6 address by its /64 (``ratelimit.address_key``)."""
    return ratelimit.address_key(request.client.host) if request.client else "unknown"
