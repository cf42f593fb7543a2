"""The table's clocks: a chess-style time bank per person, kept by the platform (the
engine has no clock).

A pace is a `TimeControl`: each person starts with `start` seconds in the bank; the
bank runs down only while that person owes a decision (their clock "runs"); each
decision they make adds `increment`, and an extension ("+5 min") up to its seconds: never
above `cap` (an extension at a full bank is refused, not spent). When a bank is empty the seat
goes to its standing orders and a stand-in (app/services/absence.py), so an absent
person never stalls the table.

Everything lives in the game row: ``games.deadlines`` holds, per seat owing a decision,
the moment its bank runs out (None while the clocks are paused or in a game with no
clock); ``games.clocks`` holds the rest as JSON::

    {"bank": {"0": 600.0},          # seconds left, for a seat whose clock is stopped
     "since": {"0": iso},           # when a running clock started (a decision began)
     "extended": {"0": 1},          # extensions taken (`extend`)
     "paused": iso | None,          # the table paused its clocks (app/services/tablevotes.py)
     "votes": {"pause": [0], "skip:2": [0, 1]},
     "away": {"2": {"since": iso, "why": "away" | "time" | "vote" | "gone" | "deleted"}},
     "gone": {"1": iso}}             # no socket of hers on the game since (presence.py)

Every function here works on the row in memory (ORM ``Game`` or the hot path's
``gamelog.GameRow``) and never writes the database: the caller's write path does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app import engine
from app.services.errors import Invalid


@dataclass(frozen=True)
class TimeControl:
    """Seconds: the bank at the start, added per decision made, the most a bank holds
    (whatever adds to it, increments and extensions alike); an extension (up to
    `extension` seconds, `extensions` per game) a person may take."""

    start: int
    increment: int
    cap: int
    extension: int
    extensions: int

    @property
    def comeback(self) -> int:
        """The least a person finds in their bank when they take their seat back."""
        return max(self.start // 2, self.increment)


#: the paces a game may have; None = no clock. "24h" and "72h" are the per-decision
#: deadlines of older games (a bank refilled to the same span after each decision).
PACES: dict[str, TimeControl | None] = {
    "live": TimeControl(10 * 60, 30, 15 * 60, 5 * 60, 2),
    "daily": TimeControl(24 * 3600, 24 * 3600, 3 * 24 * 3600, 24 * 3600, 2),
    "none": None,
    "24h": TimeControl(24 * 3600, 24 * 3600, 24 * 3600, 24 * 3600, 2),
    "72h": TimeControl(72 * 3600, 72 * 3600, 72 * 3600, 24 * 3600, 2),
}
#: what the new-game form offers (the others stay valid for games made before)
PRESETS = ("live", "daily", "none")


def configure(live: str | None) -> None:
    """Set the live pace from the settings (``PACE_LIVE``, "START+INCREMENT" seconds, e.g.
    "45+5"): a demo or a browser test shortens the bank so that time can run out while
    it watches. None keeps 10 minutes + 30 seconds. The cap stays half the start again."""
    if not live:
        return
    try:
        start, increment = (int(part) for part in live.split("+"))
    except ValueError:
        raise ValueError(
            f"PACE_LIVE is START+INCREMENT in seconds, e.g. 600+30, not {live!r}"
        ) from None
    if start <= 0 or increment < 0:
        raise ValueError(f"PACE_LIVE needs a positive bank, not {live!r}")
    default = PACES["live"]
    assert default is not None
    PACES["live"] = TimeControl(
        start, increment, start * 3 // 2, default.extension, default.extensions
    )


#: seconds a present person may spend on a decision before the table may vote her seat
#: to a stand-in (app/services/tablevotes.py; a gone person's at once): never beside a
#: friend who is just thinking (issue 40). ``HAND_OVER_AFTER_S`` sets it.
_HAND_OVER_AFTER_S = [120]


def configure_hand_over(seconds: int) -> None:
    """Set the table's patience from the settings (a demo or a browser test shortens it)."""
    if seconds < 0:
        raise ValueError(f"HAND_OVER_AFTER_S must be 0 or more, not {seconds}")
    _HAND_OVER_AFTER_S[0] = seconds


def hand_over_after() -> int:
    return _HAND_OVER_AFTER_S[0]


#: a game row: the ORM ``Game`` or the hot path's ``gamelog.GameRow`` (duck-typed)
Clocked = Any


def control(pace: str) -> TimeControl | None:
    return PACES.get(pace)


def longest(tc: TimeControl) -> int:
    """The most a decision's clock can hold when it starts (a full bank and every
    extension): a deadline further off than this began less than that ago."""
    return tc.cap + tc.extension * tc.extensions


