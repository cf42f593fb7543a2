"""Operating games: `admin list|inspect|replay|abort|export` and `verify FILE`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.realtime.bots import drain
from app.services import accounts, lobby, moves, play, records, starting
from app.services.admin_cli import main as admin
from app.services.errors import Conflict
from app.services.verify_cli import main as verify
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Game


@pytest.fixture
def game_with_moves(migrated_url: str) -> int:
    eng = make_engine(migrated_url)
    try:
        factory = make_sessionmaker(eng)
        with factory() as db:
            alice = accounts.signup(db, "alice", "correct horse 1")
            game = lobby.create_game(
                db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "random")]
            )
            starting.start(db, game, alice)
            db.commit()
            for _ in range(4):
                drain(factory, game.id)  # the bot worker's moves, here without a server
                view = play.seat_view(db, game.id, alice.id)
                if not view["legal_actions"]:
                    break
                moves.submit_action(
                    db, game.id, alice.id, view["legal_actions"][-1], view["version"], None
                )
                db.commit()
            return game.id
    finally:
        eng.dispose()


def test_list_inspect_replay(migrated_url: str, game_with_moves: int, capsys: Any) -> None:
    assert admin(["--url", migrated_url, "list"]) == 0
    out = capsys.readouterr().out
    assert f"{game_with_moves:>6}  active" in out and "alice" in out
    assert admin(["--url", migrated_url, "inspect", str(game_with_moves)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["id"] == game_with_moves and info["actions"] >= 1 and info["state_hash"]
    assert admin(["--url", migrated_url, "replay", str(game_with_moves)]) == 0
    assert "OK" in capsys.readouterr().out
    assert admin(["--url", migrated_url, "inspect", "999999"]) == 1


def test_replay_detects_a_tampered_log(
    migrated_url: str, game_with_moves: int, capsys: Any
) -> None:
    eng = make_engine(migrated_url)
    with make_sessionmaker(eng)() as db:
        game = db.get(Game, game_with_moves)
        assert game is not None
        game.seed = (game.seed or 0) + 1  # another seed: other draws, another state
        db.commit()
    eng.dispose()
    assert admin(["--url", migrated_url, "replay", str(game_with_moves)]) != 0


def test_abort_then_export_and_verify(
    migrated_url: str, game_with_moves: int, tmp_path: Path, capsys: Any
) -> None:
    eng = make_engine(migrated_url)
    with make_sessionmaker(eng)() as db, pytest.raises(Conflict):
        records.record_for_player(db, game_with_moves, None)  # not while it runs
    assert admin(["--url", migrated_url, "abort", str(game_with_moves)]) == 0
    assert admin(["--url", migrated_url, "abort", str(game_with_moves)]) == 1
    capsys.readouterr()
    with make_sessionmaker(eng)() as db:
        record = records.record_for_player(db, game_with_moves, None)
    eng.dispose()
    assert record["status"] == "aborted" and record["actions"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert verify([str(path)]) == 0
    assert "OK" in capsys.readouterr().out
    record["state_hash"] = "0" * 64
    path.write_text(json.dumps(record))
    assert verify([str(path)]) == 1
    path.write_text("{}")
    assert verify([str(path)]) == 2
