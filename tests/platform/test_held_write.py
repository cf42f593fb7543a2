"""The one-statement write (PostgreSQL): a move of a game this process wrote last is
written without a read, in one autocommitted statement that checks the row's version
and digest (``heldwrite.write_held``; docs/performance.md, "The write path"). It must write exactly
what the ordinary transaction writes, and step aside whenever the row in the database
is not the one held."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, select, text, update
from sqlalchemy.orm import Session, make_transient_to_detached, sessionmaker

from app import engine
from app.engine import memo
from app.services import gamelog, heldwrite, moves
from app.services.errors import ServiceError, StaleVersion
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Event, Game, Seat, User
from tests.conftest import create_pg_database, drop_pg_database, migrate
from tests.games import two_person_game_at

pytestmark = pytest.mark.postgres

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def _factory(url: str) -> sessionmaker[Session]:
    return make_sessionmaker(make_engine(url))


@pytest.fixture
def factory(pg_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(pg_url)
    made = _factory(pg_url)
    yield made
    made.kw["bind"].dispose()


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the one-statement writes tried and those that wrote."""
    counts = {"tried": 0, "written": 0}
    real = heldwrite.write_held

    def write_held(*args: Any, **kwargs: Any) -> str | None:
        counts["tried"] += 1
        digest = real(*args, **kwargs)
        counts["written"] += digest is not None
        return digest

    monkeypatch.setattr(heldwrite, "write_held", write_held)
    return counts


def _start(factory: sessionmaker[Session]) -> tuple[int, int, dict[int, int]]:
    """A teaching table at the engine's first position for a fixed seed: the same game,
    move for move, in whichever database it is set up."""
    state = engine.new_game("teaching", ["kushan", "han"], 7, None)
    gid, version, alice, bob = two_person_game_at(factory, state)
    return gid, version, {0: alice.id, 1: bob.id}


def _position(factory: sessionmaker[Session], gid: int) -> tuple[int, dict[str, Any]]:
    with factory() as db:
        row, state = gamelog.read_current(db, gid)
        assert state is not None
        return row.version, state


def _submit(
    factory: sessionmaker[Session],
    gid: int,
    users: dict[int, int],
    action: dict[str, Any],
    version: int,
    *,
    ordinary: bool = False,
    key: str | None = None,
) -> moves.ActionResult:
    """The move as a socket or an HTTP request submits it: a fresh session, committed.
    `ordinary` opens the session's transaction first, which the held path never joins."""
    with factory() as db:
        if ordinary:
            db.execute(text("SELECT 1"))
        move = dict(action)
        seat = int(move.pop("_seat"))
        result = moves.submit_action(db, gid, users[seat], move, version, key, now=NOW)
        db.commit()
        return result


def _choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    seat = engine.pending(state)[0]["seat"]
    action = dict(rng.choice(engine.legal_actions(state, seat)))
    action["_seat"] = seat
    return action


def _rows(factory: sessionmaker[Session], gid: int) -> dict[str, Any]:
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        actions = db.scalars(select(Action).where(Action.game_id == gid).order_by(Action.seq))
        events = db.scalars(select(Event).where(Event.game_id == gid).order_by(Event.seq))
        return {
            "game": (
                game.status,
                game.version,
                game.last_action,
                game.last_event,
                game.state_seq,
                game.deadlines,
                game.next_deadline,
                game.clocks,
                game.undo_seat,
                game.server_turn,
                game.outcome,
            ),
            "actions": [
                (a.seq, a.seat, a.action, a.source, a.user_id, a.idempotency_key)
                + (a.version, a.can_undo, a.result, a.first_event, a.last_event)
                for a in actions
            ],
            "events": [(e.seq, e.action_seq, e.visible_to, e.payload) for e in events],
        }


def test_a_held_move_writes_what_the_ordinary_transaction_writes(
    factory: sessionmaker[Session], pg_server_url: str, spy: dict[str, int]
) -> None:
    """The same moves in two databases, one through the held path wherever it may go,
    the other always through the ordinary transaction: every answer and every row the
    same (snapshots, forced moves and the end included, as far as 120 moves go)."""
    other_url = create_pg_database(pg_server_url)
    try:
        migrate(other_url)
        other = _factory(other_url)
        gid, _, users = _start(factory)
        gid_o, _, users_o = _start(other)
        rng = random.Random(11)
        for _ in range(120):
            version, state = _position(factory, gid)
            if engine.outcome(state) is not None:
                break
            action = _choose(state, rng)
            key = f"k{version}"
            held = _submit(factory, gid, users, action, version, key=key)
            plain = _submit(other, gid_o, users_o, action, version, ordinary=True, key=key)
            assert {**held.to_json(), "game_id": 0} == {**plain.to_json(), "game_id": 0}
        assert _rows(factory, gid) == _rows(other, gid_o)
        # Most moves went in one statement; a snapshot is due every 25 actions.
        assert spy["written"] >= 80, spy
        with factory() as db:
            row, state = gamelog.read_current(db, gid)
            gamelog.states.clear()  # the state again from the log, not from memory
            _, replayed = gamelog.read_current(db, gid)
        assert engine.state_hash(state) == engine.state_hash(replayed)  # type: ignore[arg-type]
        other.kw["bind"].dispose()
    finally:
        drop_pg_database(other_url)


