"""Per-user (or per-address) rate limits: a sliding window of recent hits in memory.

Limits are per process: behind N processes a client gets at most N times the rate,
which still bounds abuse (the log-in throttle, which must hold across processes, is
in the database: app/services/accounts.py). Refusals are 429 with ``Retry-After``
(seconds) over HTTP, and an ``error`` message with ``retry_after`` on the socket.

Limits (hits per window) are in ``LIMITS``; tests and operators may change them
through the settings ``RATE_SIGNUP``, ``RATE_CHAT``, ``RATE_ACTIONS``, ``RATE_RESET``,
``RATE_RESET_ACCOUNT``, ``RATE_GAMES``, ``RATE_REPORT`` ("N/seconds", e.g. "20/60"). An address is the
client's as the trusted proxies report it (``TRUSTED_PROXIES``), keyed by
``address_key``.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import deque
from dataclasses import dataclass

from app.services.errors import ServiceError, Throttled


@dataclass(frozen=True)
class Limit:
    hits: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> Limit:
        hits, _, seconds = text.partition("/")
        return cls(int(hits), float(seconds))


DAY = 86400.0

#: what: the default limit. Per address: sign-ups and reset requests, a day's worth
#: that a household of friends behind one router fits in (issue 26: the sixth account
#: of one home was refused at 5 an hour). Per account asked about: reset requests (no
#: mailbox is flooded). Per user: chat lines, actions and new games (one user made 60
#: games in 1.8 s, issue 29), and reports (a reporter cannot flood the admins' queue).
LIMITS: dict[str, Limit] = {
    "signup": Limit(20, DAY),
    "chat": Limit(20, 60.0),
    "actions": Limit(120, 60.0),
    "reset": Limit(20, DAY),
    "reset_account": Limit(5, DAY),
    "games": Limit(20, 3600.0),
    "report": Limit(10, 3600.0),
}

WHAT = {
    "signup": "sign-ups from your address",
    "chat": "chat messages",
    "actions": "actions",
    "reset": "password reset requests from your address",
    "reset_account": "password reset requests for that account",
    "games": "new games",
    "report": "reports",
}


def address_key(host: str) -> str:
    """The key the per-address limits count under: an IPv4 address as it is; an IPv6
    address by its /64, the block one home or one host is given (a client that steps
    through the addresses of its own /64 is still one client)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def in_words(seconds: int) -> str:
    """A wait as a person reads it: "40 s", "17 minutes", "5 hours" (rounded up)."""
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 2 * 3600:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


class RateLimited(Throttled):
    """429 with the seconds to wait (sent as the Retry-After header too)."""

    code = "rate_limited"

    def __init__(self, what: str, retry_after: int) -> None:
        super().__init__(
            f"Too many {WHAT.get(what, what)}; try again in {in_words(retry_after)}.",
            retry_after=retry_after,
        )
        self.retry_after = retry_after


class RateLimiter:
    def __init__(self, limits: dict[str, Limit] | None = None) -> None:
        self.limits = dict(LIMITS if limits is None else limits)
        self._hits: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, what: str, who: str | int, now: float | None = None) -> None:
        """Count one hit of `what` by `who`, or raise RateLimited (not counted)."""
        limit = self.limits[what]
        now = time.monotonic() if now is None else now
        with self._lock:
            window = self._hits.setdefault((what, str(who)), deque())
            while window and window[0] <= now - limit.seconds:
                window.popleft()
            if len(window) >= limit.hits:
                wait = max(1, math.ceil(window[0] + limit.seconds - now))
                raise RateLimited(what, wait)
            window.append(now)
            if len(self._hits) > 100_000:  # forget idle keys now and then
                self._hits = {k: v for k, v in self._hits.items() if v}


_limiter = RateLimiter()


def limiter() -> RateLimiter:
    return _limiter


def configure(overrides: dict[str, str | None]) -> None:
    """Replace the process's limiter (create_app calls this with the settings)."""
    global _limiter
    limits = dict(LIMITS)
    for what, text in overrides.items():
        if text:
            limits[what] = Limit.parse(text)
    _limiter = RateLimiter(limits)


def retry_after(exc: ServiceError) -> dict[str, str]:
    """429s say when to come back (seconds), as the Retry-After header."""
    wait = exc.extra.get("retry_after")
    return {"Retry-After": str(wait)} if isinstance(wait, int) else {}
