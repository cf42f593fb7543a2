"""Jinja2 pages: sign up, log in, the lobby (with who is online), a new game, a game's
pre-start lobby, player profiles, and the tutorial (start/resume, and its coach's advice).

Form posts carry ``csrf_token`` (the session's, or before logging in the
double-submit ``ig_csrf`` cookie's). Errors come back as a flash message.
The game page itself (GET /games/{id}) belongs to app/web/routes/play.py; while
a game is in the lobby its page is /games/{id}/lobby.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.services import (
    absence,
    accounts,
    lobby,
    moderation,
    ratelimit,
    ratings,
    starting,
    timezones,
    tutorial,
    unit,
)
from app.services.errors import Forbidden, ServiceError
from app.services.ratelimit import retry_after
from app.store.models import Game, User, UserSession
from app.web.deps import (
    DB,
    SESSION_COOKIE,
    CsrfChecked,
    Login,
    SettingsDep,
    client_ip,
    form_csrf_ok,
)
from app.web.limits import GameId, InviteCode, SeatIndex
from app.web.routes.api import RESET_SENT, send_reset_mail, set_session_cookie
from app.web.templating import redirect, render

router = APIRouter(include_in_schema=False)

CsrfField = Annotated[str | None, Form()]
CSRF_MESSAGE = "Your form expired (CSRF check failed); please try again."


def csrf_refused(request: Request, login: UserSession | None, token: str | None) -> Response | None:
    if form_csrf_ok(request, login, token):
        return None
    return render(request, "error.html", {"message": CSRF_MESSAGE}, login, 403)


def lobby_url(game_id: int) -> str:
    return f"/games/{game_id}/lobby"


def play_url(game_id: int) -> str:
    return f"/games/{game_id}"


# --------------------------------------------------------------------------- home


def seen(db: DB, login: UserSession | None) -> None:
    """Presence for "who is online": written at most once a minute per person."""
    if login is not None:
        ratings.seen(db, login.user_id)
        db.commit()


def with_ratings(ctx: dict[str, Any], db: DB, *lists: list[dict[str, Any]]) -> dict[str, Any]:
    """Add `ratings` (user id -> shown rating) for every person seated in the games."""
    ids = {s["user_id"] for games in lists for g in games for s in g["seats"] if s["user_id"]}
    ctx["ratings"] = ratings.ratings_of(db, sorted(ids))
    return ctx


@router.get("/", response_class=HTMLResponse)
def home(request: Request, db: DB, login: Login) -> Response:
    uid = login.user_id if login else None
    seen(db, login)
    mine = [lobby.game_summary(g, uid) for g in lobby.my_games(db, uid)] if uid else []
    mine_done = (
        [lobby.game_summary(g, uid) for g in lobby.my_finished_games(db, uid)] if uid else []
    )
    ctx: dict[str, Any] = {
        "open_games": [lobby.game_summary(g, uid) for g in lobby.open_games(db)],
        "my_games": mine,
        "my_finished": mine_done,
        "finished_games": [lobby.game_summary(g, uid) for g in lobby.finished_games(db, uid)],
        "online": ratings.online(db),
        "tutorial": tutorial.current(db, uid) if uid else None,
    }
    with_ratings(ctx, db, ctx["open_games"], mine, mine_done, ctx["finished_games"])
    return render(request, "lobby.html", ctx, login)


@router.post("/presence", status_code=204)
def presence(db: DB, login: CsrfChecked) -> Response:
    """The game page says "still here" once a minute: who is online (the lobby)."""
    ratings.seen(db, login.user_id)
    db.commit()
    return Response(status_code=204)


@router.get("/players/{username}", response_class=HTMLResponse)
def player_page(request: Request, username: str, db: DB, login: Login) -> Response:
    seen(db, login)
    found = ratings.profile(db, username, login.user_id if login else None)
    if found is None:
        return render(
            request, "error.html", {"message": f"There is no player {username!r}."}, login, 404
        )
    ctx = {
        "profile": found,
        "provisional_games": ratings.PROVISIONAL_GAMES,
        # block and report (app/services/moderation.py)
        "i_block": login is not None and found.user.id in moderation.blocked_ids(db, login.user_id),
        "reasons": moderation.REASONS,
    }
    return render(request, "profile.html", ctx, login)


@router.get("/favicon.ico")
def favicon() -> Response:
    """Browsers ask for /favicon.ico whatever the page says: send them to the icon."""
    return RedirectResponse("/static/favicon.svg", status_code=301)


# --------------------------------------------------------------------------- accounts


@router.get("/signup", response_class=HTMLResponse)
def signup_page(request: Request, login: Login, next: str = "") -> Response:
    if login:
        return RedirectResponse("/", status_code=303)
    return render(request, "signup.html", {"next": safe_next(next) if next else ""}, login)


@router.post("/signup")
def signup_form(
    request: Request,
    db: DB,
    login: Login,
    settings: SettingsDep,
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    email: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
    time_zone: Annotated[str, Form()] = "",  # the browser's zone (static/js/time_zone.js)
    csrf_token: CsrfField = None,
) -> Response:
    if (refused := csrf_refused(request, None, csrf_token)) is not None:
        return refused
    try:
        ratelimit.limiter().hit("signup", client_ip(request))
        user = accounts.signup(db, username, password, email or None, time_zone or None)
    except ServiceError as exc:
        ctx = {"error": exc.message, "username": username, "email": email, "next": next}
        page = render(request, "signup.html", ctx, None, status_code=exc.status)
        page.headers.update(retry_after(exc))
        return page
    token, _ = accounts.fresh_session(
        db, user, settings.session_days, request.cookies.get(SESSION_COOKIE)
    )
    db.commit()
    if next:  # e.g. back to the invite link that sent them here
        response = redirect(safe_next(next), f"Welcome, {user.username}!")
    else:
        response = redirect(
            "/games/new", f"Welcome, {user.username}! Start a game against a bot now."
        )
    set_session_cookie(response, token, settings)
    return response


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, login: Login, next: str = "/") -> Response:
    if login:
        return RedirectResponse("/", status_code=303)
    return render(request, "login.html", {"next": safe_next(next)}, login)


def safe_next(url: str) -> str:
    return url if url.startswith("/") and not url.startswith("//") else "/"


@router.post("/login")
def login_form(
    request: Request,
    db: DB,
    settings: SettingsDep,
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
    csrf_token: CsrfField = None,
) -> Response:
    if (refused := csrf_refused(request, None, csrf_token)) is not None:
        return refused
    try:
        user = accounts.authenticate(db, username, password, client_ip(request))
    except ServiceError as exc:
        db.commit()  # a failure counts towards throttling
        ctx = {"error": exc.message, "username": username, "next": safe_next(next)}
        return render(request, "login.html", ctx, None, status_code=exc.status)
    # A new token every time; the session the request came with (if any) ends.
    token, _ = accounts.fresh_session(
        db, user, settings.session_days, request.cookies.get(SESSION_COOKIE)
    )
    db.commit()
    response = redirect(safe_next(next))
    set_session_cookie(response, token, settings)
    return response


@router.post("/logout")
def logout_form(request: Request, db: DB, login: Login, csrf_token: CsrfField = None) -> Response:
    if login is None:
        return redirect("/")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    accounts.logout(db, request.cookies.get(SESSION_COOKIE))
    db.commit()
    response = redirect("/", "You are logged out.")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/account", response_class=HTMLResponse)
def account_page(request: Request, db: DB, login: Login) -> Response:
    if login is None:
        return redirect("/login?next=/account", "Log in first.")
    ctx = {"zones": timezones.zones(), "blocks": moderation.blocks_of(db, login.user)}
    return render(request, "account.html", ctx, login)


@router.post("/account")
def account_form(
    request: Request,
    db: DB,
    login: Login,
    settings: SettingsDep,
    email: Annotated[str, Form()] = "",
    webhook_url: Annotated[str, Form()] = "",
    notify_turns: Annotated[str | None, Form()] = None,
    daily_digest: Annotated[str | None, Form()] = None,
    notify_standin: Annotated[str | None, Form()] = None,
    time_zone: Annotated[str | None, Form()] = None,
    csrf_token: CsrfField = None,
) -> Response:
    if login is None:
        return redirect("/login?next=/account", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        accounts.update_preferences(
            db,
            login.user,
            email,
            webhook_url,
            notify_turns is not None,
            daily_digest is not None,
            allow_private_webhooks=settings.webhook_allow_private,
            notify_standin=notify_standin is not None,
            time_zone=time_zone,
        )
        db.commit()
    except ServiceError as exc:
        db.rollback()
        db.refresh(login.user)
        ctx = {"error": exc.message, "zones": timezones.zones()}
        return render(request, "account.html", ctx, login, exc.status)
    return redirect("/account", "Saved.")


@router.post("/account/password")
def password_form(
    request: Request,
    db: DB,
    login: Login,
    settings: SettingsDep,
    current_password: Annotated[str, Form(max_length=256)] = "",
    new_password: Annotated[str, Form(max_length=256)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    if login is None:
        return redirect("/login?next=/account", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        token, _ = accounts.change_password(
            db, login.user, current_password, new_password, settings.session_days
        )
    except ServiceError as exc:
        db.rollback()
        return render(request, "account.html", {"error": exc.message}, login, exc.status)
    db.commit()
    response = redirect("/account", "Password changed; you are logged out everywhere else.")
    set_session_cookie(response, token, settings)
    return response


@router.post("/account/logout-everywhere")
def logout_everywhere_form(
    request: Request, db: DB, login: Login, csrf_token: CsrfField = None
) -> Response:
    if login is None:
        return redirect("/")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    accounts.logout_everywhere(db, login.user_id)
    db.commit()
    response = redirect("/", "You are logged out on every device.")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.post("/account/delete")
def delete_account_form(
    request: Request,
    db: DB,
    login: Login,
    password: Annotated[str, Form(max_length=256)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    if login is None:
        return redirect("/login?next=/account", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        accounts.delete_account(db, login.user, password)  # committed and published
    except ServiceError as exc:
        db.rollback()
        return render(request, "account.html", {"error": exc.message}, login, exc.status)
    response = redirect("/", "Your account is deleted.")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/forgot-password", response_class=HTMLResponse)
def forgot_page(request: Request, login: Login) -> Response:
    return render(request, "forgot_password.html", {}, login)


@router.post("/forgot-password")
def forgot_form(
    request: Request,
    db: DB,
    settings: SettingsDep,
    who: Annotated[str, Form(max_length=254)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    if (refused := csrf_refused(request, None, csrf_token)) is not None:
        return refused
    try:
        ratelimit.limiter().hit("reset", client_ip(request))
        ratelimit.limiter().hit("reset_account", who.strip().lower()[:254])
    except ServiceError as exc:
        page = render(request, "forgot_password.html", {"error": exc.message}, None, exc.status)
        page.headers.update(retry_after(exc))
        return page
    found = accounts.request_reset(db, who)
    if found is not None:
        send_reset_mail(settings, *found)
    return render(request, "forgot_password.html", {"sent": RESET_SENT}, None)


@router.get("/reset-password", response_class=HTMLResponse)
def reset_page(request: Request, login: Login, token: str = "") -> Response:
    return render(request, "reset_password.html", {"token": token[:200]}, login)


@router.post("/reset-password")
def reset_form(
    request: Request,
    db: DB,
    token: Annotated[str, Form(max_length=200)] = "",
    new_password: Annotated[str, Form(max_length=256)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    if (refused := csrf_refused(request, None, csrf_token)) is not None:
        return refused
    try:
        accounts.reset_password(db, token, new_password)
    except ServiceError as exc:
        ctx = {"error": exc.message, "token": token}
        return render(request, "reset_password.html", ctx, None, exc.status)
    db.commit()
    return redirect("/login", "Your password is set; log in with it.")


# --------------------------------------------------------------------------- new game


def new_game_context() -> dict[str, Any]:
    return {
        "scenarios": [s for s in lobby.scenarios() if not s.get("tutorial")],
        "bot_levels": lobby.bot_levels(),
        "bot_level_info": lobby.bot_level_info(),
        "bot_labels": lobby.bot_labels(),
        "paces": {k: lobby.pace_help(k) for k in lobby.PACE_CHOICES},
        "default_scenario": lobby.default_scenario_id(),
        "max_seats": lobby.MAX_SEATS,
    }


@router.get("/games/new", response_class=HTMLResponse)
def new_game_page(request: Request, login: Login) -> Response:
    if login is None:
        return redirect("/login?next=/games/new", "Log in (or sign up) to create a game.")
    return render(request, "new_game.html", new_game_context(), login)


@router.post("/games/new")
def new_game_form(
    request: Request,
    db: DB,
    login: Login,
    scenario: Annotated[str, Form()] = "",
    pace: Annotated[str, Form()] = "auto",
    public: Annotated[str | None, Form()] = None,
    power: Annotated[str, Form()] = "",
    seat_1: Annotated[str, Form()] = "bot:heuristic",  # = Standard (app/bots/levels.py)
    seat_2: Annotated[str, Form()] = "none",
    seat_3: Annotated[str, Form()] = "none",
    seat_4: Annotated[str, Form()] = "none",
    seat_5: Annotated[str, Form()] = "none",
    csrf_token: CsrfField = None,
) -> Response:
    """Seat 0 is the host; seats 1-5 are ``human`` (open), ``bot:<level>`` or ``none``."""
    if login is None:
        return redirect("/login?next=/games/new", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    specs = [lobby.SeatSpec("human")]
    for value in (seat_1, seat_2, seat_3, seat_4, seat_5):
        if value == "human":
            specs.append(lobby.SeatSpec("human"))
        elif value.startswith("bot:"):
            specs.append(lobby.SeatSpec("bot", value[4:]))
    try:
        ratelimit.limiter().hit("games", login.user.id)

        def make(work: unit.Work) -> Game:
            made = lobby.create_game(
                db,
                login.user,
                scenario or lobby.default_scenario_id() or "",
                specs,
                pace=pace,
                public=public is not None,
                host_power=power or None,
            )
            if all(s.user_id is not None or s.bot_level for s in made.seats):
                # Only bots besides you: start at once.
                starting.start(db, made, login.user, work)
            return made

        game = starting.new_game(db, make)  # committed and published
    except ServiceError as exc:
        db.rollback()
        ctx = {**new_game_context(), "error": exc.message}
        return render(request, "new_game.html", ctx, login, status_code=exc.status)
    if game.status == "active":
        return redirect(play_url(game.id))
    return redirect(lobby_url(game.id), "Game created: share the invite link to fill the seats.")


# --------------------------------------------------------------------------- standing orders


def _orders_page(
    request: Request,
    db: DB,
    login: UserSession,
    game_id: int,
    error: str | None = None,
    status: int = 200,
) -> Response:
    game = lobby.get_game(db, game_id)
    seat = lobby.seat_of(game, login.user_id)
    if seat is None:
        return render(
            request, "error.html", {"message": "You have no seat in this game."}, login, 403
        )
    ctx = {
        "game": lobby.game_summary(game, login.user_id),
        "orders": seat.standing_orders,
        "power": seat.power,
        "error": error,
    }
    return render(request, "orders.html", ctx, login, status)


@router.get("/games/{game_id}/orders", response_class=HTMLResponse)
def orders_page(request: Request, game_id: GameId, db: DB, login: Login) -> Response:
    if login is None:
        return redirect(f"/login?next=/games/{game_id}/orders", "Log in first.")
    try:
        return _orders_page(request, db, login, game_id)
    except ServiceError as exc:
        return render(request, "error.html", {"message": exc.message}, login, exc.status)


@router.post("/games/{game_id}/orders")
def orders_form(
    request: Request,
    game_id: GameId,
    db: DB,
    login: Login,
    defend: Annotated[str, Form()] = "",
    min_population: Annotated[str, Form()] = "1",
    max_talents: Annotated[str, Form()] = "0",
    vote: Annotated[str, Form()] = "",
    peace: Annotated[str, Form()] = "",
    csrf_token: CsrfField = None,
) -> Response:
    if login is None:
        return redirect(f"/login?next=/games/{game_id}/orders", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    standing: dict[str, Any] = {}
    if defend:
        standing["defend"] = {
            "mode": defend,
            "min_population": min_population,
            "max_talents": max_talents,
        }
    if vote:
        standing["vote"] = vote
    if peace:
        standing["peace"] = peace
    try:
        absence.set_orders(db, game_id, login.user_id, standing)  # committed, published
    except ServiceError as exc:
        db.rollback()
        return _orders_page(request, db, login, game_id, exc.message, exc.status)
    return redirect(f"/games/{game_id}/orders", "Your standing orders are saved.")


# --------------------------------------------------------------------------- a game's lobby


def game_lobby_context(
    db: DB, game_id: int, login: UserSession | None, code: str | None
) -> dict[str, Any]:
    game = lobby.get_game(db, game_id)
    uid = login.user_id if login else None
    if not lobby.can_see(db, game, uid, code):
        raise Forbidden("This game is private: you need its invite link.")
    summary = lobby.game_summary(game, uid)
    sc = lobby.scenario(game.scenario)
    mine = lobby.seat_of(game, uid)
    taken = {s.power for s in game.seats if s.power}
    return {
        "game": summary,
        "scenario": sc,
        "powers": {p["id"]: p for p in sc["powers"]},
        "free_powers": [
            p for p in sc["powers"] if p["id"] not in taken or (mine and mine.power == p["id"])
        ],
        "is_host": uid == game.host_id,
        "my_seat": mine.index if mine else None,
        "my_power": mine.power if mine else None,  # the power menu shows it chosen
        "invite_path": (
            f"/join/{lobby.invite_code(db, game)}" if mine or uid == game.host_id else None
        ),
        "code": code,
        "bot_levels": lobby.bot_levels(),
        "bot_level_info": lobby.bot_level_info(),
        "bot_labels": lobby.bot_labels(),
        "can_start": uid == game.host_id and not any(s.is_empty for s in game.seats),
    }


@router.get("/games/{game_id}/lobby", response_class=HTMLResponse)
def game_lobby(
    request: Request, game_id: GameId, db: DB, login: Login, code: InviteCode = None
) -> Response:
    try:
        game = lobby.get_game(db, game_id)
        if game.status == "active" or game.status == "finished":
            return RedirectResponse(play_url(game_id), status_code=303)
        ctx = game_lobby_context(db, game_id, login, code)
        with_ratings(ctx, db, [ctx["game"]])
    except ServiceError as exc:
        return render(request, "error.html", {"message": exc.message}, login, exc.status)
    return render(request, "game_lobby.html", ctx, login)


@router.get("/join/{code}", response_class=HTMLResponse)
def join_link(request: Request, code: str, db: DB, login: Login) -> Response:
    try:
        game = lobby.game_for_code(db, code)
    except ServiceError as exc:
        return render(request, "error.html", {"message": exc.message}, login, exc.status)
    if game.status != "lobby":
        if login is not None and lobby.seat_of(game, login.user_id) is not None:
            return RedirectResponse(play_url(game.id), status_code=303)
        # else the lobby would send her on to the game page, which a private game's
        # invite holder may not see ("ask its players for the invite link")
        message = (
            "That game was cancelled by its host."
            if game.status == "aborted"
            else "That game has already started, so its invite link no longer gives a seat."
        )
        return render(request, "error.html", {"message": message}, login, 409)
    if login is None:
        return redirect(f"/login?next=/join/{code}", "Log in (or sign up) to join the game.")
    return RedirectResponse(f"{lobby_url(game.id)}?code={code}", status_code=303)


def _lobby_post(
    request: Request,
    db: DB,
    login: UserSession | None,
    game_id: GameId,
    csrf_token: str | None,
    change: Callable[[unit.Work, Game, User], Any],
    done: str,
) -> Response:
    """`change(work, game, user)` on the locked game through the unit of work (committed
    and published there), then redirect with a message."""
    if login is None:
        return redirect(f"/login?next={lobby_url(game_id)}", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    user = login.user
    try:
        game = starting.lobby_change(db, game_id, lambda work, g: change(work, g, user))
    except ServiceError as exc:
        db.rollback()
        return redirect(lobby_url(game_id), exc.message, "error")
    if game.status == "active":
        return redirect(play_url(game_id))
    if game.status == "aborted":
        return redirect("/", done)
    return redirect(lobby_url(game_id), done)


@router.post("/games/{game_id}/join")
def join_form(
    request: Request,
    game_id: GameId,
    db: DB,
    login: Login,
    power: Annotated[str, Form()] = "",
    code: Annotated[str, Form()] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def change(_work: unit.Work, game: Game, user: User) -> Any:
        return lobby.join(db, game, user, power or None, None, code or None)

    return _lobby_post(request, db, login, game_id, csrf_token, change, "You have a seat.")


@router.post("/games/{game_id}/leave")
def leave_form(
    request: Request, game_id: GameId, db: DB, login: Login, csrf_token: CsrfField = None
) -> Response:
    def change(_work: unit.Work, game: Game, user: User) -> Any:
        return lobby.leave(db, game, user)

    return _lobby_post(request, db, login, game_id, csrf_token, change, "You left the game.")


@router.post("/games/{game_id}/start")
def start_form(
    request: Request, game_id: GameId, db: DB, login: Login, csrf_token: CsrfField = None
) -> Response:
    def change(work: unit.Work, game: Game, user: User) -> Any:
        return starting.start(db, game, user, work)

    return _lobby_post(request, db, login, game_id, csrf_token, change, "The game begins.")


@router.post("/games/{game_id}/seats/{index}/bot")
def seat_bot_form(
    request: Request,
    game_id: GameId,
    index: SeatIndex,
    db: DB,
    login: Login,
    bot_level: Annotated[str, Form()] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def change(_work: unit.Work, game: Game, user: User) -> Any:
        return lobby.set_bot(db, game, user, index, bot_level or None)

    return _lobby_post(
        request, db, login, game_id, csrf_token, change, f"Seat {index + 1} goes to a bot."
    )


@router.post("/games/{game_id}/seats/{index}/open")
def seat_open_form(
    request: Request,
    game_id: GameId,
    index: SeatIndex,
    db: DB,
    login: Login,
    csrf_token: CsrfField = None,
) -> Response:
    def change(_work: unit.Work, game: Game, user: User) -> Any:
        return lobby.open_seat(db, game, user, index)

    return _lobby_post(
        request, db, login, game_id, csrf_token, change, f"Seat {index + 1} is open."
    )


@router.post("/games/{game_id}/rematch")
def rematch_form(
    request: Request, game_id: GameId, db: DB, login: Login, csrf_token: CsrfField = None
) -> Response:
    if login is None:
        return redirect("/login", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        old = lobby.get_game(db, game_id)
        game = starting.new_game(db, lambda _work: lobby.rematch(db, old, login.user))
    except ServiceError as exc:
        db.rollback()
        return redirect("/", exc.message, "error")
    return redirect(lobby_url(game.id), "Rematch: the same table, new powers. Start when ready.")


# --------------------------------------------------------------------------- the tutorial


@router.get("/tutorial", response_class=HTMLResponse)
def tutorial_page(request: Request, db: DB, login: Login) -> Response:
    if login is None:
        return redirect("/signup?next=/tutorial", "Sign up (or log in) and the tutorial begins.")
    running = tutorial.current(db, login.user_id)
    return render(request, "tutorial.html", {"running": running}, login)


@router.post("/tutorial")
def tutorial_start(
    request: Request, db: DB, login: Login, csrf_token: CsrfField = None
) -> Response:
    """Start the tutorial, or resume the one already running: one click from the lobby."""
    if login is None:
        return redirect("/signup?next=/tutorial", "Sign up (or log in) and the tutorial begins.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    game = tutorial.start(db, login.user)  # committed and published
    return redirect(play_url(game.id))


@router.get("/tutorial/{game_id}/coach")
def tutorial_coach(game_id: int, db: DB, login: Login) -> Response:
    """The coach's advice for the tutorial game `game_id` (JSON, for static/js/game/tutor.js)."""
    if login is None:
        return JSONResponse({"detail": "Log in first."}, status_code=401)
    try:
        game = lobby.get_game(db, game_id)
        if lobby.seat_of(game, login.user_id) is None or not tutorial.is_tutorial(game):
            raise Forbidden("This is not your tutorial.")
        return JSONResponse(tutorial.coach(db, game, login.user_id))
    except ServiceError as exc:
        return JSONResponse({"detail": exc.message}, status_code=exc.status)
