"""How a committed change leaves the services: the publisher, injected at start-up.

Services never import the realtime layer (it sits above them: docs/realtime.md).
The web app's lifespan starts the realtime runtime, which ``install``s itself here;
services and the layers above call ``publish(game_id, version)`` after a commit and
read ``origin()`` for the NOTIFY a one-statement write sends itself. With nothing
installed (the CLI, unit tests) both do nothing.

The NOTIFY's wire format is here too, for the same reason: the held write
(``heldwrite.write_held``) sends it from inside its statement, and the realtime
listener (``app/realtime/pg.py``) reads it.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import orjson

log = logging.getLogger("app.realtime")

#: the PostgreSQL channel every process LISTENs on
CHANNEL = "ig_games"
#: the payload telling every process to drop its cached session lookups (a log-out)
LOGINS = "logins"
#: the payload telling every process to close one person's sockets: ``ended:<user id>``
#: (her account was suspended: app/services/moderation.py); their cached logins go too
ENDED = "ended:"
#: the close reason her sockets get (code 4401: she is no longer signed in)
ENDED_REASON = "account suspended"


class Publisher(Protocol):
    """What the realtime runtime gives the services (``app.realtime.Runtime``)."""

    #: names this process in its NOTIFY payloads ("" when nothing listens)
    origin: str

    def publish(self, game_id: int, version: int, notified: bool = False) -> None: ...


_publisher: Publisher | None = None


def install(publisher: Publisher | None) -> Publisher | None:
    """Make `publisher` the one changes go to (None: none); returns the one before."""
    global _publisher
    previous, _publisher = _publisher, publisher
    return previous


def publish(game_id: int, version: int, notified: bool = False) -> None:
    """Game `game_id` was committed at `version`: push it to every socket that watches it.

    Call after commit (so a reader in any process sees the change); safe from any thread,
    never blocks, never raises. `notified`: the commit itself sent the NOTIFY
    (``moves.ActionResult.notified``)."""
    current = _publisher
    if current is None:
        return
    try:
        current.publish(int(game_id), int(version), notified)
    except Exception:  # publishing must never break the request that changed the game
        log.exception("realtime publish failed for game %s", game_id)


def end_sockets(user_id: int, reason: str = ENDED_REASON) -> None:
    """Close `user_id`'s open sockets in this process now (the publisher installed, if
    it can: ``Runtime.end_sockets``); never raises. Other processes hear it by the
    ``ended_payload`` NOTIFY sent with the commit (PostgreSQL)."""
    end = getattr(_publisher, "end_sockets", None)
    if end is None:
        return
    try:
        end(int(user_id), reason)
    except Exception:
        log.exception("closing the sockets of user %s failed", user_id)


def ended_payload(user_id: int) -> str:
    return f"{ENDED}{int(user_id)}"


def decode_ended(payload: str) -> int | None:
    """The user whose sockets an ``ended:`` payload closes, or None for any other."""
    if not payload.startswith(ENDED):
        return None
    rest = payload[len(ENDED) :]
    return int(rest) if rest.isdigit() else None


def origin() -> str:
    """What this process's NOTIFY payloads are signed with ("" when nothing listens)."""
    current = _publisher
    return current.origin if current is not None else ""


#: PostgreSQL refuses a NOTIFY payload of 8000 bytes or more
NOTIFY_MAX = 7999
#: stands for the row's digest in a payload the database completes (``heldwrite.write_held``):
#: a character JSON never holds raw, so it is found nowhere else in the payload
DIGEST_MARK = "\x01"


def encode_payload(
    game_id: int,
    version: int,
    origin: str = "",
    since: int | None = None,
    moves: list[tuple[int, dict[str, Any]]] | None = None,
    digest: str | None = None,
    row: dict[str, Any] | None = None,
) -> str:
    """``game:version``, and ``:origin`` (the sending process) when it has one; then
    ``:since:digest:change`` (the change's first version, the database's digest of the
    row it wrote or "", and the change as JSON: ``app/services/changes.py``) when given
    and the whole fits a NOTIFY (a digest counted at its full 32 characters).

    The change is its moves, or, with `row` (``changes.RowChange``: the digest of the
    row it started from, the columns it wrote and its events), ``{"moves": …, **row}``,
    so that a process holding that row follows without reading the database; when that
    does not fit, the moves alone."""
    head = f"{int(game_id)}:{int(version)}"
    if since is None or moves is None:
        return f"{head}:{origin}" if origin else head
    start = f"{head}:{origin}:{int(since)}:{digest or ''}:"
    extra = 31 if digest == DIGEST_MARK else 0
    room = NOTIFY_MAX - len(start.encode()) - extra
    if row is not None and len(body := orjson.dumps({"moves": moves, **row})) <= room:
        return start + body.decode()
    if len(body := orjson.dumps(moves)) <= room:
        return start + body.decode()
    return f"{head}:{origin}" if origin else head


def decode_payload(payload: str) -> tuple[int, int, str] | None:
    """(game, version, origin: "" when none is named), or None for anything else."""
    try:
        game, _, rest = payload.partition(":")
        version, _, rest = rest.partition(":")
        origin, _, _change = rest.partition(":")
        return int(game), int(version), origin
    except ValueError:
        return None


def decode_change(payload: str) -> tuple[int, str | None, str] | None:
    """The change a payload carries: (its first version, the row's digest or None, its
    JSON text: the moves, or an object with them and the row's change), or None."""
    parts = payload.split(":", 5)
    if len(parts) != 6:
        return None
    try:
        return int(parts[3]), parts[4] or None, parts[5]
    except ValueError:
        return None
