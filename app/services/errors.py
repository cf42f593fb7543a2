"""Typed service errors; the web layer maps `status` to the HTTP status code."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def to_json(self) -> dict[str, Any]:
        return {"detail": self.message, "code": self.code, **self.extra}


class Unauthorized(ServiceError):
    status = 401
    code = "not_logged_in"


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class Blocked(Forbidden):
    """A person blocks another (app/services/moderation.py): one cannot seat the other."""

    code = "blocked"


class Suspended(Forbidden):
    """The account is suspended by the moderators: it cannot sign in."""

    code = "suspended"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class Conflict(ServiceError):
    status = 409
    code = "conflict"

    def __init__(self, message: str, code: str | None = None, **extra: Any) -> None:
        super().__init__(message, **extra)
        if code:
            self.code = code


class StaleVersion(Conflict):
    """The client acted on an old version; `current_version` tells it where the game is."""

    code = "stale_version"

    def __init__(self, current_version: int) -> None:
        super().__init__(
            f"The game has moved on (version {current_version}); reload and decide again.",
            current_version=current_version,
        )
        self.current_version = current_version


class Invalid(ServiceError):
    """Input the rules or the lobby refuse (422), with a reason a person can read."""

    status = 422
    code = "invalid"

    def __init__(self, message: str, code: str | None = None, **extra: Any) -> None:
        super().__init__(message, **extra)
        if code:
            self.code = code


class Throttled(ServiceError):
    status = 429
    code = "throttled"
