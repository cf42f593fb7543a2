"""The bot worker of a process that is stopping (``BotWorker.drain``, SIGTERM): a bot's
move in flight is committed and published if it is ready within the grace; one still
being thought at the deadline is dropped uncommitted, and another process's worker
plays it, once."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app import bots
from app.realtime.bots import BotWorker, drain
from app.store.models import Action, Game
from tests.platform.test_bot_worker import alice_moves, bot_game
from tests.platform.test_bot_worker import factory as factory  # noqa: F401 (the fixture)


def bot_due(factory: sessionmaker[Session]) -> tuple[int, int]:  # noqa: F811
    """A game whose bot must answer now: (game id, bot moves logged so far)."""
    gid, uid = bot_game(factory)
    for _ in range(20):
        drain(factory, gid)
        assert alice_moves(factory, gid, uid) is not None
        with factory() as db:
            game = db.get(Game, gid)
            assert game is not None
            if game.server_turn:
                return gid, bot_moves(factory, gid)
    pytest.skip("alice's moves never handed the turn to the bot")


def bot_moves(factory: sessionmaker[Session], gid: int) -> int:  # noqa: F811
    with factory() as db:
        return int(
            db.scalar(select(func.count()).where(Action.game_id == gid, Action.source == "bot"))
            or 0
        )


@pytest.mark.parametrize("ready", [True, False], ids=["ready-in-time", "still-thinking"])
def test_a_stopping_worker_commits_a_ready_move_and_leaves_a_late_one(
    factory: sessionmaker[Session],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    ready: bool,
) -> None:
    gid, before = bot_due(factory)
    thinking, release = threading.Event(), threading.Event()
    real = bots.choose_action

    def held(*args: Any, **kw: Any) -> Any:
        thinking.set()
        release.wait(10)
        return real(*args, **kw)

    monkeypatch.setattr(bots, "choose_action", held)
    published: list[int] = []
    worker = BotWorker(
        factory, lambda _g, version, _n: published.append(version), sweep_s=0.05, threads=1
    )

    async def stop_while_it_thinks() -> None:
        await worker.start()
        assert await asyncio.to_thread(thinking.wait, 10), "the sweep did not find the game"
        loop = asyncio.get_running_loop()
        if ready:  # the bot is done well within the grace
            loop.call_later(0.2, release.set)
            await worker.drain(loop.time() + 10)
            assert bot_moves(factory, gid) == before + 1  # committed before drain returned
        else:  # the grace runs out while it thinks; it finishes after
            await worker.drain(loop.time() + 0.2)
            release.set()
        await worker.stop()

    asyncio.run(stop_while_it_thinks())
    worker._io.shutdown(wait=True)  # the step's thread has returned
    worker._think.shutdown(wait=True)
    monkeypatch.setattr(bots, "choose_action", real)

    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        if ready:
            assert bot_moves(factory, gid) == before + 1
            assert published and published[-1] <= game.version
        else:  # nothing committed, and the game still says a bot is due ...
            assert bot_moves(factory, gid) == before
            assert game.server_turn and not published
    if not ready:  # ... so another process's worker plays it, once
        assert drain(factory, gid) >= 1
        assert bot_moves(factory, gid) >= before + 1
