"""The JSON API under /api (see docs/api.md). Thin: parse, call a service, commit (a
change to a game is committed and published by its unit of work, app/services/unit.py).

Writes need the session cookie and the ``X-CSRF-Token`` header; sign-up and log-in
need neither, but take a JSON body only (a cross-site form cannot send one).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request, Response

from app.content.validate import MAIN_SCENARIO
from app.engine.rules import ROUNDS_PER_TURN
from app.services import accounts, lobby, notifications, ratelimit, starting, unit
from app.services.errors import Forbidden, Invalid, Unauthorized
from app.store.models import Game, User, UserSession
from app.web.deps import (
    DB,
    SESSION_COOKIE,
    CsrfChecked,
    CurrentUser,
    Login,
    MaybeUser,
    SettingsDep,
    client_ip,
)
from app.web.limits import GameId, InviteCode, SeatIndex
from app.web.schemas import (
    ERROR_RESPONSES,
    BotBody,
    CreateGameBody,
    Credentials,
    DeleteAccountBody,
    GameOptions,
    JoinBody,
    PasswordChangeBody,
    PreferencesBody,
    ResetBody,
    ResetRequestBody,
    SignupBody,
)

router = APIRouter(prefix="/api", tags=["api"], responses=ERROR_RESPONSES)
log = logging.getLogger(__name__)


def user_json(user: User) -> dict[str, Any]:
    return {
        "id": user.id,
        "username": user.username,
        "email": user.email,
        "webhook_url": user.webhook_url,
        "notify_turns": user.notify_turns,
        "daily_digest": user.daily_digest,
        "notify_standin": user.notify_standin,
        "time_zone": user.time_zone or "UTC",
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


@router.post("/signup", summary="Create an account and log in (20 sign-ups a day per address)")
def signup(
    body: SignupBody, request: Request, response: Response, db: DB, settings: SettingsDep
) -> dict[str, Any]:
    ratelimit.limiter().hit("signup", client_ip(request))
    user = accounts.signup(db, body.username, body.password, body.email, body.time_zone)
    token, login = accounts.fresh_session(
        db, user, settings.session_days, request.cookies.get(SESSION_COOKIE)
    )
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
    # A new token every time; the session the request came with (if any) ends.
    token, session = accounts.fresh_session(
        db, user, settings.session_days, request.cookies.get(SESSION_COOKIE)
    )
    db.commit()
    set_session_cookie(response, token, settings)
    return login_json(session)


@router.post("/logout", summary="Log out (ends this session)")
def logout(request: Request, response: Response, db: DB, _: CsrfChecked) -> dict[str, Any]:
    accounts.logout(db, request.cookies.get(SESSION_COOKIE))
    db.commit()
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ok": True}


@router.post("/logout-everywhere", summary="Log out on every device (ends all your sessions)")
def logout_everywhere(response: Response, db: DB, login: CsrfChecked) -> dict[str, Any]:
    ended = accounts.logout_everywhere(db, login.user_id)
    db.commit()
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ok": True, "sessions_ended": ended}


@router.post(
    "/me/password",
    summary="Change your password: every session ends, this one gets a new token",
)
def change_password(
    body: PasswordChangeBody,
    response: Response,
    db: DB,
    login: CsrfChecked,
    settings: SettingsDep,
) -> dict[str, Any]:
    token, session = accounts.change_password(
        db, login.user, body.current_password, body.new_password, settings.session_days
    )
    db.commit()
    set_session_cookie(response, token, settings)
    return login_json(session)


RESET_SENT = (
    "If that account exists and has an e-mail address, a reset link is on its way; "
    "it works once, for an hour."
)


@router.post(
    "/password-reset",
    status_code=202,
    summary="E-mail a single-use password reset link (same answer whether or not the account exists)",
)
def password_reset_request(
    body: ResetRequestBody, request: Request, db: DB, settings: SettingsDep
) -> dict[str, Any]:
    ratelimit.limiter().hit("reset", client_ip(request))
    ratelimit.limiter().hit("reset_account", body.who.strip().lower()[:254])
    found = accounts.request_reset(db, body.who)
    if found is not None:
        send_reset_mail(settings, *found)
    return {"ok": True, "detail": RESET_SENT}


def send_reset_mail(settings: Any, user: User, token: str) -> None:
    link = f"{settings.base_url.rstrip('/')}/reset-password?token={token}"
    text = (
        f"Hello {user.username},\n\nsomeone (hopefully you) asked to reset your Imperial "
        f"Glory password. Choose a new one here (the link works once, for an hour):\n\n"
        f"{link}\n\nIf it was not you, ignore this e-mail: your password stays as it is.\n"
    )
    try:
        notifications.send_email(settings, user.email or "", "Reset your password", text, user.id)
    except Exception:  # the answer must not tell whether a mail went out
        log.exception("password reset mail to user %s failed", user.id)


@router.post(
    "/password-reset/confirm",
    summary="Set a new password with the e-mailed token (every session ends; log in again)",
)
def password_reset_confirm(body: ResetBody, db: DB) -> dict[str, Any]:
    accounts.reset_password(db, body.token, body.new_password)
    db.commit()
    return {"ok": True}


@router.post(
    "/me/delete",
    summary="Delete your account; finished games keep their records under an anonymous name",
)
def delete_account(
    body: DeleteAccountBody, response: Response, db: DB, login: CsrfChecked
) -> dict[str, Any]:
    accounts.delete_account(db, login.user, body.password)  # committed and published
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ok": True}


@router.get("/me", summary="The logged-in user and the CSRF token for writes")
def me(login: Login) -> dict[str, Any]:
    if login is None:
        raise Unauthorized("Log in first.")
    return login_json(login)


@router.patch(
    "/me",
    summary="Change your notice settings (e-mail, webhook, turn and stand-in notices, digest)",
)
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
        notify_standin=body.notify_standin,
        time_zone=body.time_zone,
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
                "main": s["id"] == MAIN_SCENARIO,
                "turns": int(s.get("turns", 4)),
                "rounds": int(s.get("rounds", ROUNDS_PER_TURN)),
                "min_seats": lobby.seat_bounds(s)[0],
                "max_seats": lobby.seat_bounds(s)[1],
                "powers": [{"id": p["id"], "name": p.get("name", p["id"])} for p in s["powers"]],
            }
            for s in lobby.scenarios()
        ],
        "bot_levels": list(lobby.bot_levels()),
        "bot_level_info": lobby.bot_level_info(),
        # seconds: the bank at the start, added per decision, the most banked; None = no clock
        "paces": {k: dataclasses.asdict(v) if v else None for k, v in lobby.PACES.items()},
        "options_schema": GameOptions.model_json_schema(),
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


def _game_links() -> dict[str, Any]:
    """OpenAPI links from a created game to what can be done with it: generic clients
    (and the stateful contract test) follow them with the new game's id."""
    targets = {
        "GetGame": ("/api/games/{game_id}", "get"),
        "JoinGame": ("/api/games/{game_id}/join", "post"),
        "LeaveGame": ("/api/games/{game_id}/leave", "post"),
        "StartGame": ("/api/games/{game_id}/start", "post"),
        "SeatBot": ("/api/games/{game_id}/seats/{index}/bot", "post"),
        "SeatOpen": ("/api/games/{game_id}/seats/{index}/open", "post"),
        "View": ("/api/games/{game_id}/view", "get"),
        "Act": ("/api/games/{game_id}/actions", "post"),
        "Undo": ("/api/games/{game_id}/undo", "post"),
        "Events": ("/api/games/{game_id}/events", "get"),
        "Explain": ("/api/games/{game_id}/explain", "get"),
        "Orders": ("/api/games/{game_id}/orders", "put"),
        "Chat": ("/api/games/{game_id}/chat", "post"),
        "ReadChat": ("/api/games/{game_id}/chat", "get"),
        "Record": ("/api/games/{game_id}/record", "get"),
        "Rematch": ("/api/games/{game_id}/rematch", "post"),
    }
    return {
        name: {
            "operationRef": "#/paths/" + path.replace("/", "~1") + "/" + method,
            "parameters": {"game_id": "$response.body#/id"},
        }
        for name, (path, method) in targets.items()
    }


