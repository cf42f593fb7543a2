"""A change as moves (app/services/changes.py): the NOTIFY carries the moves of a
change, and a process that holds the game at the change's first version applies them
instead of replaying the game's log from its snapshot."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from app import engine
from app.services import changes
from app.services.publisher import (
    DIGEST_MARK,
    NOTIFY_MAX,
    decode_change,
    decode_payload,
    encode_payload,
)
from app.services.rows import GameRow, SeatRow, SeatUser

from .conftest import make_table
from .test_fanout_pg import move
from .test_ws_protocol import is_snapshot, pick


def test_a_payload_carries_the_moves_of_its_change_when_they_fit() -> None:
    moves = [(2, {"type": "pass"}), (0, {"type": "move", "to": "a:b"})]
    plain = encode_payload(12, 345, "ab12")
    assert decode_payload(plain) == (12, 345, "ab12")
    assert decode_change(plain) is None
    carrying = encode_payload(12, 345, "ab12", 343, moves, "d" * 32)
    assert decode_payload(carrying) == (12, 345, "ab12")
    change = decode_change(carrying)
    assert change is not None and change[:2] == (343, "d" * 32)
    assert orjson.loads(change[2]) == [[2, {"type": "pass"}], [0, {"type": "move", "to": "a:b"}]]
    # No origin (nothing listens in the sender), no digest: the change is still read.
    assert decode_payload(encode_payload(1, 2, "", 1, moves)) == (1, 2, "")
    text = orjson.dumps(moves).decode()
    assert decode_change(encode_payload(1, 2, "", 1, moves)) == (1, None, text)
    # The held write's payload: the database puts the digest in for the mark.
    marked = encode_payload(1, 2, "ab", 1, moves, DIGEST_MARK)
    assert marked.count(DIGEST_MARK) == 1
    assert decode_change(marked.replace(DIGEST_MARK, "e" * 32)) == (1, "e" * 32, text)
    # Too long for a NOTIFY: the change is left out, the payload says only "moved".
    long = [(0, {"type": "say", "text": "x" * NOTIFY_MAX})]
    assert encode_payload(12, 345, "ab12", 344, long) == plain
    fits = [(0, {"t": "x" * (NOTIFY_MAX - 100)})]
    whole = encode_payload(12, 345, "ab12", 344, fits, "d" * 32)
    assert whole != plain and len(whole.encode()) <= NOTIFY_MAX
    assert encode_payload(12, 345, "ab12", 344, fits, DIGEST_MARK) != plain
    assert decode_change("12:345:ab12:x::[]") is None
    assert decode_change("junk") is None


def test_a_payload_carries_the_row_change_of_a_one_statement_write_when_it_fits() -> None:
    moves = [(1, {"type": "pass"})]
    row = {
        "from": "a" * 32,
        "row": {"version": 8, "next_deadline": datetime(2026, 11, 28, 9, 30, tzinfo=UTC)},
        "events": [[41, 7, None, {"kind": "passed"}], [42, 7, [1], {"kind": "drew"}]],
    }
    payload = encode_payload(12, 8, "ab", 7, moves, DIGEST_MARK, row)
    change = decode_change(payload.replace(DIGEST_MARK, "e" * 32))
    assert change is not None and change[:2] == (7, "e" * 32)
    got_moves, got_row = changes.parse(change[2])
    assert got_moves == moves and got_row is not None
    assert got_row["from"] == "a" * 32 and got_row["events"] == row["events"]
    # The columns come back as the row holds them (a deadline as a time, not a text).
    seat = SeatRow(3, 1, 5, None, "han", 0, None, None, SeatUser("bo"))
    held = GameRow(
        **{
            **dict.fromkeys(("scenario", "status", "pace", "options", "seed", "clocks")),
            **dict.fromkeys(("deadlines", "next_deadline", "outcome", "finished_at")),
            **dict.fromkeys(("undo_seat", "result_notes", "host_id", "public")),
        },
        id=12,
        version=7,
        last_action=3,
        last_event=40,
        state_seq=0,
        started=True,
        server_turn=False,
        seats=[seat],
    )
    moved = changes.changed_row(held, got_row)
    assert moved.version == 8 and moved.next_deadline == row["row"]["next_deadline"]
    assert held.version == 7 and moved.seats[0] is not seat  # a private copy
    # Too long with the row change: the moves alone still go.
    big = {**row, "events": [[41, 7, None, {"text": "x" * NOTIFY_MAX}]]}
    alone = decode_change(encode_payload(12, 8, "ab", 7, moves, "d" * 32, big))
    assert alone is not None and changes.parse(alone[2]) == (orjson.dumps(moves).decode(), None)


def _play(state: dict[str, Any], count: int) -> list[tuple[dict[str, Any], list[Any]]]:
    """`count` moves from `state`: each (state after it, [(seat, action)])."""
    out = []
    for _ in range(count):
        seat = int(engine.pending(state)[0]["seat"])
        action = pick({"legal_actions": engine.legal_actions(state, seat), "prompts": []})
        state, _ = engine.apply(state, seat, action)
        out.append((state, [(seat, action)]))
    return out


def test_a_held_state_catches_up_through_the_changes_heard() -> None:
    log = changes.ChangeLog()
    start = engine.new_game("teaching", ["kushan", "han"], 3)
    steps = _play(start, 6)
    old, changes.changes = changes.changes, log
    try:
        # Versions 10 -> 11 -> 12 (two moves) -> 14 (a change that also moved the row).
        log.put("db", 7, 10, 11, steps[0][1], "d" * 32)
        log.put("db", 7, 11, 12, orjson.dumps(steps[1][1] + steps[2][1]).decode())
        log.put("db", 7, 12, 14, steps[3][1])
        got = changes.catch_up((10, 5, start), "db", 7, 14, 5)
        assert got is not None and engine.state_hash(got) == engine.state_hash(steps[3][0])
        assert log.applied == 4 and log.caught_up == 1
        assert changes.catch_up((11, 5, steps[0][0]), "db", 7, 12, 5) is not None
        # Not from another seed, nor over a gap, nor backwards, nor from another game.
        assert changes.catch_up((10, 6, start), "db", 7, 14, 5) is None
        assert changes.catch_up((10, 5, start), "db", 7, 15, 5) is None
        assert changes.catch_up((9, 5, start), "db", 7, 14, 5) is None
        assert changes.catch_up((14, 5, steps[3][0]), "db", 7, 12, 5) is None
        assert changes.catch_up((10, 5, start), "db", 8, 14, 5) is None
        # Moves that do not apply: left to the replay.
        log.put("db", 9, 1, 2, [(1, {"type": "no such action"})])
        assert changes.catch_up((1, 5, start), "db", 9, 2, 5) is None
        assert log.ending("db", 7, 11) == (10, steps[0][1], "d" * 32)
        assert log.ending("db", 7, 12) is not None and log.ending("db", 7, 13) is None
    finally:
        changes.changes = old


def _lines(path: Path, start: int) -> list[str]:
    return path.read_text(errors="replace")[start:].splitlines()


@pytest.mark.postgres
def test_a_process_that_watches_a_game_applies_the_other_processes_moves(
    pg_url: str, start_server: Any, new_player: Any, sockets: Any
) -> None:
    debug = {"LOG_LEVEL": "debug"}
    a = start_server(pg_url, env=debug)
    b = start_server(pg_url, env=debug)
    table = make_table(a, new_player)
    game = table.game_id
    s0, s1 = table.seats
    socks = {
        s0: sockets(a, game, table.player_of_seat(s0), label="seat-on-A"),
        s1: sockets(b, game, table.player_of_seat(s1), label="seat-on-B"),
    }
    spectator_b = sockets(b, game, None, label="spectator-on-B")
    for sock in [*socks.values(), spectator_b]:
        sock.wait_for(is_snapshot)
    move(table, socks, [spectator_b])  # each process has loaded and written the game once
    move(table, socks, [spectator_b])
    time.sleep(0.3)
    marks = [len(s.log_path.read_text(errors="replace")) for s in (a, b)]
    moved = 0
    while moved < 12:
        move(table, socks, [spectator_b])
        moved += 1
    time.sleep(0.3)
    for server, mark in zip((a, b), marks, strict=True):
        lines = _lines(server.log_path, mark)
        applied = [x for x in lines if f"game {game}: " in x and "moves applied" in x]
        replayed = [x for x in lines if f"game {game}: replayed" in x]
        # Each process applied the other's moves, and never read the log to follow them;
        # it followed them in memory, from the row it held and the change's columns and
        # events the NOTIFY carried (follow.in_memory), without reading the game at all.
        assert applied, "\n".join(lines[-40:])
        assert not replayed, replayed
        in_memory = [x for x in applied if "in memory" in x]
        read = [x for x in lines if f"game {game}: followed to" in x and "by reading" in x]
        # The other process's moves (about six of the twelve) are followed in memory;
        # a busy machine may make one of them late enough to be read instead, and the
        # one read counts against the in-memory count, not on top of it.
        assert len(in_memory) + len(read) >= 4, "\n".join(lines[-40:])
        assert len(read) <= 1, read
