"""Updates built from memory: what the process that committed a change already holds
(``gamelog.Frame``) becomes each socket's ``update`` message, without a database read.

Per version, the public part is built and encoded ONCE: the game's fields, the
prompts with their deadlines and the spectator view of the board. Each seat then adds
only its own part: its private view (``view.me``: hand, deck, holdings …), its legal
actions, whether it may undo, and the events it may see. The seat's ``view`` is the
public view with ``me`` spliced in, byte for byte what ``engine.view(state, seat)``
gives (a test holds the two equal). A message carries exactly the events of the
versions up to its own ``version``, so a push is never torn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

OPTS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=OPTS, default=str)


def private_part(state: dict[str, Any], seat: int) -> Any:
    """``engine.view(state, seat)["me"]``, built alone (``engine.private_view``) to be
    spliced into the public view encoded once per version (the parity test holds the
    spliced view equal to ``engine.view``)."""
    from app import engine

    return engine.private_view(state, seat)


@dataclass
class Rendered:
    """One version's update, encoded: the shared parts once, each seat's on demand."""

    frame: Any  # gamelog.Frame
    recent: list[tuple[Any, ...]]
    committed_at: float | None
    common: bytes = b""  # the shared fields, without braces
    public_view: bytes = b""
    _seats: dict[int | None, bytes] = field(default_factory=dict)
    _texts: dict[tuple[int | None, int], tuple[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from app import engine

        frame = self.frame
        state = frame.state
        deadlines = frame.deadlines or {}
        active = frame.fields.get("status") == "active"
        prompts = (
            [{**p, "deadline": deadlines.get(str(p["seat"]))} for p in engine.pending(state)]
            if active and state is not None
            else []
        )
        shared = {**frame.fields, "version": frame.version, "prompts": prompts}
        self.common = dumps(shared)[1:-1]
        self.public_view = dumps(engine.view(state, None)) if state is not None else b"null"

    def covers(self, since: int) -> bool:
        """Whether the events after `since` up to this version are all in memory."""
        if since == self.frame.last_event:
            return True
        if not self.recent or since > self.frame.last_event:
            return False
        return bool(self.recent[0][0] <= since + 1)

    def _seat_part(self, seat: int | None) -> bytes:
        """`,"seat":…,"view":…,"legal_actions":…,"can_undo":…` for this seat."""
        if seat in self._seats:
            return self._seats[seat]
        from app import engine

        frame = self.frame
        state = frame.state
        view = self.public_view
        legal: list[Any] = []
        if seat is not None and state is not None:
            view = view[:-1] + b',"me":' + dumps(private_part(state, seat)) + b"}"
            mine = next((s for s in frame.fields.get("seats", []) if s["index"] == seat), None)
            if frame.fields.get("status") == "active" and mine and not mine.get("standin"):
                legal = engine.legal_actions(state, seat)
        part = (
            b',"seat":'
            + dumps(seat)
            + b',"view":'
            + view
            + b',"legal_actions":'
            + dumps(legal)
            + b',"can_undo":'
            + (b"true" if seat is not None and seat == frame.undo_seat else b"false")
        )
        self._seats[seat] = part
        return part

    def text(self, seat: int | None, since: int) -> tuple[str, int]:
        """The update for a socket of `seat` that has the events up to `since`:
        (the message, its last_seq)."""
        key = (seat, since)
        if key in self._texts:
            return self._texts[key]
        events = [
            {**payload, "seq": seq, "action_seq": action_seq}
            for seq, action_seq, to, payload in self.recent
            if since < seq <= self.frame.last_event
            and (to is None or (seat is not None and seat in to))
        ]
        last = max([since, *(e["seq"] for e in events)])
        body = (
            b'{"type":"update","events":'
            + dumps(events)
            + b","
            + self.common
            + self._seat_part(seat)
            + b',"last_seq":'
            + dumps(last)
        )
        if self.committed_at is not None:
            body += b',"committed_at":' + dumps(self.committed_at)
        out = (body + b"}").decode(), last
        self._texts[key] = out
        return out
