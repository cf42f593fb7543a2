"""Request bodies of the JSON API (pydantic: a malformed body is a 422 naming the field)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.services.inputs import MAX_DB_INT

#: the engine's bounds on a game's options (app/engine/setup.py new_game)
MAX_ROUNDS = 8
MAX_END_TURN = 16


class ErrorBody(BaseModel):
    """Every 4xx of the API: ``detail`` (a sentence; for a request that does not fit
    its schema, FastAPI's list of ``{loc, msg, type}``), a machine-readable ``code``,
    and ``field`` (the dotted name of the offending input) when one is to blame.
    Some errors add context: ``current_version`` (409 stale_version), ``retry_after``
    (429, also the Retry-After header), ``status`` (409 when a game is not running)."""

    model_config = ConfigDict(extra="allow")
    detail: str | list[dict[str, Any]]
    code: str
    field: str | None = None


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in {
        400: "Bad request",
        401: "Not logged in (or the session ended)",
        403: "Forbidden (CSRF token missing or wrong; private game; no seat)",
        404: "No such game (or other thing)",
        409: "Conflict (stale_version with current_version; a taken name; a game not running)",
        413: "Body larger than 64 KiB",
        422: "Invalid input: `field` names it",
        429: "Rate limited: wait Retry-After seconds",
    }.items()
}


class Credentials(BaseModel):
    username: str = Field(min_length=1, max_length=64, examples=["livia"])
    password: str = Field(min_length=1, max_length=256, examples=["correct horse 1"])


class SignupBody(Credentials):
    email: str | None = Field(
        default=None,
        max_length=254,
        description="one e-mail address, stored normalised (422 `bad_email` otherwise)",
    )
    time_zone: str | None = Field(
        default=None,
        max_length=200,
        description='the IANA zone her mails write times in ("Europe/Paris"), as the '
        "browser reports it; one the server does not know is left out (UTC)",
    )


class PasswordChangeBody(BaseModel):
    current_password: str = Field(min_length=1, max_length=256)
    new_password: str = Field(min_length=1, max_length=256)


class ResetRequestBody(BaseModel):
    who: str = Field(min_length=1, max_length=254, description="your username or e-mail address")


class ResetBody(BaseModel):
    token: str = Field(min_length=1, max_length=200, description="from the e-mailed link")
    new_password: str = Field(min_length=1, max_length=256)


class DeleteAccountBody(BaseModel):
    password: str = Field(min_length=1, max_length=256, description="your password, again")


class SeatBody(BaseModel):
    kind: Literal["human", "bot"] = "human"
    bot_level: str | None = Field(default=None, max_length=32, examples=["heuristic"])


class GameOptions(BaseModel):
    """Engine options of a new game. Unknown keys are refused; omitted ones take the
    scenario's value. ``end_turn`` is further capped by the scenario's ``turns``
    (``GET /api/scenarios``), checked when the game is created."""

    model_config = ConfigDict(extra="forbid")
    end_turn: int | None = Field(
        default=None,
        ge=1,
        le=MAX_END_TURN,
        description="play only up to this turn (1 … the scenario's `turns`)",
    )
    rounds: int | None = Field(
        default=None, ge=1, le=MAX_ROUNDS, description="rounds per turn (1 … 8)"
    )


class CreateGameBody(BaseModel):
    scenario: str | None = Field(
        default=None, max_length=64, description="default: the teaching scenario"
    )
    seats: list[SeatBody] = Field(
        default_factory=lambda: [
            SeatBody(kind="human"),
            SeatBody(kind="bot", bot_level="heuristic"),
        ],
        min_length=1,
        max_length=6,
        description="seat 0 first; the host takes the first human seat",
    )
    pace: Literal["auto", "live", "daily", "none", "24h", "72h"] = "auto"
    public: bool = True
    power: str | None = Field(
        default=None, max_length=64, description="the host's power; None = random"
    )
    options: GameOptions = Field(
        default_factory=GameOptions, description='engine options, e.g. {"end_turn": 3}'
    )


class JoinBody(BaseModel):
    power: str | None = Field(
        default=None, max_length=64, description="a power id, or null for a random one"
    )
    seat: int | None = Field(
        default=None, ge=0, le=63, description="a seat index, or null for the first empty"
    )
    code: str | None = Field(
        default=None, max_length=64, description="the invite code (private games)"
    )


class BotBody(BaseModel):
    bot_level: str | None = Field(default=None, max_length=32, examples=["heuristic"])


class ChatBody(BaseModel):
    text: str = Field(min_length=1, max_length=1000)


class PreferencesBody(BaseModel):
    """Notice settings; omitted fields stay as they are, "" clears a text field."""

    email: str | None = Field(
        default=None,
        max_length=254,
        description="one e-mail address, stored normalised (422 `bad_email` otherwise)",
    )
    webhook_url: str | None = Field(default=None, max_length=500)
    notify_turns: bool | None = None
    daily_digest: bool | None = None
    notify_standin: bool | None = None
    time_zone: str | None = Field(
        default=None,
        max_length=64,
        description='the IANA zone her mails write times in ("Europe/Paris"); "" is UTC '
        "(422 `bad_time_zone` for a zone the server does not know)",
    )


class DefendOrder(BaseModel):
    mode: Literal["decline", "defend"]
    min_population: int = Field(default=1, ge=1, le=3)
    max_talents: int = Field(default=0, ge=0, le=MAX_DB_INT)


class OrdersBody(BaseModel):
    """Standing orders; a null field = no order (you decide)."""

    defend: DefendOrder | None = None
    vote: Literal["yes", "no", "abstain"] | None = None
    peace: Literal["accept", "reject"] | None = None


class UndoBody(BaseModel):
    expected_version: int = Field(
        ge=0, le=MAX_DB_INT, description="the version your view was built on"
    )


class VoteBody(BaseModel):
    """A table vote (app/services/tablevotes.py): pause or run the clocks, or hand an
    absent person's seat to a stand-in now."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["pause", "resume", "skip"]
    seat: int | None = Field(default=None, ge=0, le=63, description="the seat to hand over")
    yes: bool = Field(default=True, description="false withdraws your vote")


# --------------------------------------------------------------------------- moderation


class BlockBody(BaseModel):
    username: str = Field(min_length=1, max_length=64, examples=["livia"])


class ReportBody(BaseModel):
    """A report of a chat line (`message_id`) or of a player (`username`): the reason is
    one of ``GET /api/reports/reasons``; `text` is your own words (at most 500
    characters; needed with ``other``)."""

    model_config = ConfigDict(extra="forbid")

    reason: str = Field(min_length=1, max_length=16, examples=["abuse"])
    text: str = Field(default="", max_length=2000)
    username: str | None = Field(default=None, max_length=64)
    message_id: int | None = Field(default=None, ge=1, le=MAX_DB_INT)


class SuspendBody(BaseModel):
    reason: str = Field(min_length=1, max_length=2000, examples=["insults at the table"])


class NoteBody(BaseModel):
    note: str = Field(default="", max_length=2000)
