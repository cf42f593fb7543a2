"""A change of a game as moves: how a process follows another process's writes.

A game's state is its latest snapshot and the actions after it (``gamelog``), and the
engine is deterministic, so the state at version v' is the state at v with the moves
of the change v -> v' applied. Versions only rise, and a change that takes an action
back (an undo) bumps the version before anything else and records no move here, so a
state held at v and the moves of the change that started at v always make v'.

- The process that commits a change notes its moves (``gamelog``: every ``record`` and
  ``write_row``), and after commit keeps (since, version, moves) here; its NOTIFY
  carries them to the other processes (``publisher.encode_payload``; the one-statement
  write puts them in its own ``pg_notify``), when they fit NOTIFY's 8000 bytes.
- A process that hears a change keeps it here as it came (the moves' JSON text, parsed
  only if needed). When it next loads the game (its hub's reload, or a write) and its
  state cache holds an older version, ``catch_up`` applies the changes from there, in
  the thread that loads, instead of reading the snapshot and replaying up to
  ``SNAPSHOT_EVERY`` actions. A gap (a change not heard, or too long to be sent) falls
  back to that replay.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import orjson

from app import engine
from app.services.rows import GameRow, copy_row
from app.store.games import HELD_FIELDS

log = logging.getLogger(__name__)

#: the changes kept per game (a process that fell further behind replays the log)
PER_GAME = 8
#: games whose recent changes are kept (least recently changed dropped)
GAMES = 2000

#: (seat, action) of each action a change appended, in order; or their JSON text
Moves = list[tuple[int, dict[str, Any]]] | str
#: what a one-statement write adds to its moves (``row_change``): "from", the
#: digest of the row it started from; "row", the columns it wrote; "events", its events
RowChange = dict[str, Any]


class ChangeLog:
    """(database, game) -> the recent changes: since -> (version, moves, the database's
    digest of the row the change wrote, when known, and its ``RowChange`` when sent)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: OrderedDict[
            tuple[str, int], dict[int, tuple[int, Moves, str | None, RowChange | None]]
        ] = OrderedDict()
        #: moves applied by ``catch_up``, and loads it spared a replay
        self.applied = 0
        self.caught_up = 0

    def put(
        self,
        db_key: str,
        game_id: int,
        since: int,
        version: int,
        moves: Moves,
        digest: str | None = None,
        row: RowChange | None = None,
    ) -> None:
        if version <= since:
            return
        with self._lock:
            held = self._games.setdefault((db_key, game_id), {})
            held[since] = (version, moves, digest, row)
            while len(held) > PER_GAME:
                del held[min(held)]
            self._games.move_to_end((db_key, game_id))
            while len(self._games) > GAMES:
                self._games.popitem(last=False)

    def ending(
        self, db_key: str, game_id: int, version: int
    ) -> tuple[int, Moves, str | None] | None:
        """(since, moves, digest) of the change that made `version`, if it is held."""
        with self._lock:
            for since, (to, moves, digest, _row) in self._games.get((db_key, game_id), {}).items():
                if to == version:
                    return since, moves, digest
        return None

    def step(
        self, db_key: str, game_id: int, since: int
    ) -> tuple[int, Moves, str | None, RowChange | None] | None:
        """(version, moves, digest, row change) of the change that started at `since`."""
        with self._lock:
            return self._games.get((db_key, game_id), {}).get(since)

    def path(self, db_key: str, game_id: int, since: int, version: int) -> list[Moves] | None:
        """The moves of the changes from `since` to `version`, in order; None if a
        change between them is not held."""
        out: list[Moves] = []
        with self._lock:
            held = self._games.get((db_key, game_id), {})
            at = since
            while at != version:
                step = held.get(at)
                if step is None or step[0] > version:
                    return None
                at = step[0]
                out.append(step[1])
        return out

    def clear(self) -> None:
        with self._lock:
            self._games.clear()


changes = ChangeLog()


def row_change(game: GameRow, digest: str, events: list[dict[str, Any]]) -> RowChange:
    """What a one-statement write does to the row whose digest was `digest`: the columns
    it sets and the events it appends (``gamelog.record``'s rows). Sent with its moves,
    it lets a process holding that row (``Frame.row`` with that digest) follow the
    change without a read (``follow.in_memory``)."""
    return {
        "from": digest,
        "row": {k: getattr(game, k) for k in HELD_FIELDS},
        "events": [[e["seq"], e["action_seq"], e["visible_to"], e["payload"]] for e in events],
    }


def changed_row(row: GameRow, change: RowChange) -> GameRow:
    """A private copy of `row` with a ``row_change``'s columns (as its JSON carried them)."""
    new = copy_row(row)
    for key, value in change["row"].items():
        if key == "next_deadline" and isinstance(value, str):
            value = datetime.fromisoformat(value)
        setattr(new, key, value)
    return new


def parse(text: str) -> tuple[Moves, RowChange | None]:
    """A NOTIFY's change (``publisher.decode_change``): its moves (their JSON text, for
    a bare list: parsed only if needed) and its row change, if it carries one."""
    if not text.startswith("{"):
        return text, None
    whole = orjson.loads(text)
    return [(int(seat), action) for seat, action in whole.pop("moves")], whole


def advance(state: dict[str, Any], moves: Moves) -> dict[str, Any]:
    """`state` moved on by `moves` (the engine is deterministic: the same moves from
    the same state make the same state, in whichever process)."""
    for seat, action in orjson.loads(moves) if isinstance(moves, str) else moves:
        state, _events = engine.apply(state, int(seat), action)
        changes.applied += 1
    return state


def moves_of(rows: Iterable[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """The moves of ``actions`` rows (``gamelog.record``'s)."""
    return [(int(row["seat"]), row["action"]) for row in rows]


def committed(pending: list[tuple[str, Any]]) -> None:
    """After a commit, from what its session noted (``gamelog._PENDING``): the actions
    rows it appended ("moves") and the states it made ("state": key, game, version …):
    keep each game's change, from before its first action to its last state."""
    appended: dict[int, list[dict[str, Any]]] = {}
    for kind, item in pending:
        if kind == "moves":
            for row in item:
                appended.setdefault(int(row["game_id"]), []).append(row)
    if not appended:
        return
    ends: dict[int, tuple[str, int]] = {}
    for kind, item in pending:
        if kind == "state" and item[1] in appended:
            key, game_id, version = item[0], item[1], item[2]
            if game_id not in ends or ends[game_id][1] < version:
                ends[game_id] = (key, version)
    for game_id, (key, version) in ends.items():
        rows = appended[game_id]
        since = min(int(r["version"]) for r in rows) - 1
        changes.put(key, game_id, since, version, moves_of(rows))


def catch_up(
    held: tuple[int, int | None, dict[str, Any]] | None,
    db_key: str,
    game_id: int,
    version: int,
    seed: int | None,
) -> dict[str, Any] | None:
    """The state at `version` from `held` (the state cache's (version, seed, state) of
    the game) and the changes since; None when they do not reach it."""
    if held is None or held[1] != seed or held[0] >= version:
        return None
    path = changes.path(db_key, game_id, held[0], version)
    if path is None:
        return None
    state, before = held[2], changes.applied
    try:
        for moves in path:
            state = advance(state, moves)
    except Exception:  # not what the log holds: the replay will say
        log.warning("game %s: the changes %s -> %s do not apply", game_id, held[0], version)
        return None
    changes.caught_up += 1
    applied = changes.applied - before
    log.debug("game %s: %d moves applied, %s -> %s", game_id, applied, held[0], version)
    return state
