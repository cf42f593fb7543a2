"""The append-only write path: few statements per action, snapshots every N actions
with their hashes, the in-memory state committed-only, orjson byte for byte."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import delete, event, select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.services import gamelog, moves, play
from app.services.errors import Conflict, Invalid
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Event, Game, Snapshot
from tests.games import two_person_game


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def position(db: Session, gid: int) -> tuple[Game, dict[str, Any], int, list[dict[str, Any]]]:
    """The game row, its state, the first prompted seat and that seat's legal actions."""
    game = db.get(Game, gid)
    assert game is not None
    state = gamelog.load_state(game, db)
    seat = engine.pending(state)[0]["seat"]
    return game, state, seat, engine.legal_actions(state, seat)


def step(
    factory: sessionmaker[Session],
    gid: int,
    users: dict[int, int],
    rng: Any,
    prefer: tuple[str, ...] = (),
) -> tuple[Any, int]:
    """One random legal action by the prompted seat (of a `prefer`red type if it has
    one), committed: (its result, the seat)."""
    with factory() as db:
        game, _, seat, legal = position(db, gid)
        action = rng.choice([a for a in legal if a["type"] in prefer] or legal)
        result = moves.submit_action(db, gid, users[seat], action, game.version, None)
        db.commit()
        return result, seat


def test_snapshots_every_n_actions_carry_the_hash_of_the_replay(
    factory: sessionmaker[Session],
) -> None:
    gid, users = two_person_game(factory)
    rng = random.Random(5)
    for _ in range(2 * gamelog.SNAPSHOT_EVERY + 3):
        if step(factory, gid, users, rng)[0].status != "active":
            break
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        actions = db.scalars(select(Action).where(Action.game_id == gid).order_by(Action.seq)).all()
        snaps = db.scalars(
            select(Snapshot).where(Snapshot.game_id == gid).order_by(Snapshot.action_seq)
        ).all()
        # A snapshot goes with the first write that brings the actions since the last one
        # to SNAPSHOT_EVERY or more: a person's move and the forced moves it set off are
        # one write, so a snapshot can land a little past a multiple of N.
        ends = [
            a.seq
            for a, after in zip(actions, [*actions[1:], None], strict=True)
            if after is None or after.source == "player"
        ]
        expected, last = [0], 0
        for end in ends:
            if end - last >= gamelog.SNAPSHOT_EVERY:
                expected.append(end)
                last = end
        assert [s.action_seq for s in snaps] == expected
        assert len(expected) >= 3
        assert game.state_seq == snaps[-1].action_seq and game.state == snaps[-1].state
        seats = [s.power or "" for s in game.seats]
        for snap in snaps:
            upto = [(a.seat, a.action) for a in actions[: snap.action_seq]]
            replayed = engine.replay(game.scenario, seats, game.seed or 0, upto)
            assert snap.state_hash == engine.state_hash(replayed)
            assert snap.state == engine.dumps(replayed)
        # A cold load (another process: nothing cached) = snapshot + the actions after it.
        gamelog.states.clear()
        replayed = engine.replay(
            game.scenario, seats, game.seed or 0, [(a.seat, a.action) for a in actions]
        )
        assert engine.dumps(gamelog.load_state(game, db)) == engine.dumps(replayed)


