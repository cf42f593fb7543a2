"""The tables. One game is a row plus an append-only log (actions, events).

- ``games.state`` holds the latest snapshot: the state after ``games.state_seq``
  actions, as canonical JSON text (``engine.dumps``), so it round-trips exactly. It is
  written every N actions, not on every action: the current state is that snapshot
  plus the actions after it (``app/services/gamelog.py``, which also keeps the latest
  state of each game in memory). ``snapshots`` keep every snapshot with its hash, so a
  replay or an audit need not start from the seed.
- ``games.version`` rises by one on every change a client may care about (a
  lobby change, the start, every action); clients send it back as
  ``expected_version`` and a stale one is refused.
- ``actions.seq`` is 1, 2, 3 … per game with no gap (unique per game), and
  ``events.seq`` likewise, so a socket can ask for "what I missed since n".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from app.store.types import JSONType, UTCDateTime, utcnow

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32))
    #: lower-cased username: uniqueness is case-insensitive on every backend.
    username_key: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    email: Mapped[str | None] = mapped_column(String(254), default=None)
    #: a URL that receives a JSON POST when it is this user's turn (e.g. a chat room hook)
    webhook_url: Mapped[str | None] = mapped_column(String(500), default=None)
    #: "your turn" notices (e-mail and webhook), at most one per game per hour
    notify_turns: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    #: a notice when a stand-in took this user's seat (they were away or out of time)
    notify_standin: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    #: one e-mail a day listing the games waiting for this user
    daily_digest: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: an IANA time zone ("Europe/Paris") the times in her mails are written in; None is
    #: UTC (accounts made before it existed). Set from the browser at sign-up (issue 40)
    time_zone: Mapped[str | None] = mapped_column(String(64), default=None)
    last_digest_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    #: a moderator: the admin page and the report queue (``imperial-glory admin grant``)
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: when an admin suspended the account (None: it is not): no session, no log-in
    #: (app/services/moderation.py); the reason is told to her when she tries
    suspended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    suspended_reason: Mapped[str | None] = mapped_column(String(500), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class UserSession(Base):
    """A login. The cookie holds a random token; only its sha256 is stored."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())

    user: Mapped[User] = relationship(lazy="joined")


