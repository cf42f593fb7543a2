"""Moderation over the API and in pages (app/services/moderation.py): block a player,
mute a table's chat, report a player or a chat line; the admin page, its report queue
and suspensions. Thin: parse, call the service, commit (a suspension is committed and
published by its unit of work).

Every write needs a session and its CSRF token (the ``X-CSRF-Token`` header on the
API, the form's ``csrf_token`` on a page); the admins' routes answer 403 to anyone else.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Request, Response
from fastapi.responses import HTMLResponse

from app.services import moderation, ratelimit
from app.services.errors import ServiceError
from app.services.inputs import MAX_DB_INT
from app.store.models import UserSession
from app.web.deps import DB, CsrfChecked, CurrentUser, Login
from app.web.limits import GameId
from app.web.routes.pages import CsrfField, csrf_refused, safe_next
from app.web.schemas import ERROR_RESPONSES, BlockBody, NoteBody, ReportBody, SuspendBody
from app.web.templating import redirect, render

api = APIRouter(prefix="/api", tags=["moderation"], responses=ERROR_RESPONSES)
pages = APIRouter(include_in_schema=False)

Username = Annotated[str, Path(min_length=1, max_length=64, description="a player's name")]
ReportId = Annotated[int, Path(ge=1, le=MAX_DB_INT, description="a report id")]

REPORTED = "Thank you: the moderators will look at your report."


# --------------------------------------------------------------------------- the API


@api.get("/me/blocks", summary="Whom you block")
def my_blocks(db: DB, user: CurrentUser) -> dict[str, Any]:
    return {"blocks": moderation.blocks_of(db, user)}


@api.post(
    "/me/blocks",
    status_code=201,
    summary="Block a player: none of their chat reaches you, neither can seat the other",
)
def block(body: BlockBody, response: Response, db: DB, user: CurrentUser, _: CsrfChecked) -> Any:
    target, added = moderation.block(db, user, body.username)
    db.commit()
    if not added:
        response.status_code = 200
    return {"username": target.username, "user_id": target.id, "already": not added}


@api.delete("/me/blocks/{username}", summary="Unblock a player")
def unblock(username: Username, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    target = moderation.unblock(db, user, username)
    db.commit()
    return {"username": target.username, "blocked": False}


@api.get("/games/{game_id}/chat/mute", summary="Whether you muted this table's chat")
def muted(game_id: GameId, db: DB, user: CurrentUser) -> dict[str, Any]:
    return {"muted": moderation.is_muted(db, user.id, game_id)}


@api.put("/games/{game_id}/chat/mute", summary="Mute this table's chat for yourself")
def mute(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    on = moderation.set_muted(db, user, game_id, True)
    db.commit()
    return {"muted": on}


@api.delete("/games/{game_id}/chat/mute", summary="Unmute this table's chat")
def unmute(game_id: GameId, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    on = moderation.set_muted(db, user, game_id, False)
    db.commit()
    return {"muted": on}


@api.get("/reports/reasons", summary="The reasons a report may give")
def reasons() -> dict[str, Any]:
    return {
        "reasons": [{"id": k, "label": v} for k, v in moderation.REASONS.items()],
        "max_text": moderation.MAX_TEXT,
    }


@api.post(
    "/reports",
    status_code=201,
    summary="Report a chat line or a player to the admins (10 reports an hour)",
)
def report(body: ReportBody, db: DB, user: CurrentUser, _: CsrfChecked) -> dict[str, Any]:
    ratelimit.limiter().hit("report", user.id)
    row = moderation.report(
        db, user, body.reason, body.text, username=body.username, message_id=body.message_id
    )
    db.commit()
    return {"report": moderation.report_json(row), "detail": REPORTED}


@api.get("/admin/reports", summary="Admins: the open reports, with each line's context")
def admin_reports(db: DB, user: CurrentUser) -> dict[str, Any]:
    moderation.require_admin(user)
    return {"reports": moderation.queue(db)}


@api.post("/admin/reports/{report_id}/dismiss", summary="Admins: dismiss a report")
def admin_dismiss(
    report_id: ReportId, db: DB, user: CurrentUser, _: CsrfChecked, body: NoteBody | None = None
) -> dict[str, Any]:
    row = moderation.dismiss(db, user, report_id, (body or NoteBody()).note)
    db.commit()
    return {"report": moderation.report_json(row)}


@api.get("/admin/suspended", summary="Admins: the suspended accounts")
def admin_suspended(db: DB, user: CurrentUser) -> dict[str, Any]:
    moderation.require_admin(user)
    return {"suspended": moderation.suspended_accounts(db)}


@api.post(
    "/admin/users/{username}/suspend",
    summary="Admins: suspend an account (sessions end, sockets close, seats to stand-ins)",
)
def admin_suspend(
    username: Username, body: SuspendBody, db: DB, user: CurrentUser, _: CsrfChecked
) -> dict[str, Any]:
    changed = moderation.suspend(db, user, username, body.reason)  # committed, published
    return {"username": moderation.user_named(db, username).username, "games": sorted(changed)}


@api.post("/admin/users/{username}/unsuspend", summary="Admins: lift a suspension")
def admin_unsuspend(
    username: Username, db: DB, user: CurrentUser, _: CsrfChecked, body: NoteBody | None = None
) -> dict[str, Any]:
    target = moderation.unsuspend(db, user, username, (body or NoteBody()).note)
    db.commit()
    return {"username": target.username, "suspended": False}


@api.get("/admin/log", summary="Admins: the latest entries of the moderation log")
def admin_log(db: DB, user: CurrentUser) -> dict[str, Any]:
    moderation.require_admin(user)
    return {"log": moderation.log_json(db)}


# --------------------------------------------------------------------------- pages


def _form(
    request: Request,
    db: DB,
    login: UserSession | None,
    csrf_token: str | None,
    back: str,
    do: Any,
) -> Response:
    """A moderation form: signed in, its CSRF token checked, `do(user)` (the message
    shown after), committed; a refusal is shown on `back`."""
    if login is None:
        return redirect(f"/login?next={back}", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        done = do(login.user)
        db.commit()
    except ServiceError as exc:
        db.rollback()
        return redirect(back, exc.message, "error")
    return redirect(back, done)


@pages.post("/players/{username}/block")
def block_form(
    request: Request,
    username: Username,
    db: DB,
    login: Login,
    next: Annotated[str, Form(max_length=300)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def do(user: Any) -> str:
        target, _added = moderation.block(db, user, username)
        return f"You block {target.username}: none of their chat reaches you."

    back = safe_next(next) if next else f"/players/{username}"
    return _form(request, db, login, csrf_token, back, do)


@pages.post("/players/{username}/unblock")
def unblock_form(
    request: Request,
    username: Username,
    db: DB,
    login: Login,
    next: Annotated[str, Form(max_length=300)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def do(user: Any) -> str:
        return f"You no longer block {moderation.unblock(db, user, username).username}."

    back = safe_next(next) if next else f"/players/{username}"
    return _form(request, db, login, csrf_token, back, do)


@pages.post("/players/{username}/report")
def report_form(
    request: Request,
    username: Username,
    db: DB,
    login: Login,
    reason: Annotated[str, Form(max_length=16)] = "",
    text: Annotated[str, Form(max_length=2000)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def do(user: Any) -> str:
        ratelimit.limiter().hit("report", user.id)
        moderation.report(db, user, reason, text, username=username)
        return REPORTED

    return _form(request, db, login, csrf_token, f"/players/{username}", do)


def _admin_page(
    request: Request, db: DB, login: UserSession, error: str | None = None, status: int = 200
) -> Response:
    ctx = {
        "reports": moderation.queue(db),
        "suspended": moderation.suspended_accounts(db),
        "log": moderation.log_json(db),
        "reasons": moderation.REASONS,
        "error": error,
    }
    return render(request, "admin.html", ctx, login, status)


@pages.get("/admin", response_class=HTMLResponse)
def admin_page(request: Request, db: DB, login: Login) -> Response:
    if login is None:
        return redirect("/login?next=/admin", "Log in first.")
    try:
        moderation.require_admin(login.user)
    except ServiceError as exc:
        return render(request, "error.html", {"message": exc.message}, login, exc.status)
    return _admin_page(request, db, login)


def _admin_form(
    request: Request, db: DB, login: UserSession | None, csrf_token: str | None, do: Any
) -> Response:
    """An admin's form: signed in, CSRF, an admin, then `do(admin)` (its message)."""
    if login is None:
        return redirect("/login?next=/admin", "Log in first.")
    if (refused := csrf_refused(request, login, csrf_token)) is not None:
        return refused
    try:
        moderation.require_admin(login.user)
    except ServiceError as exc:
        return render(request, "error.html", {"message": exc.message}, login, exc.status)
    try:
        done = do(login.user)
        db.commit()
    except ServiceError as exc:
        db.rollback()
        return _admin_page(request, db, login, exc.message, exc.status)
    return redirect("/admin", done)


