"""Table talk: the seated players (and the host) post; whoever may see the game reads.

Chat does not bump the game's version (it must not make a pending decision stale)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.services import lobby, unit
from app.services.errors import Forbidden, Invalid
from app.store import chat as store
from app.store import moderation as blocked
from app.store.models import ChatMessage, Game, User

MAX_CHARS = 1000


def post(db: Session, game_id: int, user: User, text: str) -> ChatMessage:
    """Say `text` at the table: one change through the unit of work, which commits it
    and pushes it to the game's sockets (no new version: a chat line is not the game's)."""
    return unit.change(db, game_id, lambda work, game: _post(db, work, game, user, text))


def _post(db: Session, work: unit.Work, game: Game, user: User, text: str) -> ChatMessage:
    if lobby.seat_of(game, user.id) is None and game.host_id != user.id:
        raise Forbidden("Only the players of this game can talk at its table.")
    text = text.strip()
    if not text:
        raise Invalid("Say something first.", field="text")
    if len(text) > MAX_CHARS:
        raise Invalid(f"Keep it under {MAX_CHARS} characters.", field="text")
    message = ChatMessage(game_id=game.id, user_id=user.id, text=text)
    db.add(message)
    work.told(game)
    return message


def since(
    db: Session,
    game_id: int,
    user_id: int | None,
    after_id: int = 0,
    limit: int = 200,
    everyone: bool = False,
) -> list[dict[str, Any]]:
    """The game's chat lines after `after_id` that `user_id` may read: none of the people
    she blocks (app/services/moderation.py). `everyone`: every line, for the realtime
    hub, which filters each socket's own (``GameLoad.hidden``)."""
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, user_id):
        raise Forbidden("This game is private.")
    hide = blocked.blocked_ids(db, user_id) if user_id is not None and not everyone else ()
    rows = store.messages_after(db, game_id, after_id, limit, hide)
    return [message_json(m) for m in rows]


def message_json(m: ChatMessage) -> dict[str, Any]:
    return {
        "id": m.id,
        "user_id": m.user_id,
        "username": m.user.username,
        "text": m.text,
        "at": m.created_at.isoformat(),
    }
