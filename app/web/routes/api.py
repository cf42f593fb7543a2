"""The JSON API under /api (see docs/api.md). Thin: parse, call a service, commit, publish.

Writes need the session cookie and the ``X-CSRF-Token`` header; sign-up and log-in
need neither, but take a JSON body only (a cross-site form cannot send one).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import ValidationError

from app.services import accounts, chat, lobby, play, records, replays
from app.services.errors import Invalid
from app.store.models import User, UserSession
from app.web.deps import (
    DB,
    SESSION_COOKIE,
    CsrfChecked,
    CurrentUser,
    Login,
    MaybeUser,
    SettingsDep,
    client_ip,
    publish,
)
from app.web.schemas import (
    ActionBody,
    ActionModel,
    BotBody,
    ChatBody,
    CreateGameBody,
    Credentials,
    JoinBody,
    OrdersBody,
    PreferencesBody,
    SignupBody,
    UndoBody,
)

router = APIRouter(prefix="/api", tags=["api"])


def user_json(user: User) -> dict[str, Any]:
    return {
        "id": user.id,
        "username": user.username,
        "email": user.email,
        "webhook_url": user.webhook_url,
        "notify_turns": user.notify_turns,
        "daily_digest": user.daily_digest,
    }


def login_json(login: UserSession) -> dict[str, Any]:
    return {"user": user_json(login.user), "csrf_token": login.csrf_token}


def set_session_cookie(response: Response, token: str, settings: Any) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 86400,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
        path="/",
    )


# --------------------------------------------------------------------------- accounts


@router.post("/signup", summary="Create an account and log in")
def signup(body: SignupBody, response: Response, db: DB, settings: SettingsDep) -> dict[str, Any]:
    user = accounts.signup(db, body.username, body.password, body.email)
    token, login = accounts.create_session(db, user, settings.session_days)
    db.commit()
    set_session_cookie(response, token, settings)
    return login_json(login)


@router.post(
    "/login",
    summary="Log in (5 failures per name and address in 15 minutes: 429)",
)
def login(
    body: Credentials, request: Request, response: Response, db: DB, settings: SettingsDep
) -> dict[str, Any]:
    try:
        user = accounts.authenticate(db, body.username, body.password, client_ip(request))
    except accounts.LoginFailed:
        db.commit()  # the failure counts towards throttling
        raise
    token, session = accounts.create_session(db, user, settings.session_days)
    db.commit()
    set_session_cookie(response, token, settings)
    return login_json(session)


@router.post("/logout", summary="Log out (ends this session)")
def logout(request: Request, response: Response, db: DB, _: CsrfChecked) -> dict[str, Any]:
    accounts.logout(db, request.cookies.get(SESSION_COOKIE))
    db.commit()
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ok": True}


@router.get("/me", summary="The logged-in user and the CSRF token for writes")
def me(login: Login) -> dict[str, Any]:
    if login is None:
        from app.services.errors import Unauthorized

        raise Unauthorized("Log in first.")
    return login_json(login)


@router.patch("/me", summary="Change your notice settings (e-mail, webhook, turn notices, digest)")
def update_me(
    body: PreferencesBody, db: DB, login: CsrfChecked, settings: SettingsDep
) -> dict[str, Any]:
    accounts.update_preferences(
        db,
        login.user,
        body.email,
        body.webhook_url,
        body.notify_turns,
        body.daily_digest,
        allow_private_webhooks=settings.webhook_allow_private,
    )
    db.commit()
    return login_json(login)


# --------------------------------------------------------------------------- lobby


@router.get("/scenarios", summary="Scenarios, bot levels and paces to create a game with")
def scenarios() -> dict[str, Any]:
    return {
        "scenarios": [
            {
                "id": s["id"],
                "name": s.get("name", s["id"]),
                "teaching": bool(s.get("teaching")),
                "min_seats": lobby.seat_bounds(s)[0],
                "max_seats": lobby.seat_bounds(s)[1],
                "powers": [{"id": p["id"], "name": p.get("name", p["id"])} for p in s["powers"]],
            }
            for s in lobby.scenarios()
        ],
        "bot_levels": list(lobby.bot_levels()),
        "bot_level_info": lobby.bot_level_info(),
        "paces": lobby.PACES,
    }


@router.get("/games", summary="Open public games, my games (waiting for me first), finished games")
def list_games(db: DB, user: MaybeUser) -> dict[str, Any]:
    uid = user.id if user else None
    return {
        "open": [lobby.game_summary(g, uid) for g in lobby.open_games(db)],
        "mine": [lobby.game_summary(g, uid) for g in lobby.my_games(db, uid)] if uid else [],
        "finished": [lobby.game_summary(g, uid) for g in lobby.finished_games(db, uid)],
    }


def game_json(db: DB, game: Any, user_id: int | None) -> dict[str, Any]:
    data = lobby.game_summary(game, user_id)
    if user_id is not None and (game.host_id == user_id or lobby.seat_of(game, user_id)):
        code = lobby.invite_code(db, game)
        data["invite_code"] = code
        data["invite_path"] = f"/join/{code}"
    return data


@router.post("/games", status_code=201, summary="Create a game (you take the first human seat)")
def create_game(body: CreateGameBody, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    scenario_id = body.scenario or lobby.default_scenario_id()
    if scenario_id is None:
        raise Invalid("No scenario is installed.", field="scenario")
    game = lobby.create_game(
        db,
        user,
        scenario_id,
        [lobby.SeatSpec(s.kind, s.bot_level) for s in body.seats],
        pace=body.pace,
        public=body.public,
        host_power=body.power,
        options=body.options,
    )
    db.commit()
    return game_json(db, lobby.get_game(db, game.id), user.id)


@router.get("/games/{game_id}", summary="A game's lobby summary")
def get_game(game_id: int, db: DB, user: MaybeUser, code: str | None = None) -> dict[str, Any]:
    game = lobby.get_game(db, game_id)
    uid = user.id if user else None
    if not lobby.can_see(db, game, uid, code):
        from app.services.errors import Forbidden

        raise Forbidden("This game is private.")
    return game_json(db, game, uid)


def _lobby_change(db: DB, game_id: int, user_id: int) -> dict[str, Any]:
    db.commit()
    db.expire_all()
    game = lobby.get_game(db, game_id)
    publish(game.id, game.version)
    return game_json(db, game, user_id)


@router.post("/games/{game_id}/join", summary="Take a seat (choose a power or null = random)")
def join(
    game_id: int, db: DB, user: CurrentUser, _: CsrfChecked, body: JoinBody | None = None
) -> dict[str, Any]:
    body = body or JoinBody()
    game = play_lock(db, game_id)
    lobby.join(db, game, user, body.power, body.seat, body.code)
    return _lobby_change(db, game_id, user.id)


@router.post("/games/{game_id}/leave", summary="Leave before the start (the host cancels)")
def leave(game_id: int, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    lobby.leave(db, play_lock(db, game_id), user)
    return _lobby_change(db, game_id, user.id)


@router.post("/games/{game_id}/seats/{index}/bot", summary="Host: give a seat to a bot")
def seat_bot(
    game_id: int,
    index: int,
    db: DB,
    user: CurrentUser,
    _: CsrfChecked,
    body: BotBody | None = None,
) -> dict[str, Any]:
    lobby.set_bot(db, play_lock(db, game_id), user, index, (body or BotBody()).bot_level)
    return _lobby_change(db, game_id, user.id)


@router.post("/games/{game_id}/seats/{index}/open", summary="Host: remove a seat's player or bot")
def seat_open(
    game_id: int, index: int, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    lobby.open_seat(db, play_lock(db, game_id), user, index)
    return _lobby_change(db, game_id, user.id)


@router.post("/games/{game_id}/start", summary="Host: start (every seat filled)")
def start(game_id: int, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    game = play_lock(db, game_id)
    lobby.start(db, game, user)
    return _lobby_change(db, game_id, user.id)


@router.post(
    "/games/{game_id}/rematch",
    status_code=201,
    summary="A new lobby game with the same players, hosted by you",
)
def rematch(game_id: int, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    game = lobby.rematch(db, lobby.get_game(db, game_id), user)
    db.commit()
    return game_json(db, lobby.get_game(db, game.id), user.id)


def play_lock(db: DB, game_id: int) -> Any:
    from app.services import gamelog

    return gamelog.lock_game(db, game_id)


# --------------------------------------------------------------------------- play


@router.get("/games/{game_id}/view", summary="My view of the game, my legal actions, prompts")
def view(game_id: int, db: DB, user: MaybeUser, code: str | None = None) -> dict[str, Any]:
    return play.seat_view(db, game_id, user.id if user else None, code)


@router.post(
    "/games/{game_id}/actions",
    summary="Act: 409 stale version (with current_version), 422 illegal (with reason)",
)
def act(
    game_id: int, body: ActionBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    result = play.submit_action(
        db,
        game_id,
        user.id,
        body.action.model_dump(),
        body.expected_version,
        body.idempotency_key,
    )
    db.commit()
    if not result.replayed:
        publish(game_id, result.version)
    return result.to_json()


@router.post(
    "/games/{game_id}/undo",
    summary="Take back your last decision (only if it revealed nothing and nobody else was asked since)",
)
def undo(game_id: int, body: UndoBody, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    result = play.undo(db, game_id, user.id, body.expected_version)
    db.commit()
    publish(game_id, result.version)
    return result.to_json()


@router.post("/games/{game_id}/reclaim", summary="Take your seat back from the stand-in bot")
def reclaim(game_id: int, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    game = play.reclaim(db, game_id, user.id)
    db.commit()
    publish(game.id, game.version)
    return {"ok": True, "version": game.version}


@router.get("/games/{game_id}/orders", summary="My standing orders in this game")
def get_orders(game_id: int, db: DB, user: CurrentUser) -> dict[str, Any]:
    game = lobby.get_game(db, game_id)
    seat = lobby.seat_of(game, user.id)
    if seat is None:
        from app.services.errors import Forbidden

        raise Forbidden("You have no seat in this game.")
    return {"orders": seat.standing_orders, "version": game.version}


@router.put(
    "/games/{game_id}/orders",
    summary="Set standing orders (defend / vote / peace), answered by the server at once",
)
def put_orders(
    game_id: int, body: OrdersBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    before = lobby.get_game(db, game_id).version
    game = play.set_orders(db, game_id, user.id, body.model_dump(exclude_none=True))
    db.commit()
    if game.version != before:
        publish(game.id, game.version)
    seat = lobby.seat_of(game, user.id)
    return {"orders": seat.standing_orders if seat else None, "version": game.version}


@router.get("/games/{game_id}/events", summary="The events I may see after `since`")
def events(
    game_id: int,
    db: DB,
    user: MaybeUser,
    since: Annotated[int, Query(ge=0)] = 0,
    code: str | None = None,
) -> dict[str, Any]:
    uid = user.id if user else None
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, uid, code):
        from app.services.errors import Forbidden

        raise Forbidden("This game is private.")
    seat = lobby.seat_of(game, uid)
    return {
        "game_id": game_id,
        "version": game.version,
        "last_seq": game.last_event,
        "events": play.events_since(db, game_id, seat.index if seat else None, since),
    }


@router.get(
    "/games/{game_id}/explain", summary="The rating and odds of an action before you commit"
)
def explain(
    game_id: int,
    db: DB,
    user: CurrentUser,
    action: Annotated[str, Query(description="the action as JSON")],
) -> dict[str, Any]:
    try:
        parsed = ActionModel.model_validate(json.loads(action)).model_dump()
    except (ValueError, ValidationError) as exc:
        raise Invalid("`action` must be a JSON object with a `type`.", field="action") from exc
    return play.explain(db, game_id, user.id, parsed)


@router.get("/games/{game_id}/chat", summary="Chat messages after `after` (an id)")
def chat_list(
    game_id: int, db: DB, user: MaybeUser, after: Annotated[int, Query(ge=0)] = 0
) -> dict[str, Any]:
    return {"messages": chat.since(db, game_id, user.id if user else None, after)}


@router.post("/games/{game_id}/chat", status_code=201, summary="Say something at the table")
def chat_post(
    game_id: int, body: ChatBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    message = chat.post(db, game_id, user, body.text)
    db.commit()
    game = lobby.get_game(db, game_id)
    publish(game.id, game.version)
    return chat.message_json(message)


@router.get(
    "/games/{game_id}/replay",
    summary="A finished game step by step: the position after `step` actions, nothing hidden",
)
def replay(
    game_id: int,
    db: DB,
    user: MaybeUser,
    step: Annotated[int, Query(ge=0, description="0 is the setup")] = 0,
    seat: Annotated[int | None, Query(ge=0, description="whose view (hand) to show")] = None,
) -> dict[str, Any]:
    return replays.replay_step(db, game_id, user.id if user else None, step, seat)


@router.get(
    "/games/{game_id}/record",
    summary="The game record (seed + action log + hash) once the game is over",
)
def record(game_id: int, db: DB, user: MaybeUser) -> dict[str, Any]:
    return records.record_for_player(db, game_id, user.id if user else None)
