"""What the engine remembers about a position, kept outside the state.

Nothing here is ever written into a state: `dumps`, `state_hash` and a replay
see exactly the JSON they always saw. Two memos, each with a rule that makes it
safe:

- **Tracked states** (`track`): a state driven in place (`apply_in_place`,
  `undo`, `clone`) is registered here with its legal actions and its seats'
  lasting effects (`core.abilities`), computed once per position. Only the engine moves a tracked state, and every move
  (`moved`, `restore`) drops or swaps the memo, so a hit is always the list
  `legal_actions` would compute. Whoever drives a state in place must not edit
  it by hand (docs/engine-contract.md, "In place"); states that were never
  tracked (every state `apply` returns, every state a test edits) are never
  memoised. The registry keeps the last `MAX_TRACKED` states (an evicted one
  only loses its memo: it is computed again).
- **Frozen states** (`freeze`): a state its holder promises never to change
  again, such as a server's committed position that its threads share
  read-only. It gets the same memo as a tracked state (legal actions by seat,
  lasting effects, owned areas), computed once and read by every thread
  until `thaw` drops it. Moving a frozen state in place (`track`) thaws it
  first. The holder bounds the registry: it thaws what it lets go of.
- **Owned areas per seat** (`owned_index`): an index owner -> sorted area ids,
  kept up to date while areas change hands (`owner_changed`, from the one
  place that changes an owner, `ownership.change_owner`), instead of a scan
  of the map every time a rule asks what a seat owns. A tracked state keeps
  its index from move to move; any other state has one for the length of one
  engine call (a `SCOPE`: `apply`, `legal_actions`, `view`, `explain`…), since
  nobody else can change a state in the middle of an engine call. The
  per-call memo lives per thread, so two server threads never see each
  other's.
- **Lasting effects while legal actions are worked out** (`READING`): a
  computation that changes no state keeps each seat's lasting effects
  (`core.abilities`) for as long as it lasts, per thread; a move (`MOVING`,
  the scope of `apply` and `apply_in_place`) sets that memo aside while it runs.
"""

from __future__ import annotations

import bisect
import itertools
import marshal
import threading
from typing import Any

from app.engine.clone import copy_json
from app.engine.errors import EngineError

State = dict[str, Any]

# A bot's game is one tracked state, a search a root and the line it plays:
# a few. Each entry holds its state alive, so the registry stays small.
MAX_TRACKED = 16
_LOCK = threading.Lock()

_STAMPS = itertools.count(1)


class Entry:
    """The memo of one tracked state: its legal actions by seat at the current
    position, and the stamp that names the position."""

    __slots__ = ("state", "legal", "stamp", "owned", "abilities", "moving", "owns_map")

    def __init__(self, state: State) -> None:
        self.state = state
        self.legal: dict[int, list[dict[str, Any]]] = {}
        # seat -> its lasting effects (core.abilities), for this position.
        self.abilities: dict[int, tuple[dict[str, Any], ...]] = {}
        self.stamp = next(_STAMPS)
        # True while `apply_in_place` is changing the state: then no memo of the
        # position (legal actions, abilities) is read or written.
        self.moving = False
        # (the areas dict it indexes, owner -> sorted area ids): kept across
        # calls and moves, brought up to date by `owner_changed`.
        self.owned: tuple[dict[str, Any], dict[Any, list[str]]] | None = None
        # True while no other state or undo token may hold its area records (a
        # `clone`, until an undoable move): a move may then change them in place
        self.owns_map = False

    def moved(self) -> None:
        """The state is about to change: a new position, nothing known of it."""
        self.legal = {}
        self.abilities = {}
        self.stamp = next(_STAMPS)


_TRACKED: dict[int, Entry] = {}


#: id -> the memo of a frozen state (`freeze`); its holder thaws what it lets go of.
_FROZEN: dict[int, Entry] = {}


def _entry(registry: dict[int, Entry], state: State) -> Entry | None:
    """`state`'s own entry in `registry` (an id can be reused once its state is gone)."""
    entry = registry.get(id(state))
    return entry if entry is not None and entry.state is state else None


def tracked(state: State) -> Entry | None:
    """The memo of a tracked or frozen state, or None."""
    return _entry(_TRACKED, state) or _entry(_FROZEN, state)


