"""``POST /api/bench/accounts``: many logged-in accounts at once, for benchmarks only.

A load test of 1,000 six-seat games needs 6,000 people; signing each up over
``/api/signup`` spends an argon2 hash per account (minutes of a 2-core machine).
This route makes them in one transaction with one precomputed hash of a bench
password (``app/services/bench.py``) and hands back each one's session cookie and
CSRF token.

It exists only when the ``BENCH_ACCOUNTS`` setting is on (``app/config.py``, off by
default; ``make run`` never sets it): ``create_app`` includes this router only then,
and the route itself answers 404 whenever the setting is off, exactly as a path that
does not exist. bench/ws_fanout.py turns it on for the server it starts.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from app.services import bench
from app.services.logins import SESSION_COOKIE
from app.web.deps import DB, SettingsDep
from app.web.schemas import ERROR_RESPONSES


async def bench_only(settings: SettingsDep) -> None:
    """404, as for a path that does not exist, unless ``BENCH_ACCOUNTS`` is on."""
    if not settings.bench_accounts:
        raise HTTPException(404, "Not Found")


router = APIRouter(
    prefix="/api/bench",
    tags=["bench"],
    responses=ERROR_RESPONSES,
    dependencies=[Depends(bench_only)],
    include_in_schema=False,
)


class BenchAccountsBody(BaseModel):
    count: int = Field(ge=1, le=bench.MAX_ACCOUNTS, description="how many accounts")
    prefix: str = Field(
        min_length=3,
        max_length=24,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="usernames are prefix0, prefix1, ...",
    )


@router.post("/accounts", status_code=201, summary="Bench only: N accounts, each logged in")
def create_accounts(body: BenchAccountsBody, db: DB, settings: SettingsDep) -> dict[str, Any]:
    made = bench.create_accounts(db, body.prefix, body.count, settings.session_days)
    db.commit()
    return {
        "cookie": SESSION_COOKIE,
        "password": bench.BENCH_PASSWORD,
        "accounts": [
            {
                "id": a.user_id,
                "username": a.username,
                "session": a.token,
                "csrf_token": a.csrf_token,
            }
            for a in made
        ],
    }
