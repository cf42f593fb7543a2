"""Settings, read from the environment (and a `.env` file when present)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic_settings import BaseSettings, SettingsConfigDict

from app.store.db import MAX_OVERFLOW, POOL_SIZE

DEFAULT_SQLITE_PATH = Path("data") / "imperial-glory.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    # Unset: an SQLite file under ./data, so one command starts a playable server.
    database_url: str = f"sqlite:///{DEFAULT_SQLITE_PATH}"
    #: PostgreSQL: connections each process keeps open, and how many more a burst may open
    #: (closed again when returned); size the server's max_connections for every process
    db_pool_size: int = POOL_SIZE
    db_max_overflow: int = MAX_OVERFLOW
    host: str = "127.0.0.1"
    port: int = 8000
    # Cookies carry the Secure flag when the site is served over HTTPS.
    secure_cookies: bool = False
    session_days: int = 30
    base_url: str = "http://127.0.0.1:8000"
    log_level: str = "info"
    # Realtime: bounded per-socket queue and heartbeat period.
    ws_queue_size: int = 64
    ws_heartbeat_s: float = 20.0
    #: permessage-deflate on sockets: less bandwidth, ~250 KB more memory per socket
    ws_compression: bool = False
    #: uvicorn's websocket protocol: "websockets-sansio" runs no task per socket (the
    #: legacy "websockets" one runs three), see docs/performance.md
    ws_protocol: Literal["websockets-sansio", "websockets"] = "websockets-sansio"
    #: a bot that thinks longer than this is answered for with the prompt's default
    bot_think_timeout_s: float = 10.0
    #: how often the bot worker looks for games waiting on a bot (restarts, other processes)
    bot_sweep_s: float = 2.0
    # Notifications (optional).
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_from: str = "imperial-glory@localhost"
    #: with no SMTP_HOST, a directory where mail is written instead (one .eml file each,
    #: listed at /dev/mail): the development sink `make run` turns on (data/mail).
    #: Never on a public site: the list is open to anyone (app/services/mailsink.py).
    mail_sink: str | None = None
    # Webhooks may point at private and loopback addresses (a table on one LAN; tests).
    webhook_allow_private: bool = False
    #: answer the view and an action, the requests of every move, in app/web/fastlane.py
    #: (off: every request goes through FastAPI's routes; benchmarks compare both)
    fast_lane: bool = True
    # Rate limits, "hits/seconds" (defaults in app/web/ratelimit.py): sign-ups and
    # password-reset requests per address, chat lines and actions per user.
    rate_signup: str | None = None
    rate_chat: str | None = None
    rate_actions: str | None = None
    rate_reset: str | None = None

    @property
    def mail_sink_active(self) -> bool:
        """Mail goes to the development sink (no SMTP server, a sink directory set)."""
        return not self.smtp_host and bool(self.mail_sink)

    @property
    def can_mail(self) -> bool:
        return bool(self.smtp_host) or self.mail_sink_active

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def pool_options(self) -> dict[str, int]:
        """`make_engine`'s pool arguments (a database server's; SQLite has no pool to size)."""
        if self.is_sqlite:
            return {}
        return {"pool_size": self.db_pool_size, "max_overflow": self.db_max_overflow}


@lru_cache
def get_settings() -> Settings:
    return Settings()