def freeze(state: State) -> None:
    """`state` will never change again: remember what is computed about it."""
    with _LOCK:
        if _entry(_FROZEN, state) is None:
            _FROZEN[id(state)] = Entry(state)


def thaw(state: State) -> None:
    """Forget a frozen state's memo (its holder lets go of it, or will move it)."""
    with _LOCK:
        if _entry(_FROZEN, state) is not None:
            del _FROZEN[id(state)]


def frozen_count() -> int:
    return len(_FROZEN)


def track(state: State) -> Entry:
    entry = _entry(_TRACKED, state)
    if entry is not None:
        return entry
    thaw(state)  # a state about to be moved is no longer frozen
    with _LOCK:
        while len(_TRACKED) >= MAX_TRACKED:
            del _TRACKED[next(iter(_TRACKED))]  # the oldest: it is only a memo
        entry = _TRACKED[id(state)] = Entry(state)
    return entry


def forget(state: State) -> None:
    with _LOCK:
        if _entry(_TRACKED, state) is not None:
            del _TRACKED[id(state)]


class Undo:
    """What `undo` needs to take back one `apply_in_place`: the state as it was,
    and the stamps before and after, so that tokens are taken back last first
    and once.

    The state before is kept as the map's records as they are (a new dict of the
    same records: the move copies a record before it changes it, ``areas_on_write``)
    plus everything else as ``marshal`` bytes: bytes are one object, not thousands
    the garbage collector walks again and again while a search holds a long line
    of tokens, and ``marshal`` keeps key order and tells True from 1."""

    __slots__ = ("state", "shell", "areas", "legal", "stamp_before", "stamp_after")

    def __init__(self, state: State, entry: Entry) -> None:
        areas = state.get("areas")
        if type(areas) is dict:
            shell = state.copy()
            shell["areas"] = None
            self.areas: dict[str, Any] | None = areas.copy()
            entry.owns_map = False  # the token holds them now
        else:  # pragma: no cover - not a state this engine makes
            shell, self.areas = state, None
        self.shell: bytes | None = marshal.dumps(shell)
        self.state: State | None = state
        self.legal = entry.legal
        self.stamp_before = entry.stamp
        self.stamp_after = 0


def restore(state: State, token: Undo) -> None:
    if not isinstance(token, Undo):
        raise EngineError("That is not an undo token.")
    if token.state is not state or token.shell is None:
        raise EngineError("That undo token belongs to another state (or was used already).")
    entry = tracked(state)
    if entry is not None and entry.stamp != token.stamp_after:
        raise EngineError("Undo the later moves first: tokens are taken back last first.")
    before: State = marshal.loads(token.shell)
    if token.areas is not None:
        before["areas"] = token.areas
    state.clear()
    state.update(before)
    token.state = None
    token.shell = None
    token.areas = None
    entry = track(state)
    entry.legal = token.legal  # the position before: its memo holds again
    entry.abilities = {}
    entry.moving = False
    entry.stamp = token.stamp_before


