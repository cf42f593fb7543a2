"""The bot worker: bots answer after the person's commit, through the same submit;
a bot that raises or thinks too long never stalls the game."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import bots, engine
from app.realtime.bots import BotWorker, drain
from app.services import accounts, gamelog, lobby, moves, play, starting
from app.services.errors import StaleVersion
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def bot_game(factory: sessionmaker[Session], bots_: int = 1) -> tuple[int, int]:
    """Alice against bots (four_empires has room for several)."""
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        scenario = "teaching" if bots_ == 1 else "four_empires"
        seats = [lobby.SeatSpec("human")] + [lobby.SeatSpec("bot", "heuristic")] * bots_
        game = lobby.create_game(db, alice, scenario, seats)
        starting.start(db, game, alice)
        db.commit()
        return game.id, alice.id


def alice_moves(factory: sessionmaker[Session], gid: int, uid: int) -> moves.ActionResult | None:
    with factory() as db:
        view = play.seat_view(db, gid, uid)
        if view["status"] != "active" or not view["legal_actions"]:
            return None
        result = moves.submit_action(db, gid, uid, view["legal_actions"][0], view["version"], None)
        db.commit()
        return result


def test_a_person_submit_never_waits_for_bots(factory: sessionmaker[Session]) -> None:
    gid, uid = bot_game(factory, bots_=3)
    drain(factory, gid)
    for _ in range(6):
        with factory() as db:
            before = db.get(Game, gid)
            assert before is not None
            version, last = before.version, before.last_action
        result = alice_moves(factory, gid, uid)
        if result is None:
            break
        # Alice's action was appended, and after it only moves that were no choice of
        # hers (forced_action), never a bot's, whoever is prompted next.
        with factory() as db:
            added = db.scalars(
                select(Action).where(Action.game_id == gid, Action.seq > last).order_by(Action.seq)
            ).all()
        assert result.seq == last + 1 and result.version == version + len(added)
        assert added[0].source == "player"
        assert all(a.source == "forced" and a.seat == added[0].seat for a in added[1:])
        with factory() as db:
            game = db.get(Game, gid)
            assert game is not None
            state = gamelog.load_state(game, db)
            by_index = {s.index: s for s in game.seats}
            due = any(moves.bot_for(by_index[p["seat"]]) for p in engine.pending(state))
            assert game.server_turn is due
        drain(factory, gid)
        with factory() as db:
            game = db.get(Game, gid)
            assert game is not None and game.server_turn is False
    with factory() as db:
        sources = set(db.scalars(select(Action.source).where(Action.game_id == gid)))
        assert {"player", "bot"} <= sources <= {"player", "bot", "forced"}


def test_a_bot_that_raises_is_restarted_then_answered_for(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, uid = bot_game(factory)
    calls: list[str] = []

    def broken(level: str, *args: Any, **kw: Any) -> Any:
        calls.append(level)
        raise RuntimeError("bot bug")

    monkeypatch.setattr(bots, "choose_action", broken)
    moves = 0
    for _ in range(5):
        moves += drain(factory, gid)
        if alice_moves(factory, gid, uid) is None:
            break
    assert moves >= 1 and len(calls) >= 2  # each prompt: tried, restarted, then defaulted
    with factory() as db:
        rows = db.scalars(select(Action).where(Action.game_id == gid, Action.source == "bot")).all()
        assert rows  # the game went on: the bot's prompts were answered
        view = play.seat_view(db, gid, uid)
        assert view["status"] != "active" or view["legal_actions"]


def test_a_slow_bot_gets_the_default_and_the_game_goes_on(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, uid = bot_game(factory)
    real = bots.choose_action

    def slow(*args: Any, **kw: Any) -> Any:
        time.sleep(1.5)
        return real(*args, **kw)

    monkeypatch.setattr(bots, "choose_action", slow)
    worker = BotWorker(factory, lambda _g, _v, _n: None, think_timeout_s=0.1, threads=1)
    try:
        for _ in range(3):
            t0 = time.monotonic()
            while worker.step(gid):
                pass
            assert time.monotonic() - t0 < 1.4 * 3  # never waits for the slow thinker
            if alice_moves(factory, gid, uid) is None:
                break
        assert worker.stats["defaults"] >= 1
    finally:
        worker._think.shutdown(wait=False, cancel_futures=True)
        worker._io.shutdown(wait=False)
    with factory() as db:
        assert db.scalar(
            select(Action.id).where(Action.game_id == gid, Action.source == "bot").limit(1)
        )


def test_a_bot_move_with_a_stale_version_is_refused(factory: sessionmaker[Session]) -> None:
    gid, uid = bot_game(factory)
    drain(factory, gid)
    alice_moves(factory, gid, uid)
    with factory() as db:
        game = gamelog.read_row(db, gid)
        state = gamelog.load_state(game, db)
        seat = moves.bot_turn(game, state)  # type: ignore[arg-type]
    if seat is None:
        pytest.skip("no bot prompt at this point of the game")
    action = engine.legal_actions(state, seat.index)[0]
    with factory() as db, pytest.raises(StaleVersion):
        moves.submit_server_move(db, gid, seat.index, action, game.version - 1)
