"""GET /healthz: the process answers and the database is reachable."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.store.db import ping

router = APIRouter(tags=["ops"])


@router.get("/healthz", summary="200 when the database answers, 503 otherwise")
def healthz(request: Request) -> Any:
    try:
        ping(request.app.state.engine)
    except Exception as exc:  # any failure to reach the database
        return JSONResponse({"ok": False, "database": str(exc)[:200]}, status_code=503)
    return {"ok": True, "database": "ok"}
