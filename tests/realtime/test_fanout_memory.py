"""Fan-out from memory: the committing process pushes what it holds (no reload), each
seat's view is the public part plus its own, and a push is never torn (its events
are exactly those of the versions up to its own `version`)."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.realtime.hub import Hub
from app.realtime.render import Rendered
from app.realtime.source import ServiceSource
from app.services import gamelog, moves, play
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game
from tests.games import two_person_game

from .conftest import make_table
from .test_ws_protocol import is_snapshot, pick


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def test_each_seat_view_is_the_public_part_with_its_own_spliced_in() -> None:
    state = engine.new_game("four_empires", ["rome", "parthia", "kushan", "han"], 3)
    rng = random.Random(8)
    for _ in range(40):
        seat = engine.pending(state)[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    seats = [{"index": i, "standin": None} for i in range(4)]
    frame = gamelog.Frame(
        game_id=1,
        version=9,
        state=state,
        fields={"game_id": 1, "status": "active", "seats": seats, "public": True},
        deadlines={},
        undo_seat=None,
        first_event=0,
        last_event=0,
        events=[],
    )
    rendered = Rendered(frame, [], None)
    for seat in (None, 0, 1, 2, 3):
        message = orjson.loads(rendered.text(seat, 0)[0])
        assert message["view"] == orjson.loads(
            orjson.dumps(engine.view(state, seat), option=orjson.OPT_NON_STR_KEYS)
        )
        legal = engine.legal_actions(state, seat) if seat is not None else []
        assert message["legal_actions"] == legal and message["version"] == 9


def first_legal_move(
    factory: sessionmaker[Session], gid: int, users: dict[int, int]
) -> moves.ActionResult:
    """The prompted seat plays its first legal action, committed."""
    with factory() as db:
        row = db.get(Game, gid)
        assert row is not None
        state = gamelog.load_state(row, db)
        seat = engine.pending(state)[0]["seat"]
        action = engine.legal_actions(state, seat)[0]
        result = moves.submit_action(db, gid, users[seat], action, row.version, None)
        db.commit()
        return result


class FakeSocket:
    def __init__(self) -> None:
        self.texts: list[str] = []

    async def send_text(self, data: str) -> None:
        self.texts.append(data)


def test_the_committing_process_pushes_from_memory_without_a_reload(
    factory: sessionmaker[Session],
) -> None:
    gid, users = two_person_game(factory)

    source = ServiceSource(factory)
    loads: list[int] = []
    real_load = source.load

    def counting_load(*args: Any) -> Any:
        loads.append(1)
        return real_load(*args)

    source.load = counting_load  # type: ignore[method-assign]

    async def scenario() -> None:
        hub = Hub(source)
        hub.bind(asyncio.get_running_loop())
        conns = {}
        for seat, uid in users.items():
            conn = hub.connection(gid, uid)
            hub.join(conn, None)
            conns[seat] = conn
        spectator = hub.connection(gid, None)
        hub.join(spectator, None)
        everyone = [*conns.values(), spectator]
        for conn in everyone:
            assert orjson.loads(await asyncio.wait_for(conn.queue.get(), 10))["type"] == "state"
        assert loads  # the hellos were answered from the database
        loads.clear()
        for _ in range(6):
            result = first_legal_move(factory, gid, users)
            hub.notify(gid, result.version, 0.0)
            for conn in everyone:
                pushed = orjson.loads(await asyncio.wait_for(conn.queue.get(), 10))
                assert pushed["type"] == "update" and pushed["version"] == result.version
                with factory() as db:
                    expected = play.seat_view(db, gid, conn.user_id)
                for key in ("view", "legal_actions", "prompts", "can_undo", "seat", "status"):
                    assert pushed[key] == orjson.loads(
                        orjson.dumps(expected[key], option=orjson.OPT_NON_STR_KEYS)
                    ), key
        assert not loads, "an update of our own commit was reloaded through the database"
        assert hub.stats["memory"] == 6
        await hub.close()

    asyncio.run(scenario())


def test_every_push_carries_the_events_of_its_own_version(
    live_server_any: Any, new_player: Any, sockets: Any
) -> None:
    """Two players act as fast as their acks allow while every seat and a spectator
    watch; afterwards, each push's events end exactly where its version's actions end
    (the log says which events each version made)."""
    server = live_server_any
    table = make_table(server, new_player)
    watchers = {}
    for player, seat in zip(table.players, table.seats, strict=True):
        watchers[seat] = sockets(server, table.game_id, player)
        watchers[seat].wait_for(is_snapshot)
    spectator = sockets(server, table.game_id, None)
    spectator.wait_for(is_snapshot)
    for _ in range(30):
        current = watchers[table.seats[0]].state
        assert current is not None
        if current["status"] != "active":
            break
        seat = int(current["prompts"][0]["seat"])
        sock = watchers[seat]
        ack = sock.act(pick(sock.state), expected_version=current["version"])
        assert ack["type"] == "ack", ack
        for other in [*watchers.values(), spectator]:
            other.wait_version(ack["version"])
    eng = make_engine(server.database_url)
    try:
        with make_sessionmaker(eng)() as db:
            rows = db.execute(
                select(Action.version, Action.last_event).where(Action.game_id == table.game_id)
            ).all()
    finally:
        eng.dispose()
    ends = {version: last for version, last in rows}
    pushes = 0
    for sock in [*watchers.values(), spectator]:
        seen = 0
        for message in sock.messages:
            if message.get("type") not in ("update", "sync", "state"):
                continue
            seqs = [e["seq"] for e in message["events"]]
            assert seqs == sorted(seqs) and (
                not seqs or seqs[0] > seen or message["type"] == "state"
            )
            if message["version"] in ends:
                end = ends[message["version"]]
                assert all(s <= end for s in seqs), (message["version"], seqs, end)
                assert message["last_seq"] <= end
                if message["type"] == "update":
                    pushes += 1
                    # Nothing of this version is held back for the next push either.
                    assert sock is spectator or message["last_seq"] >= seen
            seen = max(seen, message["last_seq"])
    assert pushes >= 30


def test_bot_moves_from_the_worker_reach_the_socket(
    live_server: Any, new_player: Any, sockets: Any
) -> None:
    """A person against a bot over the socket only: after each of the person's moves the
    bot worker answers (after the commit) and its move is pushed, until the person is
    prompted again, for many moves in a row."""
    table = make_table(live_server, new_player, humans=1, bots=1)
    me = table.seats[0]
    sock = sockets(live_server, table.game_id, table.players[0])
    sock.wait_for(is_snapshot)
    moves = 0
    for _ in range(40):
        msg = sock.wait_for(
            lambda m: (
                m.get("type") in ("state", "sync", "update")
                and (m["status"] != "active" or any(p["seat"] == me for p in m["prompts"]))
                and m["version"] >= (sock.version or 0)
            ),
            timeout=20,
            start=max(0, sock.count() - 1),
        )
        if msg["status"] != "active":
            break
        if not msg["legal_actions"]:
            continue
        ack = sock.act(pick(msg), expected_version=msg["version"])
        if ack["type"] == "error" and ack.get("status") == 409:
            continue
        assert ack["type"] == "ack", ack
        moves += 1
    assert moves >= 10


def test_an_idle_socket_does_not_hold_its_last_message() -> None:
    """The writer sends and lets go: waiting for the next message it keeps no reference
    to the last one (a first state is tens of KB; 1,200 idle sockets held 40 MB)."""
    hub = Hub(object())  # type: ignore[arg-type]  # the writer never asks the source
    sent: list[str] = []

    class Socket:
        async def send_text(self, text: str) -> None:
            sent.append(text)

    async def run() -> None:
        conn = hub.connection(1, None)
        task = asyncio.create_task(conn.pump(Socket()))
        conn.offer({"type": "state", "view": "x" * 50_000})
        while not sent:
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        frame = task.get_coro().cr_frame  # type: ignore[union-attr]
        assert frame is not None and "text" not in frame.f_locals
        conn.queue.put_nowait(None)
        await task

    asyncio.run(run())


def test_a_reload_overtaken_by_an_undo_is_read_again_not_taken_for_a_gone_game(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gamelog`` refuses a read that an undo overtook (``changed_while_read``). The
    hub's reload reads again: the error is not "the game is gone", which would close
    every socket of the game."""
    from app.realtime.hub import Want
    from app.services.errors import Conflict

    gid, users = two_person_game(factory)
    uid = users[0]
    real = gamelog.load_state
    refusals = [1]

    def overtaken_once(*args: Any, **kwargs: Any) -> Any:
        if refusals:
            refusals.pop()
            raise Conflict("changed under the read", code="changed_while_read")
        return real(*args, **kwargs)

    monkeypatch.setattr(gamelog, "load_state", overtaken_once)
    load = ServiceSource(factory).load(gid, [Want(uid, None)], None)
    assert not refusals
    seat = load.seats[uid]
    assert seat.error is None and seat.payload["version"] >= 1 and seat.payload["view"]


