"""Jinja2 pages: `render` adds the user, the CSRF token and the flash message
every page needs (templates extend ``base.html``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.bots.levels import label
from app.store.models import UserSession
from app.web.deps import ANON_CSRF_COOKIE, csrf_token_for

ROOT = Path(__file__).resolve().parent.parent.parent
templates = Jinja2Templates(directory=str(ROOT / "templates"))


def bot_label(level: str | None) -> str:
    """A bot level id as a player reads it ("heuristic" -> "Standard")."""
    return label(level) if level else ""


templates.env.filters["bot_label"] = bot_label
FLASH_COOKIE = "ig_flash"


def render(
    request: Request,
    name: str,
    context: dict[str, Any] | None = None,
    login: UserSession | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    """Render `name` with `user`, `csrf_token` and `flash` (one message, shown once)."""
    ctx: dict[str, Any] = dict(context or {})
    ctx.setdefault("user", login.user if login else None)
    ctx["csrf_token"] = csrf_token_for(request, login)
    ctx["flash"] = read_flash(request)
    response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
    if ctx["flash"]:
        response.delete_cookie(FLASH_COOKIE, path="/")
    anon = getattr(request.state, "anon_csrf", None)
    if anon and login is None:
        settings = request.app.state.settings
        response.set_cookie(
            ANON_CSRF_COOKIE,
            anon,
            httponly=True,
            samesite="lax",
            secure=settings.secure_cookies,
            path="/",
        )
    return response


def read_flash(request: Request) -> dict[str, str] | None:
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return None
    try:
        data = json.loads(unquote(raw))
        return {"kind": str(data["kind"]), "text": str(data["text"])}
    except (ValueError, KeyError, TypeError):
        return None


def flash(response: Response, text: str, kind: str = "info") -> Response:
    """Show `text` on the next page rendered (``kind``: info | error)."""
    response.set_cookie(
        FLASH_COOKIE,
        quote(json.dumps({"kind": kind, "text": text})),
        httponly=True,
        samesite="lax",
        path="/",
        max_age=60,
    )
    return response


def redirect(url: str, message: str | None = None, kind: str = "info") -> RedirectResponse:
    response = RedirectResponse(url, status_code=303)
    if message:
        flash(response, message, kind)
    return response
