"""The table talk: a game's chat messages."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.store.models import ChatMessage


def messages_after(
    db: Session, game_id: int, after_id: int, limit: int, hide: Collection[int] = ()
) -> Sequence[ChatMessage]:
    """Up to `limit` of the game's messages after id `after_id`, oldest first, but for
    those of the authors in `hide` (whom the reader blocks)."""
    query = select(ChatMessage).where(ChatMessage.game_id == game_id, ChatMessage.id > after_id)
    if hide:
        query = query.where(ChatMessage.user_id.not_in(list(hide)))
    return db.scalars(query.order_by(ChatMessage.id).limit(limit)).all()


def last_id(db: Session, game_id: int) -> int:
    """The id of the game's latest message (0: none)."""
    query = select(func.max(ChatMessage.id)).where(ChatMessage.game_id == game_id)
    return int(db.scalar(query) or 0)
