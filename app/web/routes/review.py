"""Looking back at a game (issue 26): the result of a finished game in words (the end
screen's table, app/services/results.py) and, for a seat coming back, what happened
while it was away (app/services/catchup.py). JSON under /api, read by the game page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.services import catchup, results
from app.web.deps import DB, CsrfChecked, CurrentUser, MaybeUser
from app.web.limits import MAX_DB_INT, GameId
from app.web.schemas import ERROR_RESPONSES

router = APIRouter(prefix="/api", tags=["api"], responses=ERROR_RESPONSES)


@router.get(
    "/games/{game_id}/result",
    summary="A finished game's ranking with VP, victory level, standing and tie-break, explained",
)
def result(game_id: GameId, db: DB, user: MaybeUser) -> dict[str, Any]:
    return results.result_for(db, game_id, user.id if user else None)


class SeenBody(BaseModel):
    seq: int = Field(ge=0, le=MAX_DB_INT, description="the last event the page has shown")


@router.post(
    "/games/{game_id}/seen",
    summary="The page has shown my events up to `seq`: my catch-up starts after it",
)
def seen(
    game_id: GameId, body: SeenBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    mark = catchup.mark_seen(db, game_id, user.id, body.seq)
    db.commit()
    return {"seen": mark}


@router.get(
    "/games/{game_id}/catchup",
    summary="What happened since my last look (the mark stays where it is)",
)
def catchup_view(game_id: GameId, db: DB, user: CurrentUser) -> dict[str, Any]:
    return {"catchup": catchup.since_last_look(db, game_id, user.id)}