def words(seconds: float) -> str:
    """ "8:40", "1 h 20 min", "2 days 3 h": a bank or an extension in words."""
    s = max(0, int(seconds))
    if s < 3600:
        return f"{s // 60}:{s % 60:02d}"
    h = s // 3600
    if h < 48:
        return f"{h} h {(s % 3600) // 60} min" if s % 3600 else f"{h} h"
    return f"{h // 24} days {h % 24} h" if h % 24 else f"{h // 24} days"


def span_words(seconds: int) -> str:
    """ "5 minutes", "24 hours", "45 seconds": an extension's or a bank's size."""
    if seconds % 60:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    if seconds % 3600 == 0:
        h = seconds // 3600
        return f"{h} hour{'' if h == 1 else 's'}"
    m = seconds // 60
    return f"{m} minute{'' if m == 1 else 's'}"


def people(game: Clocked) -> set[int]:
    """The seats a person plays now (not a bot, not a stand-in)."""
    return {s.index for s in game.seats if s.user_id is not None and not s.standin}


def fresh(game: Clocked) -> dict[str, Any]:
    """A copy of the game's clocks to change (never mutate the row's own: the hot
    path's rows are shared copies)."""
    got = dict(game.clocks or {})
    for key in ("bank", "since", "extended", "votes", "away", "gone"):
        got[key] = dict(got.get(key) or {})
    return got


def bank_of(game: Clocked, seat: int, now: datetime) -> float | None:
    """Seconds left in `seat`'s bank now (running or not); None with no clock."""
    tc = control(game.pace)
    if tc is None:
        return None
    running = (game.deadlines or {}).get(str(seat))
    if running:
        return max(0.0, (datetime.fromisoformat(running) - now).total_seconds())
    bank = (game.clocks or {}).get("bank", {}).get(str(seat))
    return float(tc.start if bank is None else bank)


def paused(game: Clocked) -> bool:
    return bool((game.clocks or {}).get("paused"))


def set_deadlines(game: Clocked, state: dict[str, Any], acted: set[int], now: datetime) -> None:
    """After a change: each person owing a decision has their clock running (the deadline
    is when their bank runs out); a seat that stopped owing one banks what is left (plus
    the increment if it was its own decision, in `acted`); a seat that acted and owes the
    next decision too is credited and starts again. While the table is paused, or with no
    clock, the seats owing a decision are listed with no deadline."""
    if game.status != "active":
        game.deadlines = {}
        game.next_deadline = None
        return
    tc = control(game.pace)
    who = people(game)
    pending = [p["seat"] for p in engine.pending(state) if p["seat"] in who]
    if tc is None:
        game.deadlines = {str(i): None for i in pending}
        game.next_deadline = None
        return
    old = dict(game.deadlines or {})
    clocks = fresh(game)
    bank, since = clocks["bank"], clocks["since"]
    stopped = paused(game)
    # Stop the clocks that ran: bank what is left, with the increment for a decision made.
    for key, deadline in old.items():
        index = int(key)
        if deadline and (index not in pending or index in acted):
            left = max(0.0, (datetime.fromisoformat(deadline) - now).total_seconds())
            if index in acted and not stopped:
                left = min(float(tc.cap), left + tc.increment)
            bank[key] = round(left, 3)
            since.pop(key, None)
    new: dict[str, str | None] = {}
    for index in pending:
        key = str(index)
        if stopped:
            new[key] = None
        elif old.get(key) and index not in acted:
            new[key] = old[key]  # still deciding: the clock runs on
        else:
            left = float(bank.get(key, tc.start))
            new[key] = (now + timedelta(seconds=left)).isoformat()
            since[key] = now.isoformat()
    for key in list(since):
        if key not in new:
            since.pop(key)
    for index in acted:  # she is here: a vote to hand her seat to a stand-in lapses
        clocks["votes"].pop(f"skip:{index}", None)
    game.deadlines = new
    game.clocks = clocks
    game.next_deadline = min((datetime.fromisoformat(v) for v in new.values() if v), default=None)


def stop(game: Clocked, seat: int, now: datetime) -> None:
    """Stop `seat`'s clock (its person leaves it to a stand-in): what is left is banked."""
    key = str(seat)
    running = (game.deadlines or {}).get(key)
    clocks = fresh(game)
    if running:
        left = max(0.0, (datetime.fromisoformat(running) - now).total_seconds())
        clocks["bank"][key] = round(left, 3)
    clocks["since"].pop(key, None)
    game.clocks = clocks
    deadlines = dict(game.deadlines or {})
    deadlines.pop(key, None)
    game.deadlines = deadlines
    game.next_deadline = min(
        (datetime.fromisoformat(v) for v in deadlines.values() if v), default=None
    )


def extension_left(game: Clocked, seat: int) -> int:
    tc = control(game.pace)
    if tc is None:
        return 0
    taken = int((game.clocks or {}).get("extended", {}).get(str(seat), 0))
    return max(0, tc.extensions - taken)


