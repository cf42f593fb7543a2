"""Request bodies of the JSON API (pydantic: a malformed body is a 422 naming the field)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Credentials(BaseModel):
    username: str = Field(min_length=1, max_length=64, examples=["livia"])
    password: str = Field(min_length=1, max_length=256, examples=["correct horse 1"])


class SignupBody(Credentials):
    email: str | None = Field(default=None, max_length=254)


class SeatBody(BaseModel):
    kind: Literal["human", "bot"] = "human"
    bot_level: str | None = Field(default=None, examples=["heuristic"])


class CreateGameBody(BaseModel):
    scenario: str | None = Field(default=None, description="default: the teaching scenario")
    seats: list[SeatBody] = Field(
        default_factory=lambda: [
            SeatBody(kind="human"),
            SeatBody(kind="bot", bot_level="heuristic"),
        ],
        min_length=1,
        max_length=6,
        description="seat 0 first; the host takes the first human seat",
    )
    pace: Literal["auto", "none", "live", "24h", "72h"] = "auto"
    public: bool = True
    power: str | None = Field(default=None, description="the host's power; None = random")
    options: dict[str, Any] = Field(
        default_factory=dict, description='engine options, e.g. {"end_turn": 3}'
    )


class JoinBody(BaseModel):
    power: str | None = Field(default=None, description="a power id, or null for a random one")
    seat: int | None = Field(
        default=None, ge=0, description="a seat index, or null for the first empty"
    )
    code: str | None = Field(default=None, description="the invite code (private games)")


class BotBody(BaseModel):
    bot_level: str | None = Field(default=None, examples=["heuristic"])


class ActionModel(BaseModel):
    """An engine action: ``{"type": ..., ...}`` exactly as ``legal_actions`` lists it."""

    model_config = ConfigDict(extra="allow")
    type: str = Field(min_length=1, max_length=64)


class ActionBody(BaseModel):
    action: ActionModel
    expected_version: int = Field(ge=0, description="the `version` your view was built on")
    idempotency_key: str = Field(
        min_length=1, max_length=128, description="unique per attempt; retry with the same key"
    )


class ChatBody(BaseModel):
    text: str = Field(min_length=1, max_length=1000)


class PreferencesBody(BaseModel):
    """Notice settings; omitted fields stay as they are, "" clears a text field."""

    email: str | None = Field(default=None, max_length=254)
    webhook_url: str | None = Field(default=None, max_length=500)
    notify_turns: bool | None = None
    daily_digest: bool | None = None


class DefendOrder(BaseModel):
    mode: Literal["decline", "defend"]
    min_population: int = Field(default=1, ge=1, le=3)
    max_talents: int = Field(default=0, ge=0)


class OrdersBody(BaseModel):
    """Standing orders; a null field = no order (you decide)."""

    defend: DefendOrder | None = None
    vote: Literal["yes", "no", "abstain"] | None = None
    peace: Literal["accept", "reject"] | None = None


class UndoBody(BaseModel):
    expected_version: int = Field(ge=0, description="the version your view was built on")