def detach(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events that share nothing with a state that keeps moving."""
    if not events:
        return events
    out: list[dict[str, Any]] = copy_json(events)
    return out


# ---------------------------------------------------------------- owned areas, per engine call


class _Local(threading.local):
    """Per thread: the depth of engine calls, the owned-areas memo, and the
    `READING` memo with the ones moves set aside."""

    def __init__(self) -> None:
        self.depth = 0
        self.owned: tuple[dict[str, Any], dict[Any, list[str]]] | None = None
        # Inside a `READING` scope (working out legal actions: no state changes):
        # (id(state), seat) -> (state, its lasting effects), for `core.abilities`.
        self.reading = 0
        self.reads: dict[tuple[int, int], tuple[State, Any]] | None = None
        self.suspended: list[tuple[int, dict[tuple[int, int], tuple[State, Any]] | None]] = []
        # id(a map whose records are shared with another state) -> the ids of the
        # records this move copied into it (`areas_on_write`, `core.own_area`)
        self.on_write: dict[int, set[int]] = {}


LOCAL = _Local()


class _Scope:
    """``with SCOPE:`` around an engine call: the owned-areas memo lives as long as
    the outermost one."""

    __slots__ = ()

    def __enter__(self) -> None:
        LOCAL.depth += 1

    def __exit__(self, *exc: object) -> None:
        LOCAL.depth -= 1
        if not LOCAL.depth:
            LOCAL.owned = None


SCOPE = _Scope()


class _Reading(_Scope):
    """``with READING:`` around a computation that changes no state (`legal_actions`,
    the check's `legal_of_type`): a seat's lasting effects are then worked out once
    per state for as long as the outermost one lasts (they were worked out again
    for every price, cost and sea zone: issue 39)."""

    __slots__ = ()

    def __enter__(self) -> None:
        LOCAL.depth += 1
        if not LOCAL.reading:
            LOCAL.reads = {}
        LOCAL.reading += 1

    def __exit__(self, *exc: object) -> None:
        LOCAL.reading -= 1
        if not LOCAL.reading:
            LOCAL.reads = None
        super().__exit__(*exc)


READING = _Reading()


class _Moving(_Scope):
    """``with MOVING:`` around a move (`apply`, `apply_in_place`): no `READING` memo
    is read or kept while a state changes, even a move made inside a reading
    computation (politics' explain applies moves to copies)."""

    __slots__ = ()

    def __enter__(self) -> None:
        LOCAL.depth += 1
        LOCAL.suspended.append((LOCAL.reading, LOCAL.reads))
        LOCAL.reading, LOCAL.reads = 0, None

    def __exit__(self, *exc: object) -> None:
        LOCAL.reading, LOCAL.reads = LOCAL.suspended.pop()
        super().__exit__(*exc)


MOVING = _Moving()


class _AreasOnWrite:
    """``with areas_on_write(state):`` around a move of a state whose map shares its
    area records with another state (``copy_state``'s `share_areas`): each record is
    copied before the move first changes it (``core.own_area``), and left shared if
    the move never does."""

    __slots__ = ("key",)

    def __init__(self, state: State) -> None:
        self.key = id(state["areas"])

    def __enter__(self) -> None:
        LOCAL.on_write[self.key] = set()

    def __exit__(self, *exc: object) -> None:
        del LOCAL.on_write[self.key]


def areas_on_write(state: State) -> _AreasOnWrite:
    """The scope in which `state`'s shared area records are copied on first write."""
    return _AreasOnWrite(state)


def copied_on_write(areas: dict[str, Any]) -> set[int] | None:
    """The ids of the records a move copied into `areas` so far, or None when `areas`
    is not a map whose records are copied on write (then a record is changed as is)."""
    return LOCAL.on_write.get(id(areas)) if LOCAL.on_write else None


def scope() -> _Scope:
    """The scope of a move (`MOVING`)."""
    return MOVING


def reading() -> _Scope:
    """The scope of a computation that changes no state (`READING`)."""
    return READING


def _index(areas: dict[str, Any]) -> dict[Any, list[str]]:
    index: dict[Any, list[str]] = {}
    for a_id, a in areas.items():
        owner = a["owner"]
        bucket = index.get(owner)
        if bucket is None:
            index[owner] = [a_id]
        else:
            bucket.append(a_id)
    for bucket in index.values():
        bucket.sort()
    return index


def owned_index(state: State) -> dict[Any, list[str]] | None:
    """Owner -> sorted area ids for the state in hand: kept with a tracked state
    from move to move, otherwise for the length of the engine call (``None``
    outside one: then the caller scans)."""
    areas = state["areas"]
    entry = tracked(state)
    if entry is not None:
        memo = entry.owned
        if memo is None or memo[0] is not areas:
            memo = entry.owned = (areas, _index(areas))
        return memo[1]
    local = LOCAL
    if not local.depth:
        return None
    memo = local.owned
    if memo is None or memo[0] is not areas:
        memo = local.owned = (areas, _index(areas))
    return memo[1]


def owner_changed(state: State, area_id: str, old: Any, new: Any) -> None:
    """Keep the owned-areas memos true when an area changes hands (7.4)."""
    if old == new:
        return
    areas = state["areas"]
    entry = tracked(state)
    for memo in (LOCAL.owned, None if entry is None else entry.owned):
        if memo is None or memo[0] is not areas:
            continue
        index = memo[1]
        was = index.get(old)
        if was is not None and area_id in was:
            was.remove(area_id)
        now = index.setdefault(new, [])
        if area_id not in now:
            bisect.insort(now, area_id)
