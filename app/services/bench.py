"""Bench-only accounts: many logged-in users at once, for a load test's clients.

``bench/ws_fanout.py`` plays 1,000 six-seat games, one person a seat: 6,000 accounts.
Signing each up costs an argon2 hash (about 50 ms of a core and 64 MiB while it runs,
queued ``HASHING_AT_ONCE`` at a time): minutes of a 2-core machine before the first
move. Here every account gets the hash of one bench password (``BENCH_PASSWORD``),
computed once per process, and a session, all in one transaction: the accounts are
ordinary rows (log-in with that password works), only cheap to make.

Reachable only through ``POST /api/bench/accounts`` (``app/web/routes/bench.py``),
which answers 404 unless the ``BENCH_ACCOUNTS`` setting is on; nothing else calls this.
Never commits: the router does.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from sqlalchemy.orm import Session

from app.services import accounts
from app.services.errors import Conflict, Invalid
from app.store import bench as store
from app.store.types import utcnow

#: the one password of every bench account (only its hash is stored, as for anyone)
BENCH_PASSWORD = "bench horse 1"
#: accounts per request: 1,000 games of six seats with room to spare, in one transaction
MAX_ACCOUNTS = 10_000
#: a prefix leaves room for the index: ``prefix`` + up to 5 digits within 32 characters
PREFIX_RE = re.compile(r"^[A-Za-z0-9_-]{3,24}$")


@dataclass(frozen=True)
class BenchAccount:
    user_id: int
    username: str
    #: the session cookie's value (only its hash is stored)
    token: str
    csrf_token: str


@cache
def bench_password_hash() -> str:
    """The argon2 hash of BENCH_PASSWORD, computed once per process (with the hasher's
    current parameters, so a log-in does not rehash it) and shared by every account."""
    return accounts.hash_password(BENCH_PASSWORD)


def names(prefix: str, count: int) -> list[str]:
    """``prefix0`` .. ``prefix{count-1}``: valid usernames, or Invalid naming the field."""
    if not PREFIX_RE.match(prefix) or prefix.lower().startswith("deleted-"):
        raise Invalid(
            "A prefix is 3 to 24 letters, digits, '-' or '_'.", code="bad_prefix", field="prefix"
        )
    if not 1 <= count <= MAX_ACCOUNTS:
        raise Invalid(f"count is 1 to {MAX_ACCOUNTS}.", code="bad_count", field="count")
    return [f"{prefix}{i}" for i in range(count)]


def create_accounts(db: Session, prefix: str, count: int, days: int) -> list[BenchAccount]:
    """`count` new users named ``prefix0``.. with the bench password, each logged in
    (a session of `days` days). Conflict when any of the names is taken: nothing is
    written then. Flushes, never commits."""
    wanted = names(prefix, count)
    taken = store.taken_names(db, [name.lower() for name in wanted])
    if taken:
        raise Conflict(
            f"{len(taken)} of these names are taken (e.g. {sorted(taken)[0]!r}); "
            "choose another prefix.",
            field="prefix",
        )
    now = utcnow()
    ids = store.insert_users(db, wanted, bench_password_hash(), now)
    tokens = [secrets.token_urlsafe(32) for _ in ids]
    csrfs = [secrets.token_urlsafe(32) for _ in ids]
    store.insert_sessions(
        db,
        [
            (uid, accounts.hash_token(token), csrf)
            for uid, token, csrf in zip(ids, tokens, csrfs, strict=True)
        ],
        now,
        now + timedelta(days=days),
    )
    return [
        BenchAccount(uid, name, token, csrf)
        for uid, name, token, csrf in zip(ids, wanted, tokens, csrfs, strict=True)
    ]