def test_a_held_move_is_one_statement_outside_any_transaction(
    factory: sessionmaker[Session],
) -> None:
    gid, _, users = _start(factory)
    rng = random.Random(3)
    version, state = _position(factory, gid)
    _submit(factory, gid, users, _choose(state, rng), version)  # warm: now held
    version, state = _position(factory, gid)
    action = _choose(state, rng)
    seat = int(action.pop("_seat"))
    statements: list[str] = []
    sent: list[str] = []
    bind = factory.kw["bind"]

    def count(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        statements.append(sql)

    real = psycopg.Connection.execute

    def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query).split()[0])
        return real(self, query, *args, **kwargs)

    event.listen(bind, "before_cursor_execute", count)
    psycopg.Connection.execute = execute  # type: ignore[method-assign]
    try:
        with factory() as db:
            result = moves.submit_action(db, gid, users[seat], action, version, "key-1")
            raw: Any = db.connection().connection.driver_connection
            # Committed by the statement itself: no transaction is open on the connection.
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            db.commit()
    finally:
        psycopg.Connection.execute = real  # type: ignore[method-assign]
        event.remove(bind, "before_cursor_execute", count)
    assert statements == [] and sent == ["WITH"], (statements, sent)
    assert result.notified and result.version == version + 1
    assert _position(factory, gid)[0] == result.version


def test_a_seat_changed_without_a_new_version_sends_the_move_the_ordinary_way(
    factory: sessionmaker[Session], spy: dict[str, int]
) -> None:
    """A seat's count of time-outs changed by another writer moves no version, but
    changes the row's digest: the held write finds no row to update, and the ordinary
    transaction makes the move (leaving the count as it is)."""
    gid, _, users = _start(factory)
    rng = random.Random(4)
    version, state = _position(factory, gid)
    _submit(factory, gid, users, _choose(state, rng), version)
    version, state = _position(factory, gid)
    action = _choose(state, rng)
    with factory() as db:
        db.execute(
            update(Seat).where(Seat.game_id == gid, Seat.index == action["_seat"]).values(missed=2)
        )
        db.commit()
    before, frozen = dict(spy), memo.frozen_count()
    result = _submit(factory, gid, users, action, version)
    assert spy["tried"] == before["tried"] + 1 and spy["written"] == before["written"]
    assert not result.notified and result.version > version
    # The position the held path froze and then let go of was thawed: the cache holds
    # the new position in place of the old one, and nothing else stays frozen.
    assert memo.frozen_count() == frozen
    with factory() as db:
        missed = db.scalar(
            select(Seat.missed).where(Seat.game_id == gid, Seat.index == action["_seat"])
        )
    assert missed == 2


def test_another_process_wrote_first_so_the_held_move_is_stale(
    factory: sessionmaker[Session], pg_url: str, spy: dict[str, int]
) -> None:
    """A second process (its own engine and caches: another URL for the same database)
    moves the game on; this process still holds the older version, and its move at that
    version is refused as stale, exactly as the ordinary path refuses it."""
    gid, _, users = _start(factory)
    rng = random.Random(5)
    version, state = _position(factory, gid)
    _submit(factory, gid, users, _choose(state, rng), version)
    version, state = _position(factory, gid)
    elsewhere = _factory(pg_url + "?application_name=other")
    try:
        theirs = _choose(state, rng)
        _submit(elsewhere, gid, users, theirs, version, ordinary=True)
        before = dict(spy)
        with pytest.raises(StaleVersion):
            _submit(factory, gid, users, theirs, version)
        assert spy["tried"] == before["tried"] + 1 and spy["written"] == before["written"]
    finally:
        elsewhere.kw["bind"].dispose()