@router.post(
    "/games",
    status_code=201,
    summary="Create a game (you take the first human seat; 20 new games an hour)",
    openapi_extra={"responses": {"201": {"links": _game_links()}}},
)
def create_game(body: CreateGameBody, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    ratelimit.limiter().hit("games", user.id)
    scenario_id = body.scenario or lobby.default_scenario_id()
    if scenario_id is None:
        raise Invalid("No scenario is installed.", field="scenario")
    game = starting.new_game(
        db,
        lambda _work: lobby.create_game(
            db,
            user,
            scenario_id,
            [lobby.SeatSpec(s.kind, s.bot_level) for s in body.seats],
            pace=body.pace,
            public=body.public,
            host_power=body.power,
            options=body.options.model_dump(exclude_none=True),
        ),
    )
    return game_json(db, lobby.get_game(db, game.id), user.id)


@router.get("/games/{game_id}", summary="A game's lobby summary")
def get_game(game_id: GameId, db: DB, user: MaybeUser, code: InviteCode = None) -> dict[str, Any]:
    game = lobby.get_game(db, game_id)
    uid = user.id if user else None
    if not lobby.can_see(db, game, uid, code):
        raise Forbidden("This game is private.")
    return game_json(db, game, uid)


def _lobby_change(
    db: DB, game_id: int, user_id: int, change: Callable[[unit.Work, Game], object]
) -> dict[str, Any]:
    """One lobby change through the unit of work (committed and published there)."""
    starting.lobby_change(db, game_id, change)
    db.expire_all()
    return game_json(db, lobby.get_game(db, game_id), user_id)


@router.post("/games/{game_id}/join", summary="Take a seat (choose a power or null = random)")
def join(
    game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked, body: JoinBody | None = None
) -> dict[str, Any]:
    got = body or JoinBody()
    return _lobby_change(
        db,
        game_id,
        user.id,
        lambda _work, game: lobby.join(db, game, user, got.power, got.seat, got.code),
    )


@router.post("/games/{game_id}/leave", summary="Leave before the start (the host cancels)")
def leave(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    return _lobby_change(db, game_id, user.id, lambda _work, game: lobby.leave(db, game, user))


@router.post("/games/{game_id}/seats/{index}/bot", summary="Host: give a seat to a bot")
def seat_bot(
    game_id: GameId,
    index: SeatIndex,
    db: DB,
    user: CurrentUser,
    _: CsrfChecked,
    body: BotBody | None = None,
) -> dict[str, Any]:
    level = (body or BotBody()).bot_level
    return _lobby_change(
        db, game_id, user.id, lambda _work, game: lobby.set_bot(db, game, user, index, level)
    )


@router.post("/games/{game_id}/seats/{index}/open", summary="Host: remove a seat's player or bot")
def seat_open(
    game_id: GameId, index: SeatIndex, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    return _lobby_change(
        db, game_id, user.id, lambda _work, game: lobby.open_seat(db, game, user, index)
    )


@router.post("/games/{game_id}/start", summary="Host: start (every seat filled)")
def start(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    return _lobby_change(
        db, game_id, user.id, lambda work, game: starting.start(db, game, user, work)
    )


@router.post(
    "/games/{game_id}/rematch",
    status_code=201,
    summary="A new lobby game with the same players, hosted by you",
)
def rematch(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    old = lobby.get_game(db, game_id)
    game = starting.new_game(db, lambda _work: lobby.rematch(db, old, user))
    return game_json(db, lobby.get_game(db, game.id), user.id)
