"""Game records: the whole game as JSON (seed + action log + final hash), and their
verification by replay. A record of a running game would reveal the seed (and with
it every hidden draw), so only finished or aborted games are exported to players."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app import engine
from app.services import gamelog, lobby
from app.services.errors import Conflict, Forbidden
from app.store import log
from app.store.models import Game

FORMAT = "imperial-glory/record@1"


def export_record(db: Session, game: Game) -> dict[str, Any]:
    state = gamelog.load_state(game)
    actions = log.actions(db, game.id)
    return {
        "format": FORMAT,
        "game_id": game.id,
        "scenario": game.scenario,
        "seats": [s.power for s in game.seats],
        "players": [s.user.username if s.user else f"bot:{s.bot_level}" for s in game.seats],
        "seed": game.seed,
        "options": game.options or {},
        "content_hash": state.get("content_hash"),
        "status": game.status,
        "version": game.version,
        "actions": [
            {"seq": a.seq, "seat": a.seat, "action": a.action, "source": a.source} for a in actions
        ],
        "outcome": game.outcome,
        # every bot seat's temperament (app/bots/temperament.py), for a finished game
        "temperaments": (game.result_notes or {}).get("temperaments", {}),
        "state_hash": engine.state_hash(state),
    }


def record_for_player(db: Session, game_id: int, user_id: int | None) -> dict[str, Any]:
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, user_id):
        raise Forbidden("This game is private.")
    if game.status not in ("finished", "aborted") or game.state is None:
        raise Conflict("The record is available once the game is over.")
    return export_record(db, game)


def replay_record(record: dict[str, Any]) -> dict[str, Any]:
    """The state obtained by replaying `record` from its seed."""
    log = [(int(a["seat"]), a["action"]) for a in record["actions"]]
    state: dict[str, Any] = engine.replay(
        record["scenario"],
        list(record["seats"]),
        int(record["seed"]),
        log,
        record.get("options") or None,
    )
    return state


def verify_record(record: dict[str, Any]) -> tuple[bool, str]:
    """(whether the replay reproduces `state_hash`, the hash it produced)."""
    if record.get("format") != FORMAT:
        raise ValueError(
            f"not a game record (format {record.get('format')!r}, expected {FORMAT!r})"
        )
    computed = engine.state_hash(replay_record(record))
    return computed == record["state_hash"], computed
