"""Settings, read from the environment (and a `.env` file when present)."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.store.db import MAX_OVERFLOW, POOL_SIZE

DEFAULT_SQLITE_PATH = Path("data") / "imperial-glory.sqlite3"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str, setting: str = "TRUSTED_PROXIES") -> list[Network] | None:
    """``TRUSTED_PROXIES`` (or `setting`, ``METRICS_ALLOW``): comma-separated addresses and
    networks (CIDR); ``*`` = any peer (None). A malformed entry is a ValueError naming it."""
    entries = [e.strip() for e in text.split(",") if e.strip()]
    if "*" in entries:
        return None
    nets: list[Network] = []
    for entry in entries:
        try:
            nets.append(ipaddress.ip_network(entry, strict=False))
        except ValueError as exc:
            raise ValueError(f"{setting}: {entry!r} is not an address or network") from exc
    return nets


@lru_cache(maxsize=8)
def trusted_networks(text: str) -> list[Network] | None:
    return parse_networks(text)


def is_trusted(host: str | None, networks: list[Network] | None) -> bool:
    """Whether `host` is one of the trusted proxies (`networks`; None = any)."""
    if networks is None:
        return True
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    return any(address in net for net in networks)


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
    #: this process's name among the instances behind a balancer, sent in every answer's
    #: ``X-IG-Instance`` header, HTTP and websocket (unset: no header); names which one
    #: served a request (docs/deploy.md)
    instance_name: str | None = None
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
    #: on SIGTERM, how long the moves in flight (socket actions, bots' moves, HTTP
    #: requests) are given before the process stops anyway; it exits within this plus a
    #: second or two (app/web/graceful.py; docs/deploy.md, "Rolling restarts")
    shutdown_grace_s: float = Field(default=8.0, gt=0, le=600)
    # Notifications (optional).
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_from: str = "imperial-glory@localhost"
    #: with no SMTP_HOST, a directory where mail is written instead (one .eml file each,
    #: listed at /dev/mail to each signed-in person, her own mails only): the
    #: development sink `make run` turns on (data/mail). Never on a public site
    #: (app/services/mailsink.py); the server warns when it listens beyond loopback.
    mail_sink: str | None = None
    #: /dev/mail lists every mail in the sink, reset links included, to anyone who
    #: opens it (a developer alone on her machine testing password resets)
    mail_sink_show_all: bool = False
    # Webhooks may point at private and loopback addresses (a table on one LAN; tests).
    webhook_allow_private: bool = False
    # Rate limits, "hits/seconds" (defaults in app/services/ratelimit.py): sign-ups and
    # password-reset requests per address, chat lines, actions and new games per user.
    rate_signup: str | None = None
    rate_chat: str | None = None
    rate_actions: str | None = None
    rate_reset: str | None = None
    rate_reset_account: str | None = None
    rate_games: str | None = None
    #: reports per reporter (app/services/moderation.py; default 10 an hour)
    rate_report: str | None = None
    #: the live pace's bank and increment, "START+INCREMENT" seconds (unset: 600+30);
    #: a demo or a browser test shortens it so time can run out while it watches
    pace_live: str | None = None
    #: seconds a person must have been deciding before the table may vote her seat to a
    #: stand-in while she is at the table (a gone person's seat may be voted at once);
    #: a demo or a browser test shortens it (app/services/clocks.py)
    hand_over_after_s: int = 120
    #: the proxies whose X-Forwarded-For names the client (comma-separated addresses or
    #: CIDR networks, "*" = any peer): the per-address limits key on the address they
    #: vouch for. Behind a load balancer, name it here (README, "Running in production").
    trusted_proxies: str = "127.0.0.1"
    #: who may read ``/metrics`` (Prometheus): comma-separated addresses and networks
    #: (CIDR) as TRUSTED_PROXIES, "*" = anyone, empty = nobody (404). The address is the
    #: client's as the trusted proxies name it, so a balancer on loopback does not open
    #: it to the world (docs/deploy.md, "Metrics")
    metrics_allow: str = "127.0.0.1,::1"
    #: HTTP connections (app/web/http_guard.py): an idle keep-alive connection is closed
    #: after this (longer than a proxy's own idle timeout, commonly 60 s) ...
    http_keepalive_s: int = 75
    #: ... a request's head must be whole this long after its first byte (else 408) ...
    http_header_timeout_s: float = 10.0
    #: ... and its body this long after the head (else 408) ...
    http_body_timeout_s: float = 30.0
    #: ... and one address may hold this many connections open at once (else 429)
    http_connections_per_address: int = 64
    #: open websockets per user and per address (one more is closed with 1013)
    ws_per_user: int = 16
    ws_per_address: int = 64
    #: benchmarks and tests only, never on a real site: ``POST /api/bench/accounts``
    #: creates many logged-in accounts at once with one shared password (an argon2
    #: hash computed once; app/web/routes/bench.py). Off (the default), the route does
    #: not exist: 404. bench/ws_fanout.py turns it on for the server it starts.
    bench_accounts: bool = False

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: str) -> str:
        parse_networks(value)  # a malformed entry stops the start, naming it
        return value

    @field_validator("metrics_allow")
    @classmethod
    def _metrics_allow(cls, value: str) -> str:
        parse_networks(value, "METRICS_ALLOW")
        return value

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
