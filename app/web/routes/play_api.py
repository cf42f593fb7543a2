"""The JSON API of a game in play under /api (see docs/api.md): the view, actions,
undo, standing orders, events, explain, chat, replay and the record. Thin, like
``api.py``: parse, call a service; a change to a game is committed and published by the
unit of work it goes through (app/services/unit.py).

Its own router, included before the rest of the API: a request's route is found by
trying routes in order, and these are the ones a game in play calls on every move.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Response
from pydantic import ValidationError
from sqlalchemy.orm import Session

from app.services import (
    absence,
    chat,
    eventlog,
    lobby,
    moves,
    play,
    ratelimit,
    records,
    replays,
    tablevotes,
    unit,
)
from app.services.errors import Forbidden, Invalid
from app.services.inputs import ActionBody, ActionModel
from app.store import blocking
from app.store.models import Game
from app.web.deps import DB, CsrfChecked, CurrentUser, MaybeUser
from app.web.limits import MAX_DB_INT, BadJSON, GameId, InviteCode, parse_json, seq_query
from app.web.schemas import (
    ERROR_RESPONSES,
    ChatBody,
    OrdersBody,
    UndoBody,
    VoteBody,
)

router = APIRouter(prefix="/api", tags=["api"], responses=ERROR_RESPONSES)
JSON = "application/json"


# --------------------------------------------------------------------------- play


def fast_json(payload: dict[str, Any]) -> Response:
    """A large JSON answer encoded by orjson at once (FastAPI's own encoder walks every
    node of a 20 KB view first: ~8 ms against ~0.05 ms)."""
    return Response(orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS), media_type=JSON)


def read_view(db: Session, game_id: int, user_id: int | None, code: str | None) -> dict[str, Any]:
    """The seat's view, and the read's transaction ended in the same call: with a database server, ending it afterwards would be a second
    hand-off to the thread pool for one ROLLBACK."""
    try:
        return play.seat_view(db, game_id, user_id, code)
    finally:
        db.rollback()


def commit_action(
    db: Session, game_id: int, user_id: int, body: ActionBody, arrived: float | None = None
) -> moves.ActionResult:
    """The action, through the unit of work: decided, written, committed, counted (from
    `arrived`, the handler's start), published. What the request read before (its
    login, when the cache missed it) is let go of first, so that the move may be written
    in one statement (``writers.writers``)."""
    db.rollback()
    return unit.move(
        db,
        game_id,
        user_id,
        body.action.model_dump(),
        body.expected_version,
        body.idempotency_key,
        source="route",
        arrived=arrived,
    )


@router.get(
    "/games/{game_id}/view",
    summary="My view of the game, my legal actions, prompts",
    response_class=Response,
    responses={200: {"content": {JSON: {}}}},
)
async def view(game_id: GameId, db: DB, user: MaybeUser, code: InviteCode = None) -> Response:
    # On the loop with SQLite, in the thread pool with a database server (app/store/blocking.py).
    payload = await blocking.call(
        blocking.inline(db), read_view, db, game_id, user.id if user else None, code
    )
    return fast_json(payload)


@router.post(
    "/games/{game_id}/actions",
    summary="Act: 409 stale version (with current_version), 422 illegal (with reason)",
    response_class=Response,
    responses={200: {"content": {JSON: {}}}},
)
async def act(
    game_id: GameId, body: ActionBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> Response:
    arrived = time.perf_counter()
    ratelimit.limiter().hit("actions", user.id)
    result = await blocking.call(
        blocking.inline(db), commit_action, db, game_id, user.id, body, arrived
    )
    return fast_json(result.to_json())


@router.post(
    "/games/{game_id}/undo",
    summary="Take back your last decision (only if it revealed nothing and nobody else was asked since)",
)
def undo(
    game_id: GameId, body: UndoBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    return play.undo(db, game_id, user.id, body.expected_version).to_json()


def _committed(game: Game) -> dict[str, Any]:
    """A seat's own change to the table (back, away, more time), committed and pushed by
    the unit of work."""
    return {"ok": True, "version": game.version}


@router.post(
    "/games/{game_id}/reclaim",
    summary="I'm back: take your seat back from the stand-in (any move of yours does too)",
)
def reclaim(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    return _committed(absence.come_back(db, game_id, user.id))


@router.post(
    "/games/{game_id}/away",
    summary="I'm away: your standing orders and a stand-in play your seat at once",
)
def away(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    return _committed(absence.go_away(db, game_id, user.id))


@router.post(
    "/games/{game_id}/extend",
    summary="More time: one extension of your own time bank (a few per game)",
)
def extend(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    return _committed(absence.extend(db, game_id, user.id))


@router.post(
    "/games/{game_id}/votes",
    summary="A table vote: pause / resume the clocks, or hand an absent seat to a stand-in",
)
def table_vote(
    game_id: GameId, body: VoteBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    game = tablevotes.vote(db, game_id, user.id, body.kind, body.seat, body.yes)
    return {**_committed(game), "clock": moves.game_fields(game)["clock"]}


@router.get("/games/{game_id}/orders", summary="My standing orders in this game")
def get_orders(game_id: GameId, db: DB, user: CurrentUser) -> dict[str, Any]:
    game = lobby.get_game(db, game_id)
    seat = lobby.seat_of(game, user.id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    return {"orders": seat.standing_orders, "version": game.version}


@router.put(
    "/games/{game_id}/orders",
    summary="Set standing orders (defend / vote / peace), answered by the server at once",
)
def put_orders(
    game_id: GameId, body: OrdersBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    game = absence.set_orders(db, game_id, user.id, body.model_dump(exclude_none=True))
    seat = lobby.seat_of(game, user.id)
    return {"orders": seat.standing_orders if seat else None, "version": game.version}


@router.get("/games/{game_id}/events", summary="The events I may see after `since`")
def events(
    game_id: GameId,
    db: DB,
    user: MaybeUser,
    since: Annotated[int, seq_query("events after this seq (0 = from the start)")] = 0,
    code: InviteCode = None,
) -> dict[str, Any]:
    uid = user.id if user else None
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, uid, code):
        raise Forbidden("This game is private.")
    seat = lobby.seat_of(game, uid)
    # The version, last_seq and events of one snapshot (issue 29: never torn).
    version, last_seq, seen = eventlog.events_snapshot(
        db, game_id, seat.index if seat else None, since
    )
    return {"game_id": game_id, "version": version, "last_seq": last_seq, "events": seen}


@router.get(
    "/games/{game_id}/explain", summary="The rating and odds of an action before you commit"
)
def explain(
    game_id: GameId,
    db: DB,
    user: CurrentUser,
    action: Annotated[str, Query(max_length=4096, description="the action as JSON")],
) -> dict[str, Any]:
    try:
        parsed = ActionModel.model_validate(parse_json(action)).model_dump()
    except BadJSON as exc:
        raise Invalid(f"`action`: {exc}", code=exc.code, field="action") from exc
    except (ValueError, ValidationError) as exc:
        raise Invalid("`action` must be a JSON object with a `type`.", field="action") from exc
    return play.explain(db, game_id, user.id, parsed)


@router.get("/games/{game_id}/chat", summary="Chat messages after `after` (an id)")
def chat_list(
    game_id: GameId,
    db: DB,
    user: MaybeUser,
    after: Annotated[int, seq_query("chat lines after this id")] = 0,
) -> dict[str, Any]:
    return {"messages": chat.since(db, game_id, user.id if user else None, after)}


@router.post("/games/{game_id}/chat", status_code=201, summary="Say something at the table")
def chat_post(
    game_id: GameId, body: ChatBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    ratelimit.limiter().hit("chat", user.id)
    return chat.message_json(chat.post(db, game_id, user, body.text))


@router.get(
    "/games/{game_id}/replay",
    summary="A finished game step by step: the position after `step` actions, nothing hidden",
)
def replay(
    game_id: GameId,
    db: DB,
    user: MaybeUser,
    step: Annotated[int, Query(ge=0, le=MAX_DB_INT, description="0 is the setup")] = 0,
    seat: Annotated[int | None, Query(ge=0, le=63, description="whose view (hand) to show")] = None,
) -> dict[str, Any]:
    return replays.replay_step(db, game_id, user.id if user else None, step, seat)


@router.get(
    "/games/{game_id}/record",
    summary="The game record (seed + action log + hash) once the game is over",
)
def record(game_id: GameId, db: DB, user: MaybeUser) -> dict[str, Any]:
    return records.record_for_player(db, game_id, user.id if user else None)
