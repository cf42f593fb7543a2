"""Looking back at a game (issue 26): the result of a finished game in words (the end
screen's table, app/services/results.py) and, for a seat coming back, what happened
while it was away (app/services/catchup.py). JSON under /api, read by the game page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.services import results
from app.web.deps import DB, MaybeUser
from app.web.limits import GameId
from app.web.schemas import ERROR_RESPONSES

router = APIRouter(prefix="/api", tags=["api"], responses=ERROR_RESPONSES)


@router.get(
    "/games/{game_id}/result",
    summary="A finished game's ranking with VP, victory level, standing and tie-break, explained",
)
def result(game_id: GameId, db: DB, user: MaybeUser) -> dict[str, Any]:
    return results.result_for(db, game_id, user.id if user else None)