#: an extension adds at least this (or the whole extension, if smaller): one that
#: would add less, at a (nearly) full bank, is refused rather than spent on seconds
MIN_EXTENSION = 60


def room(game: Clocked, seat: int, now: datetime) -> int:
    """Whole seconds an extension would add to `seat`'s bank now: the pace's extension,
    or less, so that the bank never holds more than its cap (0 at a full bank)."""
    tc = control(game.pace)
    bank = bank_of(game, seat, now)
    if tc is None or bank is None:
        return 0
    return max(0, min(tc.extension, int(tc.cap - bank)))


def extend(game: Clocked, seat: int, now: datetime) -> int:
    """Add one extension to `seat`'s own bank (running or not), up to the cap (`room`);
    the seconds added. The caller checks the seat may (`extension_left`). At a full
    bank (less than `MIN_EXTENSION` of room) nothing is added and nothing spent:
    Invalid ``bank_full``, saying the cap."""
    tc = control(game.pace)
    assert tc is not None
    added = room(game, seat, now)
    if added < min(MIN_EXTENSION, tc.extension):
        raise Invalid(
            f"Your clock is full ({words(tc.cap - added)} of {words(tc.cap)}): more time "
            f"never lifts a bank above {span_words(tc.cap)}. Your extension is kept for later.",
            code="bank_full",
        )
    key = str(seat)
    clocks = fresh(game)
    clocks["extended"][key] = int(clocks["extended"].get(key, 0)) + 1
    deadlines = dict(game.deadlines or {})
    running = deadlines.get(key)
    if running:
        deadlines[key] = (datetime.fromisoformat(running) + timedelta(seconds=added)).isoformat()
    else:
        clocks["bank"][key] = float(clocks["bank"].get(key, tc.start)) + added
    game.clocks = clocks
    game.deadlines = deadlines
    game.next_deadline = min(
        (datetime.fromisoformat(v) for v in deadlines.values() if v), default=None
    )
    return added


def pause(game: Clocked, now: datetime) -> None:
    """Stop every clock: each running one banks what is left."""
    clocks = fresh(game)
    for key, deadline in (game.deadlines or {}).items():
        if deadline:
            left = max(0.0, (datetime.fromisoformat(deadline) - now).total_seconds())
            clocks["bank"][key] = round(left, 3)
    clocks["since"] = {}
    clocks["paused"] = now.isoformat()
    game.clocks = clocks
    game.deadlines = {k: None for k in (game.deadlines or {})}
    game.next_deadline = None


def unpause(game: Clocked) -> None:
    """The clocks may run again (`set_deadlines` starts those of the seats owing one)."""
    clocks = fresh(game)
    clocks["paused"] = None
    game.clocks = clocks


def comeback(game: Clocked, seat: int) -> None:
    """A person takes their seat back: their bank holds at least `TimeControl.comeback`."""
    tc = control(game.pace)
    clocks = fresh(game)
    if tc is not None:
        key = str(seat)
        clocks["bank"][key] = max(float(clocks["bank"].get(key, tc.start)), float(tc.comeback))
    clocks["away"].pop(str(seat), None)
    game.clocks = clocks


def view(game: Clocked) -> dict[str, Any] | None:
    """What every payload says of the clocks (the same whenever it is read, so pushes
    and reads agree): per person seat, the bank of a stopped clock or the deadline of a
    running one, and the extensions left; the pause; open votes; who is away since when
    and why. None in a game with no clock and nobody away."""
    tc = control(game.pace)
    clocks = game.clocks or {}
    away = clocks.get("away") or {}
    if tc is None and not away and not clocks.get("votes") and not clocks.get("gone"):
        return None
    seats: dict[str, Any] = {}
    running = game.deadlines or {}
    banks = clocks.get("bank") or {}
    for s in game.seats:
        if s.user_id is None:
            continue
        key = str(s.index)
        deadline = running.get(key)
        bank = None if tc is None or deadline else float(banks.get(key, tc.start))
        seats[key] = {
            "bank": bank,
            "deadline": deadline,
            "extensions_left": extension_left(game, s.index),
            # when the decision it owes began (the table may hand over a seat that has
            # been deciding for longer than ``hand_over_after()`` seconds)
            "since": (clocks.get("since") or {}).get(key) if deadline else None,
        }
    return {
        "control": None
        if tc is None
        else {
            "start": tc.start,
            "increment": tc.increment,
            "cap": tc.cap,
            "extension": tc.extension,
        },
        "paused": clocks.get("paused"),
        "seats": seats,
        "votes": clocks.get("votes") or {},
        "away": away,
        # the people with no socket on the game, since when (app/services/presence.py)
        "gone": clocks.get("gone") or {},
        "hand_over_after_s": hand_over_after(),
    }
