"""Notices a table switches on in a minute: the game's chat-channel hook (its page,
saving it, "send a test"), a person's test mail or webhook from /account, and the
development mail sink's list at /dev/mail (app/services/mailsink.py).

The hook's URL is shown to, and set by, the people seated only: whoever has it can
post to the friends' channel.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response

from app.services import lobby, mailsink, notifications
from app.services.errors import Forbidden, ServiceError
from app.store.models import Game, UserSession
from app.web.deps import DB, Login, SettingsDep
from app.web.limits import GameId
from app.web.routes.pages import CsrfField, csrf_refused
from app.web.templating import redirect, render

router = APIRouter(include_in_schema=False)


def _seated_game(db: DB, game_id: int, login: UserSession) -> Game:
    game = lobby.get_game(db, game_id)
    if lobby.seat_of(game, login.user_id) is None:
        raise Forbidden("Only the people seated at this table can see its notices.")
    return game


def _page(
    request: Request,
    db: DB,
    login: UserSession,
    game_id: int,
    error: str | None = None,
    status: int = 200,
) -> Response:
    game = _seated_game(db, game_id, login)
    ctx = {
        "game": lobby.game_summary(game, login.user_id),
        "webhook_url": game.webhook_url,
        "example": notifications.example_line(game, login.user.username),
        "error": error,
    }
    return render(request, "notices.html", ctx, login, status)


@router.get("/games/{game_id}/notices", response_class=HTMLResponse)
def notices_page(request: Request, game_id: GameId, db: DB, login: Login) -> Response:
    if login is None:
        return redirect(f"/login?next=/games/{game_id}/notices", "Log in first.")
    try:
        return _page(request, db, login, game_id)
    except ServiceError as exc:
        return render(request, "error.html", {"message": exc.message}, login, exc.status)


@router.post("/games/{game_id}/notices")
def notices_form(
    request: Request,
    game_id: GameId,
    db: DB,
    login: Login,
    settings: SettingsDep,
    webhook_url: Annotated[str, Form()] = "",
    csrf_token: CsrfField = None,
) -> Response:
    if login is None:
        return redirect(f"/login?next=/games/{game_id}/notices", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        game = _seated_game(db, game_id, login)
        notifications.set_table_hook(
            db, game, login.user_id, webhook_url, settings.webhook_allow_private
        )
        db.commit()
    except ServiceError as exc:
        db.rollback()
        return _page(request, db, login, game_id, exc.message, exc.status)
    saved = "The table's webhook is saved." if webhook_url.strip() else "The webhook is removed."
    return redirect(f"/games/{game_id}/notices", saved)


@router.post("/games/{game_id}/notices/test")
def notices_test(
    request: Request,
    game_id: GameId,
    db: DB,
    login: Login,
    settings: SettingsDep,
    csrf_token: CsrfField = None,
) -> Response:
    if login is None:
        return redirect(f"/login?next=/games/{game_id}/notices", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        game = _seated_game(db, game_id, login)
        send = notifications.table_test(game, login.user.username, settings)
        db.rollback()  # nothing was written: no transaction stays open during the post
        send()
    except ServiceError as exc:
        return _page(request, db, login, game_id, exc.message, exc.status)
    return redirect(f"/games/{game_id}/notices", "A test message went to the channel: look there.")


@router.post("/account/test")
def account_test(
    request: Request,
    login: Login,
    settings: SettingsDep,
    channel: Annotated[str, Form()] = "email",
    csrf_token: CsrfField = None,
) -> Response:
    if login is None:
        return redirect("/login?next=/account", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        notifications.test_personal(
            login.user, "webhook" if channel == "webhook" else "email", settings
        )
    except ServiceError as exc:
        return render(request, "account.html", {"error": exc.message}, login, exc.status)
    where = "your webhook" if channel == "webhook" else login.user.email
    sink = (
        " (this server keeps its mail at /dev/mail)"
        if settings.mail_sink_active and channel != "webhook"
        else ""
    )
    return redirect("/account", f"A test notice went to {where}{sink}.")


@router.get("/dev/mail", response_class=HTMLResponse)
def mail_sink(request: Request, login: Login, settings: SettingsDep) -> Response:
    """The mails the server would have sent (only while the development sink is on):
    a signed-in person's own (they hold her password-reset links), or every mail with
    MAIL_SINK_SHOW_ALL; nothing to anyone else (app/services/mailsink.py)."""
    if not settings.mail_sink_active:
        return render(
            request,
            "error.html",
            {
                "message": "There is no mail sink here: this server sends mail by SMTP or not at all."
            },
            login,
            404,
        )
    folder = settings.mail_sink or ""
    if settings.mail_sink_show_all:
        mails = mailsink.read(folder)
    elif login is None:
        return redirect("/login?next=/dev/mail", "Log in to read the mail sent to you.")
    elif login.user.email:
        mails = mailsink.read(folder, recipient=mailsink.Recipient(login.user_id, login.user.email))
    else:
        mails = []
    ctx = {"mails": mails, "folder": folder, "show_all": settings.mail_sink_show_all}
    return render(request, "mail_sink.html", ctx, login)