class LoginFailure(Base):
    """One failed log-in, for throttling by (username, address)."""

    __tablename__ = "login_failures"
    __table_args__ = (Index("ix_login_failures_key_ip_at", "username_key", "ip", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username_key: Mapped[str] = mapped_column(String(64))
    ip: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_status_public", "status", "public"),
        Index("ix_games_next_deadline", "next_deadline"),
        Index("ix_games_server_turn", "server_turn"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    scenario: Mapped[str] = mapped_column(String(64))
    #: lobby | active | finished | aborted
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    host_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    #: live | daily | none (app/services/clocks.py; 24h | 72h in older games)
    pace: Mapped[str] = mapped_column(String(8), default="live")
    options: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    seed: Mapped[int | None] = mapped_column(BigInteger, default=None)
    version: Mapped[int] = mapped_column(Integer, default=0)
    #: the highest actions.seq / events.seq of this game (0 = none yet)
    last_action: Mapped[int] = mapped_column(Integer, default=0)
    last_event: Mapped[int] = mapped_column(Integer, default=0)
    #: the latest snapshot: the state after `state_seq` actions, canonical JSON text
    #: (engine.dumps); None in the lobby. The current state is it + the actions after.
    state: Mapped[str | None] = mapped_column(Text, default=None)
    state_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: the seat that may take back the last action now (decided when it was submitted)
    undo_seat: Mapped[int | None] = mapped_column(Integer, default=None)
    #: a bot or stand-in must answer a pending prompt (the bot worker's to-do list)
    server_turn: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: per seat (as a string key) the ISO deadline of its pending prompt; null in a
    #: game with no clock (the seat owes a decision, with no deadline).
    deadlines: Mapped[dict[str, str | None]] = mapped_column(JSONType, default=dict)
    next_deadline: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    #: the time banks, the pause, the table's votes and who is away (app/services/clocks.py)
    clocks: Mapped[dict[str, Any] | None] = mapped_column(JSONType, default=None)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSONType, default=None)
    #: what the platform adds to a finished game's result, beside the engine's own
    #: `outcome` (which stays exactly what the engine says, so a record verifies):
    #: {"standin": {seat: decisions}, "defaulted": {seat: n}, "rated": {user: [before, after]}}
    result_notes: Mapped[dict[str, Any] | None] = mapped_column(JSONType, default=None)
    #: the table's chat-channel hook (Discord or Slack incoming webhook): "Parthia to
    #: move"; seen and set by the people seated only (it lets anyone post to the channel)
    webhook_url: Mapped[str | None] = mapped_column(String(500), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    host: Mapped[User] = relationship(foreign_keys=[host_id])
    seats: Mapped[list[Seat]] = relationship(
        back_populates="game", order_by="Seat.index", cascade="all, delete-orphan"
    )


class Seat(Base):
    """Seat `index` of a game: a person (`user_id`) or a bot (`bot_level`), or empty.

    `power` is the power chosen in the lobby (None = drawn at random at the start);
    `standin` is the bot level playing for an absent person (her time ran out, she
    said she is away, or the table voted: app/services/standins.py), until she takes
    the seat back; `missed` counts the times her time ran out.
    """

    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("game_id", "index"),
        UniqueConstraint("game_id", "user_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None, index=True)
    bot_level: Mapped[str | None] = mapped_column(String(32), default=None)
    power: Mapped[str | None] = mapped_column(String(64), default=None)
    joined_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    missed: Mapped[int] = mapped_column(Integer, default=0)
    standin: Mapped[str | None] = mapped_column(String(32), default=None)
    #: standing orders (app/services/orders.py), answered by the server at once
    standing_orders: Mapped[dict[str, Any] | None] = mapped_column(JSONType, default=None)
    #: the last event (events.seq) its person has seen: the game page shows what came
    #: after it on her return ("while you were away", app/services/catchup.py); None
    #: until she first opens the game's page
    seen_event: Mapped[int | None] = mapped_column(Integer, default=None)

    game: Mapped[Game] = relationship(back_populates="seats")
    user: Mapped[User | None] = relationship(lazy="joined")

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and self.bot_level is None


class Presence(Base):
    """A person's open sockets on a game in one server process (`origin`): refreshed
    (`seen_at`) while one stays open, `left_at` set when the last one closes. A person
    is present while some row of hers is open and fresh (app/services/presence.py)."""

    __tablename__ = "presence"
    __table_args__ = (Index("ix_presence_origin", "origin"),)

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    origin: Mapped[str] = mapped_column(String(32), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime())
    left_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class Invite(Base):
    """An invite link `/join/{code}`; private games are reachable only this way."""

    __tablename__ = "invites"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    code: Mapped[str] = mapped_column(String(32), unique=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Action(Base):
    """The action log: replaying seed + these in `seq` order reproduces the game."""

    __tablename__ = "actions"
    __table_args__ = (
        UniqueConstraint("game_id", "seq"),
        UniqueConstraint("game_id", "idempotency_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSONType)
    #: player | bot | standin | deadline
    source: Mapped[str] = mapped_column(String(16), default="player")
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    idempotency_key: Mapped[str | None] = mapped_column(String(128), default=None)
    version: Mapped[int] = mapped_column(Integer)
    #: whether its player may take it back (decided once, when it was submitted)
    can_undo: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the response given to the player who sent it (replayed on a retried key)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONType, default=None)
    #: events.seq range produced by this action: (first_event, last_event]
    first_event: Mapped[int] = mapped_column(Integer, default=0)
    last_event: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Event(Base):
    """A log line. `visible_to` None = everyone, else the list of seats that may see it."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    action_seq: Mapped[int | None] = mapped_column(Integer, default=None)
    visible_to: Mapped[list[int] | None] = mapped_column(JSONType, default=None)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Snapshot(Base):
    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("game_id", "action_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: the state after this many actions (0 = the start)
    action_seq: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(Text)
    state_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ChatMessage(Base):
    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_game_id_id", "game_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    user: Mapped[User] = relationship(lazy="joined")


class Notification(Base):
    """A notice sent (or attempted) to a user: a turn notice for a game, or a digest."""

    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_user_game_at", "user_id", "game_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), default=None
    )
    #: turn | digest | standin | table (a game's chat-channel hook)
    kind: Mapped[str] = mapped_column(String(16))
    #: email | webhook
    channel: Mapped[str] = mapped_column(String(16))
    #: queued (to send by the notice loop) | sending | sent | failed
    status: Mapped[str] = mapped_column(String(16), default="sending")
    error: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class PlayerStats(Base):
    """A player's rating (openskill Plackett-Luce: `mu` ± `sigma`, shown as the
    conservative ``mu - 3 sigma``), games rated and won, and when last seen (for the
    lobby's "who is online"). One row per user, made on first need."""

    __tablename__ = "player_stats"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    mu: Mapped[float] = mapped_column(Float, default=25.0)
    sigma: Mapped[float] = mapped_column(Float, default=25.0 / 3)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None, index=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    user: Mapped[User] = relationship(lazy="joined")


class Block(Base):
    """`user_id` blocks `blocked_id`: none of the blocked person's chat reaches her, and
    neither can seat the other at a table (app/services/moderation.py)."""

    __tablename__ = "blocks"
    __table_args__ = (Index("ix_blocks_blocked_id", "blocked_id"),)

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    blocked: Mapped[User] = relationship(foreign_keys=[blocked_id], lazy="joined")


class ChatMute(Base):
    """`user_id` muted the table talk of `game_id` for herself."""

    __tablename__ = "chat_mutes"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Report(Base):
    """A report of a player, or of one chat line of theirs (`message_id`), for the
    admins' queue: open until an admin dismisses it or acts on the account."""

    __tablename__ = "reports"
    __table_args__ = (
        UniqueConstraint("reporter_id", "message_id"),
        Index("ix_reports_status_id", "status", "id"),
        Index("ix_reports_reported_id", "reported_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    reported_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), default=None
    )
    message_id: Mapped[int | None] = mapped_column(
        ForeignKey("chat_messages.id", ondelete="CASCADE"), default=None
    )
    #: one of ``moderation.REASONS``
    reason: Mapped[str] = mapped_column(String(16))
    #: the reporter's own words (at most ``moderation.MAX_TEXT`` characters)
    text: Mapped[str] = mapped_column(Text, default="")
    #: open | dismissed | actioned (the account was suspended)
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    resolved_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    resolution: Mapped[str | None] = mapped_column(String(500), default=None)

    reporter: Mapped[User] = relationship(foreign_keys=[reporter_id], lazy="joined")
    reported: Mapped[User] = relationship(foreign_keys=[reported_id], lazy="joined")


class ModerationEntry(Base):
    """The moderation log: who (`actor_id`; None for the command line) did what
    (`action`) to whom (`target_id`), when and why. Nothing is ever deleted from it."""

    __tablename__ = "moderation_log"
    __table_args__ = (Index("ix_moderation_log_target_id", "target_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    #: block | unblock | mute | unmute | report | dismiss | suspend | unsuspend | grant | revoke
    action: Mapped[str] = mapped_column(String(16))
    target_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), default=None)
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), default=None
    )
    report_id: Mapped[int | None] = mapped_column(
        ForeignKey("reports.id", ondelete="SET NULL"), default=None
    )
    reason: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    actor: Mapped[User | None] = relationship(foreign_keys=[actor_id], lazy="joined")
    target: Mapped[User | None] = relationship(foreign_keys=[target_id], lazy="joined")


def table(model: type[Base]) -> Table:
    """The Core ``Table`` of a mapped class, for the statements the services write
    without the ORM (a class's ``__table__`` is typed as a mere ``FromClause``)."""
    return Base.metadata.tables[model.__tablename__]
