"""The session-cookie lookup, cached in memory (every request and every socket action
looks its session up; most of them are the same few sessions over and over).

``session_for_token`` answers what ``accounts.session_for_token`` answers; a hit costs
no query: the cached columns of the session and its user are attached to the caller's
session (``merge(load=False)``), so routes use them like loaded rows.

Invalidation:
- any delete of a session row (log-out, purge) or change of a user or session made
  through the ORM in this process clears the cache, at once and again after commit; a
  generation counter keeps a lookup that started before the clear from putting its
  stale answer back;
- other processes learn of a log-out by a NOTIFY (``app/realtime/pg.py``) and clear
  theirs. While this process hears them (its LISTEN connection is up: ``hearing``), an
  entry lives ``HEARD_TTL_S``; the cache is cleared when the connection is lost and
  again when it is back (a NOTIFY may have been missed between). Without one (SQLite,
  or PostgreSQL before its LISTEN is up) an entry lives at most ``TTL_S``: what a
  command-line process changed reaches no cache by any other way.
- an entry is never used past the session's own ``expires_at``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, make_transient_to_detached

from app.services import accounts
from app.store.models import User, UserSession
from app.store.types import utcnow

#: the cookie that carries a session's token (HTTP requests and sockets alike)
SESSION_COOKIE = "ig_session"
#: seconds an entry lives at most (bounds what another process's change can leave)
TTL_S = 10.0
#: the same while this process hears the other processes' log-outs by NOTIFY: a
#: person's socket action then finds her login cached even a few minutes apart
HEARD_TTL_S = 300.0
MAX_ENTRIES = 10_000

_lock = threading.Lock()
_entries: dict[str, tuple[float, dict[str, Any], dict[str, Any]]] = {}
_generation = 0
_heard = False
#: called after a commit that logged someone out (the realtime runtime tells others)
on_logout: list[Any] = []


def clear() -> None:
    global _generation
    with _lock:
        _generation += 1
        _entries.clear()


def hearing(heard: bool) -> None:
    """The LISTEN connection is up (`heard`) or lost: entries live ``HEARD_TTL_S`` or
    ``TTL_S`` from now on, and what is cached goes (a NOTIFY may have been missed)."""
    global _heard
    with _lock:
        _heard = heard
    clear()


def _hit(token: str | None) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The cached columns of ``token``'s session and user, if live."""
    if not token:
        return None
    with _lock:
        hit = _entries.get(accounts.hash_token(token))
    if hit is not None and hit[0] > time.monotonic() and hit[1]["expires_at"] > utcnow():
        return hit[1], hit[2]
    return None


def cached(db: Session, token: str | None) -> UserSession | None:
    """The login for ``token`` from the cache alone (no query), or None on a miss."""
    hit = _hit(token)
    return _attach(db, *hit) if hit is not None else None


def user_id_for_token(db: Session, token: str | None) -> int | None:
    """Whose session ``token`` is, and nothing more (a socket's action checks only
    that): a hit skips building and attaching the ORM rows, which is most of a hit's
    cost (about 0.15 ms)."""
    hit = _hit(token)
    if hit is not None:
        user_id: int = hit[0]["user_id"]
        return user_id
    login = session_for_token(db, token)
    return login.user_id if login is not None else None


def session_for_token(db: Session, token: str | None) -> UserSession | None:
    with _lock:
        generation = _generation
    hit = cached(db, token)
    if hit is not None or not token:
        return hit
    # A miss reads the columns the cache keeps in one statement and attaches them as a
    # hit does: a miss costs one query, not two and the ORM's loading of both rows (a
    # socket's action misses whenever its person moved more than TTL_S ago).
    got = accounts.login_for_token(db, token)
    if got is None:
        return None
    values, user = got
    with _lock:
        if generation == _generation:
            if len(_entries) >= MAX_ENTRIES:
                _entries.clear()
            ttl = HEARD_TTL_S if _heard else TTL_S
            _entries[accounts.hash_token(token)] = (time.monotonic() + ttl, values, user)
    return _attach(db, values, user)


def _attach(db: Session, values: dict[str, Any], user_values: dict[str, Any]) -> UserSession:
    user = User(**user_values)
    make_transient_to_detached(user)
    login = UserSession(**values)
    login.user = user
    make_transient_to_detached(login)
    return db.merge(login, load=False)


_DIRTY = "ig_logins_dirty"


@event.listens_for(Session, "do_orm_execute")
def _on_execute(state: ORMExecuteState) -> None:
    mapper = state.bind_mapper
    writes = state.is_delete or state.is_update
    if writes and mapper is not None and mapper.class_ in (UserSession, User):
        clear()
        state.session.info[_DIRTY] = True


@event.listens_for(Session, "after_flush")
def _on_flush(db: Session, _context: Any) -> None:
    if any(isinstance(o, (UserSession, User)) for o in (*db.dirty, *db.deleted)):
        clear()
        db.info[_DIRTY] = True


@event.listens_for(Session, "after_commit")
def _on_commit(db: Session) -> None:
    if db.info.pop(_DIRTY, None):
        clear()
        for hook in list(on_logout):
            with contextlib.suppress(Exception):  # telling others never fails a commit
                hook()


@event.listens_for(Session, "after_rollback")
def _on_rollback(db: Session) -> None:
    db.info.pop(_DIRTY, None)