@pages.post("/admin/reports/{report_id}/dismiss")
def dismiss_form(
    request: Request,
    report_id: ReportId,
    db: DB,
    login: Login,
    note: Annotated[str, Form(max_length=2000)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def do(admin: Any) -> str:
        moderation.dismiss(db, admin, report_id, note)
        return f"Report {report_id} dismissed."

    return _admin_form(request, db, login, csrf_token, do)


@pages.post("/admin/suspend")
def suspend_form(
    request: Request,
    db: DB,
    login: Login,
    username: Annotated[str, Form(max_length=64)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def do(admin: Any) -> str:
        moderation.suspend(db, admin, username, reason)  # committed and published
        name = moderation.user_named(db, username).username
        return f"{name} is suspended: signed out everywhere, their seats to stand-ins."

    return _admin_form(request, db, login, csrf_token, do)


@pages.post("/admin/unsuspend")
def unsuspend_form(
    request: Request,
    db: DB,
    login: Login,
    username: Annotated[str, Form(max_length=64)] = "",
    note: Annotated[str, Form(max_length=2000)] = "",
    csrf_token: CsrfField = None,
) -> Response:
    def do(admin: Any) -> str:
        target = moderation.unsuspend(db, admin, username, note)
        return f"{target.username} may sign in again."

    return _admin_form(request, db, login, csrf_token, do)
