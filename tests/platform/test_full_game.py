"""A whole teaching game, a person (playing at random) against a bot, through the
services: it ends, the lobby lists it as finished with its winner, its record
verifies, and a rematch seats the same table."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from sqlalchemy import select

from app import engine
from app.bots.temperament import label, temperament_for
from app.realtime.bots import drain
from app.services import accounts, gamelog, lobby, moves, play, records, starting
from app.services.verify_cli import main as verify
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game, User


def test_a_game_to_its_end(migrated_url: str, tmp_path: Path) -> None:
    eng = make_engine(migrated_url)
    factory = make_sessionmaker(eng)
    rng = random.Random(3)
    try:
        with factory() as db:
            alice = accounts.signup(db, "alice", "correct horse 1")
            game = lobby.create_game(
                db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "random")]
            )
            starting.start(db, game, alice)
            db.commit()
            gid, uid = game.id, alice.id
        drain(factory, gid)  # the bot worker's moves, here without a server
        for step in range(2000):
            with factory() as db:
                view: dict[str, Any] = play.seat_view(db, gid, uid)
                if view["status"] != "active":
                    break
                assert view["legal_actions"], "the person owes nothing, yet the game waits"
                action = rng.choice(view["legal_actions"])
                moves.submit_action(db, gid, uid, action, view["version"], f"k{step}")
                db.commit()
            drain(factory, gid)
        with factory() as db:
            game = db.get(Game, gid)
            assert game is not None
            assert game.status == "finished" and game.outcome is not None
            assert game.deadlines == {} and game.next_deadline is None
            assert engine.outcome(gamelog.load_state(game, db)) == game.outcome
            finished = lobby.finished_games(db, uid)
            assert [g.id for g in finished] == [gid]
            summary = lobby.game_summary(finished[0], uid)
            assert summary["winner"] and summary["status"] == "finished"
            assert gid not in [g.id for g in lobby.my_games(db, uid)]
            sources = set(db.scalars(select(Action.source).where(Action.game_id == gid)))
            # "forced": a move that was no choice, played for the person.
            assert {"player", "bot"} <= sources <= {"player", "bot", "forced"}
            # The bot's temperament, kept from the table while it played, is told now.
            told = {"1": label(temperament_for(game.seed, 1))}
            assert (game.result_notes or {}).get("temperaments") == told
            assert play.seat_view(db, gid, uid)["result_notes"]["temperaments"] == told
            record = records.record_for_player(db, gid, None)
            assert record["temperaments"] == told
            path = tmp_path / "record.json"
            path.write_text(json.dumps(record))
            assert verify([str(path)]) == 0
            host = db.get(User, uid)
            assert host is not None
            again = lobby.rematch(db, game, host)
            db.commit()
            assert [(s.user_id, s.bot_level) for s in again.seats] == [
                (uid, None),
                (None, "random"),
            ]
    finally:
        eng.dispose()