def test_a_retry_is_answered_and_a_reused_key_refused_as_on_the_ordinary_path(
    factory: sessionmaker[Session],
) -> None:
    gid, _, users = _start(factory)
    rng = random.Random(6)
    version, state = _position(factory, gid)
    _submit(factory, gid, users, _choose(state, rng), version)
    version, state = _position(factory, gid)
    action = _choose(state, rng)
    first = _submit(factory, gid, users, action, version, key="same")
    assert first.notified
    again = _submit(factory, gid, users, action, version, key="same")
    assert again.replayed and {**again.to_json(), "replayed": False} == first.to_json()
    # The key again on another move: the statement's insert meets the unique key, writes
    # nothing, and the ordinary path refuses the reuse.
    version, state = _position(factory, gid)
    with pytest.raises(ServiceError):
        _submit(factory, gid, users, _choose(state, rng), version, key="same")
    assert _position(factory, gid)[0] == version


def test_deadlines_written_in_one_statement_are_those_of_the_ordinary_path(
    factory: sessionmaker[Session],
) -> None:
    """The game row's JSON and timestamp columns round-trip through the statement's
    parameters: the deadline is the pace's span from the move."""
    gid, _, users = _start(factory)
    with factory() as db:
        db.execute(update(Game).where(Game.id == gid).values(pace="24h"))
        db.commit()
    rng = random.Random(8)
    for _ in range(2):
        version, state = _position(factory, gid)
        result = _submit(factory, gid, users, _choose(state, rng), version)
    assert result.notified
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        due = [datetime.fromisoformat(v) for v in game.deadlines.values() if v]
    assert due and all(d == NOW + timedelta(hours=24) for d in due), game.deadlines
    assert game.next_deadline == NOW + timedelta(hours=24)


def test_a_session_that_only_attached_rows_or_ended_its_read_still_writes_in_one_statement(
    factory: sessionmaker[Session], spy: dict[str, int]
) -> None:
    """A request's session that attached its login from the cache (a merge without a
    read), or read its login and ended that read, has begun no database transaction: the
    move is still one statement. One with a change to flush goes the ordinary way, so
    that the change and the move commit together."""
    gid, _, users = _start(factory)
    rng = random.Random(5)
    version, state = _position(factory, gid)
    _submit(factory, gid, users, _choose(state, rng), version)  # warm: now held
    before = dict(spy)

    def move(prepare: Any) -> None:
        version, state = _position(factory, gid)
        action = _choose(state, rng)
        seat = int(action.pop("_seat"))
        with factory() as db:
            prepare(db, seat)
            moves.submit_action(db, gid, users[seat], action, version, None, now=NOW)
            db.commit()

    def attached(db: Session, seat: int) -> None:
        user = db.get(User, users[seat])  # read, then let go of, as a cache miss does
        assert user is not None
        values = {k: getattr(user, k) for k in ("id", "username", "username_key")}
        db.rollback()
        db.expunge_all()
        detached = User(**values)
        make_transient_to_detached(detached)
        db.merge(detached, load=False)  # what the login cache's hit does
        assert db.in_transaction()

    move(attached)
    assert spy["written"] == before["written"] + 1, spy

    def pending(db: Session, seat: int) -> None:
        db.add(Event(game_id=gid, seq=10_000, action_seq=0, visible_to=None, payload={}))

    move(pending)
    assert spy["tried"] == before["tried"] + 1, spy  # the ordinary way: not even tried
    with factory() as db:  # committed with the move
        assert db.scalar(select(Event.seq).where(Event.game_id == gid, Event.seq == 10_000))


def test_a_row_locked_elsewhere_is_not_waited_for(
    factory: sessionmaker[Session], spy: dict[str, int]
) -> None:
    """Another writer holds the game's row lock (its transaction is moving the game on):
    the one statement does not wait for it (``NOWAIT``) but writes nothing at once, so
    that it may run on the event loop (app/store/blocking.py); the ordinary path is the
    one that waits."""
    import threading
    import time

    gid, _, users = _start(factory)
    rng = random.Random(6)
    version, state = _position(factory, gid)
    _submit(factory, gid, users, _choose(state, rng), version)
    version, state = _position(factory, gid)
    holder = factory()
    holder.execute(text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": gid})
    # Without NOWAIT the statement would wait for this lock: let it go after 3 s.
    release = threading.Timer(3.0, holder.rollback)
    release.start()
    try:
        before = dict(spy)
        with factory() as db:
            held = heldwrite.held(gamelog.db_key(db), gid, version)
            assert held is not None
            game, _position_held, digest = held
            game.version += 1
            started = time.monotonic()
            written = heldwrite.write_held(
                db, game, version, digest, gamelog.Appends(actions=[], events=[])
            )
            waited = time.monotonic() - started
        assert written is None and waited < 1.0
        assert spy["tried"] == before["tried"] + 1 and spy["written"] == before["written"]
    finally:
        release.cancel()
        release.join()
        holder.rollback()
        holder.close()
    assert _position(factory, gid)[0] == version  # nothing was written
