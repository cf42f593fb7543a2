"""`imperial-glory serve [--host H] [--port P] [--workers N]` — uvicorn on the app factory.

``--workers N`` (N > 1, PostgreSQL only): N processes on the one port, each game's
sockets and requests on one of them (app/web/workers.py).

SIGTERM (or Ctrl-C) stops it gracefully: no new connections, the moves in flight
finished, sockets closed with 1012 so that pages reconnect (app/web/graceful.py).

PORT (environment) overrides the default port; an explicit --port wins over both.
LOG_FORMAT=json (or --log-format json) writes structured logs, one JSON object a line.

With the development mail sink on (MAIL_SINK, no SMTP_HOST) and a host beyond loopback
(``--host 0.0.0.0``, a LAN address, a name), it logs a warning at start: /dev/mail is
then reachable from other machines (app/services/mailsink.py).
"""

from __future__ import annotations

import argparse
import ctypes
import ipaddress
import logging
import logging.config
import os
import resource
from typing import Any

import uvicorn

from app.config import Settings, get_settings
from app.store.cli import ensure_sqlite_dir
from app.web import graceful, workers
from app.web.logs import log_config
from app.web.metrics_dir import prepare as prepare_metrics_dir

log = logging.getLogger("app.web.serve")

#: the response header naming the instance that answered (INSTANCE_NAME), behind a balancer
INSTANCE_HEADER = "x-ig-instance"


def is_loopback(host: str) -> bool:
    """Whether `host` only listens on this machine: ``localhost`` or a loopback
    address. Anything else (``0.0.0.0``, ``::``, a LAN address, another name) may be
    reached from elsewhere."""
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def mail_sink_warning(settings: Settings, host: str) -> str | None:
    """The start-up warning when the development mail sink is on and `host` is not
    loopback, else None."""
    if not settings.mail_sink_active or is_loopback(host):
        return None
    shown = (
        "every mail in it, password-reset links included, to anyone (MAIL_SINK_SHOW_ALL)"
        if settings.mail_sink_show_all
        else "each signed-in person her own mails"
    )
    return (
        f"MAIL_SINK is on ({settings.mail_sink}) and the server listens on {host}, not on "
        f"loopback only: /dev/mail shows {shown} to other machines. It is a development "
        f"tool: on a public site set SMTP_HOST and unset MAIL_SINK."
    )


def raise_open_files() -> int:
    """Lift this process's soft limit of open files to its hard limit: every socket is a
    file, and a soft limit of 1,024 (a common default) would refuse sockets long before
    a thousand live games' six each. Returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # a platform that will not: keep what we have
            pass
    return soft


#: WS_PROTOCOL -> the protocol class serve runs for it: uvicorn's sans-I/O one with
#: lighter per-socket parts (app/web/ws_protocol.py); others are uvicorn's own
WS_PROTOCOLS = {"websockets-sansio": "app.web.ws_protocol:LeanWebSocketProtocol"}

#: glibc's malloc arenas a serve process keeps at most, unless MALLOC_ARENA_MAX says
#: otherwise (as the Dockerfile sets it)
MALLOC_ARENAS = 2
#: mallopt's parameter number for the arena limit (glibc's malloc.h)
_M_ARENA_MAX = -8


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """At most `arenas` glibc malloc arenas in this process and its workers.

    glibc gives each thread that allocates while the others hold theirs an arena of its
    own, up to eight a core, and keeps what each grew to: the server's threads (the
    thread pool's sync routes and socket actions, the hub's reloads, the bots) made the
    resident set tens of KB a live game larger than the heap (docs/performance.md,
    "Memory"). Set before the threads start: ``mallopt`` for this process, the
    environment for the workers it starts (glibc reads MALLOC_ARENA_MAX when a process
    starts). A MALLOC_ARENA_MAX already set is left as it is (glibc applied it); where
    malloc is not glibc's, nothing happens. Returns whether the limit was set here."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    os.environ["MALLOC_ARENA_MAX"] = str(arenas)
    try:
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError):  # no mallopt here (not glibc)
        return False


def main(argv: list[str]) -> int:
    limit_malloc_arenas()  # first: before any thread allocates
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="imperial-glory serve", description=__doc__)
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", settings.port)))
    parser.add_argument(
        "--reload", action="store_true", help="reload on code changes (development)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes, each game on one of them (PostgreSQL only; app/web/workers.py)",
    )
    parser.add_argument(
        "--bench-routing",
        action="store_true",
        help="benchmarks and tests only: ?ig_worker=K picks a connection's worker",
    )
    parser.add_argument(
        "--log-format",
        choices=["text", "json"],
        default=os.environ.get("LOG_FORMAT", "text"),
        help="json: one JSON object per line (default: LOG_FORMAT or text)",
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be 1 or more")
    if args.workers > 1 and settings.is_sqlite:
        parser.error(
            "--workers needs PostgreSQL: on SQLite the processes would not see each "
            "other's moves (DATABASE_URL=postgresql+psycopg://…), or run one process"
        )
    if args.workers > 1 and args.reload:
        parser.error("--reload runs one process: leave out --workers")

    ensure_sqlite_dir(settings.database_url)
    prepare_metrics_dir(args.workers)  # before any worker imports prometheus-client
    raise_open_files()  # inherited by the workers
    if (warning := mail_sink_warning(settings, args.host)) is not None:
        logging.config.dictConfig(log_config(args.log_format, settings.log_level))
        log.warning(warning)
    options: dict[str, Any] = {
        "app": "app.web.app:create_app",
        "factory": True,
        "host": args.host,
        "port": args.port,
        "log_level": settings.log_level,
        "log_config": log_config(args.log_format, settings.log_level),
        # The client's address: X-Forwarded-For, from the trusted proxies only.
        "proxy_headers": True,
        "forwarded_allow_ips": settings.trusted_proxies,
        # Head and body timeouts, connections per address (app/web/http_guard.py).
        "http": "app.web.http_guard:GuardedHttpProtocol",
        "timeout_keep_alive": settings.http_keepalive_s,
        # permessage-deflate keeps a zlib window per socket (~250 KB each): off unless
        # asked for (settings.ws_compression), see docs/realtime.md.
        "ws_per_message_deflate": settings.ws_compression,
        "ws": WS_PROTOCOLS.get(settings.ws_protocol, settings.ws_protocol),
        # A socket's liveness is the app's heartbeat (app/realtime/ws.py: a ping every
        # WS_HEARTBEAT_S, closed with 4408 when nothing was heard for two): uvicorn's
        # own protocol pings would be a second timer on every socket saying the same.
        "ws_ping_interval": None,
        # SIGTERM: the app is drained first, then HTTP requests in flight get at most
        # this long (app/web/graceful.py)
        "timeout_graceful_shutdown": max(1, round(settings.shutdown_grace_s)),
    }
    if settings.instance_name:
        # uvicorn's default headers: on every answer, HTTP and websocket, at no cost
        options["headers"] = [(INSTANCE_HEADER, settings.instance_name)]
    if args.workers > 1:
        return workers.run(
            options, args.workers, override=args.bench_routing, grace_s=settings.shutdown_grace_s
        )
    if args.reload:
        uvicorn.run(**options, reload=True)
        return 0
    server = graceful.GracefulServer(uvicorn.Config(**options), settings.shutdown_grace_s)
    server.run()
    return 0 if server.started else 3  # uvicorn's status for a start that failed