def test_a_change_committed_while_the_first_socket_joins_is_pushed(
    factory: sessionmaker[Session],
) -> None:
    """The first socket of a game in this process says hello; while its answer is being
    read, another request commits a change. The hub had popped the hello and had no
    member yet, so ``notify`` thought nobody watched and dropped the change: the socket
    stayed a version behind until the next one (seen after a server restart, when the
    page reconnects as a player acts)."""
    gid, users = two_person_game(factory)
    source = ServiceSource(factory)
    reading = asyncio.Event()
    go_on = threading.Event()
    real_load = source.load

    def slow_load(*args: Any) -> Any:
        result = real_load(*args)
        loop.call_soon_threadsafe(reading.set)
        go_on.wait(10)  # the change below commits while this answer is on its way
        return result

    source.load = slow_load  # type: ignore[method-assign]

    async def scenario() -> None:
        hub = Hub(source)
        hub.bind(asyncio.get_running_loop())
        uid = next(iter(users.values()))
        conn = hub.connection(gid, uid)
        hub.join(conn, None)
        await asyncio.wait_for(reading.wait(), 10)
        result = first_legal_move(factory, gid, users)
        hub.notify(gid, result.version, 0.0)
        go_on.set()
        first = orjson.loads(await asyncio.wait_for(conn.queue.get(), 10))
        assert first["type"] == "state" and first["version"] == result.version - 1
        pushed = orjson.loads(await asyncio.wait_for(conn.queue.get(), 10))
        assert pushed["type"] == "update" and pushed["version"] == result.version
        await hub.close()

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(scenario())
    finally:
        loop.close()


def test_a_retried_socket_action_is_published_again(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retry (the same idempotency key) is answered from the log and published again:
    its first attempt may have committed and lost its answer (a connection lost
    mid-statement) before anything was pushed, and the hub looks at a version it already
    pushed only once more."""
    from app.services import logins, publisher

    gid, users = two_person_game(factory)
    monkeypatch.setattr(logins, "user_id_for_token", lambda _db, token: int(token))
    published: list[int] = []
    monkeypatch.setattr(
        publisher, "publish", lambda _g, version, _n=False: published.append(version)
    )
    with factory() as db:
        row, state = gamelog.read_current(db, gid)
    assert state is not None
    seat = engine.pending(state)[0]["seat"]
    message = {
        "type": "action",
        "action": engine.legal_actions(state, seat)[0],
        "expected_version": row.version,
        "idempotency_key": "again",
    }
    source = ServiceSource(factory)
    first = source.submit(gid, users[seat], message, str(users[seat]))
    again = source.submit(gid, users[seat], message, str(users[seat]))
    assert first["type"] == again["type"] == "ack" and again["replayed"] is True
    assert published == [first["version"], first["version"]]
