"""`imperial-glory serve [--host H] [--port P]` — uvicorn on the app factory.

PORT (environment) overrides the default port; an explicit --port wins over both.
LOG_FORMAT=json (or --log-format json) writes structured logs, one JSON object a line.
"""

from __future__ import annotations

import argparse
import os

import uvicorn

from app.config import get_settings
from app.web.http_guard import GuardedHttpProtocol


def main(argv: list[str]) -> int:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="imperial-glory serve", description=__doc__)
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", settings.port)))
    parser.add_argument(
        "--reload", action="store_true", help="reload on code changes (development)"
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--log-format",
        choices=["text", "json"],
        default=os.environ.get("LOG_FORMAT", "text"),
        help="json: one JSON object per line (default: LOG_FORMAT or text)",
    )
    args = parser.parse_args(argv)
    from app.store.cli import ensure_sqlite_dir
    from app.web.logs import log_config

    ensure_sqlite_dir(settings.database_url)
    uvicorn.run(
        "app.web.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        reload=args.reload,
        workers=args.workers,
        log_level=settings.log_level,
        log_config=log_config(args.log_format, settings.log_level),
        # The client's address: X-Forwarded-For, from the trusted proxies only.
        proxy_headers=True,
        forwarded_allow_ips=settings.trusted_proxies,
        # Head and body timeouts, connections per address (app/web/http_guard.py).
        http=GuardedHttpProtocol,
        timeout_keep_alive=settings.http_keepalive_s,
        # permessage-deflate keeps a zlib window per socket (~250 KB each): off unless
        # asked for (settings.ws_compression), see docs/realtime.md.
        ws_per_message_deflate=settings.ws_compression,
        ws=settings.ws_protocol,
    )
    return 0
