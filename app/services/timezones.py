"""A person's time zone (issue 40): the times her mails give ("Decide before 15:16 CET")
are written in it. It is an IANA name ("Europe/Paris"), stored on the account
(``users.time_zone``): set from the browser's own zone at sign-up, changed on /account;
an account without one reads UTC, as every mail did before."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from app.services.errors import Invalid

#: how long a zone's name may be (the column's width)
MAX_NAME = 64


@lru_cache(maxsize=1)
def zones() -> tuple[str, ...]:
    """Every zone the server knows, sorted, UTC first: what /account offers."""
    known = {z for z in available_timezones() if "/" in z or z == "UTC"}
    known.discard("UTC")
    return ("UTC", *sorted(known))


def check(name: str) -> str | None:
    """``name`` as stored: a zone the server knows, or None for "" (UTC); else Invalid."""
    name = name.strip()
    if not name:
        return None
    if len(name) > MAX_NAME or name not in zones():
        raise Invalid(
            f"{name[:MAX_NAME]!r} is not a time zone: choose one from the list "
            "(such as Europe/Paris or America/New_York).",
            code="bad_time_zone",
            field="time_zone",
        )
    return name


def from_browser(name: str | None) -> str | None:
    """The zone a browser reported at sign-up, or None (UTC) when it reported none or
    one the server does not know: a person never typed it, so it never refuses a sign-up."""
    try:
        return check(name or "")
    except Invalid:
        return None


def local(when: datetime, zone: str | None) -> str:
    """``when`` in ``zone`` as a mail writes it: "2026-12-01 15:16 CET" (UTC without one)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        tz = ZoneInfo(zone) if zone else UTC
    except (ZoneInfoNotFoundError, ValueError):
        tz = UTC
    moved = when.astimezone(tz)
    label = moved.tzname() or "UTC"
    if label[:1] in "+-":  # zones with no abbreviation ("+05"): name the zone
        label = f"{zone} (UTC{label})"
    return f"{moved:%Y-%m-%d %H:%M} {label}"