def test_a_submit_is_a_handful_of_statements(factory: sessionmaker[Session]) -> None:
    gid, users = two_person_game(factory)
    rng = random.Random(2)
    step(factory, gid, users, rng)  # warm: the state is in memory from now on
    statements: list[str] = []
    bind = factory.kw["bind"]

    def count(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        statements.append(sql.split()[0].upper())

    event.listen(bind, "before_cursor_execute", count)
    try:
        with factory() as db:
            game = db.get(Game, gid)
            assert game is not None
            state = gamelog.load_state(game, db)
            seat = engine.pending(state)[0]["seat"]
            action = rng.choice(engine.legal_actions(state, seat))
            statements.clear()
            moves.submit_action(db, gid, users[seat], action, game.version, "key-1")
            db.commit()
    finally:
        event.remove(bind, "before_cursor_execute", count)
    # The lock (game + seats + what the idempotency key holds: one statement), the
    # events, then the action and the game row: on PostgreSQL one statement (the action
    # a data-modifying CTE of the game row's UPDATE), on SQLite two. No state rewrite, no
    # replay, no ORM unit of work.
    core = [s for s in statements if s not in ("BEGIN", "PRAGMA")]
    if bind.dialect.name == "postgresql":
        assert core in (["SELECT", "INSERT", "WITH"], ["SELECT", "WITH"]), statements
    else:
        assert core in (["SELECT", "INSERT", "INSERT", "UPDATE"], ["SELECT", "INSERT", "UPDATE"])


@pytest.mark.parametrize("count", [1, gamelog.MERGE_MAX_ACTIONS, gamelog.MERGE_MAX_ACTIONS + 1])
def test_rows_written_with_the_game_row_are_the_rows_record_writes(
    factory: sessionmaker[Session], count: int
) -> None:
    """``record`` into `Appends` + ``write_row`` (PostgreSQL: the actions in the game
    row's UPDATE, or on their own past MERGE_MAX_ACTIONS) leaves the same rows as
    ``record`` writing at once."""
    gid, users = two_person_game(factory)
    written: dict[bool, Any] = {}
    for held in (False, True):
        with factory() as db:
            game = gamelog.lock_row(db, gid)
            state = gamelog.load_state(game, db)
            appends = gamelog.Appends() if held else None
            for i in range(count):
                events = [{"type": "note", "i": i}, {"type": "secret", "i": i, "to": [1]}]
                action = {"type": "pass", "i": i}
                gamelog.record(
                    db, game, 0, action, events, "player", users[0], f"k{i}", appends=appends
                )
            gamelog.write_row(db, game, state, snapshot=False, appends=appends)
            actions = db.execute(
                select(Action).where(Action.game_id == gid).order_by(Action.seq)
            ).scalars()
            events_ = db.execute(
                select(Event).where(Event.game_id == gid).order_by(Event.seq)
            ).scalars()
            row = db.get(Game, gid, populate_existing=True)
            assert row is not None
            written[held] = (
                [
                    (a.seq, a.seat, a.action, a.user_id, a.idempotency_key, a.version)
                    + (a.first_event, a.last_event, a.can_undo, a.result, a.source)
                    for a in actions
                ],
                [(e.seq, e.action_seq, e.visible_to, e.payload) for e in events_],
                (row.version, row.last_action, row.last_event),
            )
            db.rollback()
    assert written[True] == written[False]
    assert len(written[True][0]) >= count and len(written[True][1]) >= 2 * count


def test_a_rolled_back_submit_leaves_nothing_in_memory(factory: sessionmaker[Session]) -> None:
    gid, users = two_person_game(factory)
    rng = random.Random(9)
    step(factory, gid, users, rng)
    with factory() as db:
        game, state, seat, legal = position(db, gid)
        moves.submit_action(db, gid, users[seat], legal[0], game.version, None)
        db.rollback()  # e.g. the commit failed: nothing happened
    # Another action at the same version: the state it starts from is the committed one.
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        assert engine.dumps(gamelog.load_state(game, db)) == engine.dumps(state)
        moves.submit_action(db, gid, users[seat], legal[-1], game.version, None)
        db.commit()
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        actions = db.scalars(select(Action).where(Action.game_id == gid).order_by(Action.seq)).all()
        seats = [s.power or "" for s in game.seats]
        replayed = engine.replay(
            game.scenario, seats, game.seed or 0, [(a.seat, a.action) for a in actions]
        )
        assert engine.dumps(gamelog.load_state(game, db)) == engine.dumps(replayed)


def _replayed(db: Session, gid: int, upto: int) -> dict[str, Any]:
    game = db.get(Game, gid)
    assert game is not None
    actions = db.scalars(
        select(Action).where(Action.game_id == gid, Action.seq <= upto).order_by(Action.seq)
    ).all()
    seats = [s.power or "" for s in game.seats]
    return engine.replay(
        game.scenario, seats, game.seed or 0, [(a.seat, a.action) for a in actions]
    )


def test_a_reader_is_not_torn_by_a_snapshot_written_while_it_reads(
    factory: sessionmaker[Session],
) -> None:
    """A reader (a GET of the view, the bot worker) reads the game row and then, on a
    cache miss, the snapshot. A writer that commits a snapshot in between must not make
    it replay the row's actions onto the newer snapshot (once a 500 in a browser test:
    the replay refused an action it had already applied)."""
    gid, users = two_person_game(factory)
    rng = random.Random(7)
    # Step to a row whose next action makes a snapshot due (a step may commit more
    # than one action: a move that is no choice is played with it).
    for _ in range(4 * gamelog.SNAPSHOT_EVERY):
        with factory() as db:
            row = gamelog.read_row(db, gid)
        if row.last_action - row.state_seq == gamelog.SNAPSHOT_EVERY - 1:
            break
        step(factory, gid, users, rng)
    else:
        pytest.fail("never one action short of a snapshot")
    with factory() as reader:
        row = gamelog.read_row(reader, gid)
        assert row.last_action - row.state_seq == gamelog.SNAPSHOT_EVERY - 1
        step(factory, gid, users, rng)  # commits the next action and a snapshot after it
        gamelog.states.clear()  # another process: nothing cached
        state = gamelog.load_state(row, reader)
        assert engine.dumps(state) == engine.dumps(_replayed(reader, gid, row.last_action))
        reader.rollback()
    with factory() as db:
        assert db.get(Game, gid).state_seq > row.state_seq  # type: ignore[union-attr]


def test_a_reader_overtaken_by_an_undo_reads_the_game_again(
    factory: sessionmaker[Session],
) -> None:
    """An undo removes the last action the reader's row counts: replaying what is left
    would pass off an older state as that version, so the load refuses it and
    ``read_current`` reads the game again."""
    gid, users = two_person_game(factory)
    rng = random.Random(3)
    for _ in range(80):
        _, seat = step(factory, gid, users, rng, prefer=("tax", "remove_tie", "dismiss"))
        with factory() as reader:
            row = gamelog.read_row(reader, gid)
            with factory() as db:
                try:
                    play.undo(db, gid, users[seat], row.version)
                except Invalid:
                    continue
                db.commit()
            gamelog.states.clear()  # another process: nothing cached
            with pytest.raises(Conflict) as refused:
                gamelog.load_state(row, reader)
            assert refused.value.code == "changed_while_read"
            again, state = gamelog.read_current(reader, gid)
            assert again.version == row.version + 1
            assert again.last_action == row.last_action - 1
            assert state is not None
            assert engine.dumps(state) == engine.dumps(_replayed(reader, gid, again.last_action))
            return
    pytest.fail("no undoable decision in 80 steps")


def test_a_game_without_its_snapshot_rows_loads_from_the_game_row(
    factory: sessionmaker[Session],
) -> None:
    """A game saved before the append-only log has no ``snapshots`` row at its
    ``state_seq``: a reader takes the game row's text, and a row that names a snapshot
    written later than itself (another history) is refused."""
    gid, users = two_person_game(factory)
    rng = random.Random(4)
    for _ in range(gamelog.SNAPSHOT_EVERY + 3):
        step(factory, gid, users, rng)
    with factory() as db:
        db.execute(delete(Snapshot).where(Snapshot.game_id == gid))
        db.commit()
    gamelog.states.clear()
    with factory() as reader:
        row, state = gamelog.read_current(reader, gid)
        assert state is not None and row.state_seq == gamelog.SNAPSHOT_EVERY
        assert engine.dumps(state) == engine.dumps(_replayed(reader, gid, row.last_action))
        gamelog.states.clear()
        older = dataclasses.replace(row, version=row.version - 1)
        game = reader.get(Game, gid)
        assert game is not None
        gamelog.add_snapshot(reader, gid, row.state_seq, row.version, game.state or "", state)
        with pytest.raises(Conflict):
            gamelog.load_state(older, reader)
        reader.rollback()


def test_orjson_is_byte_for_byte_the_engine_canonical_json() -> None:
    state = engine.new_game("four_empires", ["rome", "parthia", "kushan", "han"], 11)
    rng = random.Random(4)
    for _ in range(120):
        assert gamelog.dumps(state) == engine.dumps(state)
        assert gamelog.state_hash(state) == engine.state_hash(state)
        prompts = engine.pending(state)
        if not prompts:
            break
        seat = prompts[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))


def test_the_state_cache_freezes_what_it_holds_and_thaws_what_it_lets_go() -> None:
    """Cached states are shared read-only: frozen while held (the engine remembers
    their legal actions once per version), thawed when replaced, evicted or cleared."""
    from app.engine import memo

    cache = gamelog.StateCache(size=2)
    states = [engine.new_game("teaching", ["kushan", "han"], seed=s) for s in range(4)]
    try:
        cache.put("db", 1, 1, 0, states[0])
        assert memo.tracked(states[0]) is not None
        cache.put("db", 1, 2, 0, states[1])  # a new version replaces the old one
        assert memo.tracked(states[0]) is None and memo.tracked(states[1]) is not None
        cache.put("db", 2, 1, 0, states[2])
        cache.put("db", 3, 1, 0, states[3])  # game 1 is the oldest: evicted
        assert memo.tracked(states[1]) is None
        assert cache.get("db", 3, 1, 0) is states[3]
        cache.clear()
        assert all(memo.tracked(s) is None for s in states)
    finally:
        cache.clear()
