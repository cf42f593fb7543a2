"""nginx in front of two instances over one PostgreSQL: the deploy tests' harness.

Fixtures
- ``start_balanced`` (function): a factory ``start_balanced(env=None, tls=False) ->
  Balanced``. It starts two ``imperial-glory serve`` instances on one fresh PostgreSQL
  database, bound to 127.0.0.2 and 127.0.0.3 on one port (two machines, as far as
  nginx and the app can tell), named ``a`` and ``b`` (INSTANCE_NAME: every answer
  carries ``x-ig-instance``), with TRUSTED_PROXIES=127.0.0.1 (the address nginx
  connects from), then Debian's nginx from ``deploy/nginx.conf`` in front of them on a
  free port (``tests/deploy/balancer.py`` says what is rewritten for the run). `env`
  goes to both instances; ``tls=True`` also serves the site's TLS block on
  ``nginx.tls_url`` with a throwaway certificate. Everything is stopped after the test.
- ``balanced`` (function): ``start_balanced()`` with no options.
- ``sockets`` (function, tests/realtime's): ``sockets(url_or_server, game_id, player)``
  opens a game socket (``tests/realtime/wsclient.py``), closed after the test.

Skipped, with the reason, when nginx is not installed (``make test`` installs it as root).

``Balanced`` has ``url`` (nginx's), ``nginx`` (``Nginx``: ``log_lines()``,
``set_upstreams()``, ``stop()``), ``instances`` (name -> ``LiveServer``, each with its
own ``url`` to attach to it directly, and ``stop()``/``start()``/``restart()`` on the
same address and port, so nginx finds it again), ``instance_of(upstream)`` (the
instance an access-log line names) and ``games_by_instance()``.

Usage::

    def test_x(balanced, new_player):
        alice = new_player(balanced.url)                 # through nginx
        ...
        balanced.instances["a"].stop()                    # one instance down
        for line in balanced.nginx.log_lines(): ...       # who served what
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.realtime.conftest import sockets  # noqa: F401 (the fixture, for these tests)

from .balancer import LogLine, Nginx, free_port, nginx_binary

#: the two instances' addresses: loopback addresses standing for two machines
HOSTS = {"a": "127.0.0.2", "b": "127.0.0.3"}
INSTANCE_HEADER = "x-ig-instance"

NEEDS_NGINX = pytest.mark.skipif(
    nginx_binary() is None,
    reason="nginx is not installed (Debian's nginx package; `make test` installs it as root)",
)


@dataclass
class Balanced:
    """nginx and the instances behind it (see the module's docstring)."""

    nginx: Nginx
    instances: dict[str, Any]  # name -> tests.conftest.LiveServer
    database_url: str

    @property
    def url(self) -> str:
        return self.nginx.url

    def instance_of(self, upstream: str) -> str:
        """The name of the instance at `upstream` (``ADDRESS:PORT``, as nginx logs it)."""
        for name, server in self.instances.items():
            if upstream == f"{server.host}:{server.port}":
                return name
        raise KeyError(f"no instance at {upstream!r}")

    def games_by_instance(self, lines: list[LogLine] | None = None) -> dict[int, dict[str, int]]:
        """game id -> {instance name: requests it served}, from nginx's access log
        (sockets are logged when they close). A request nginx passed to several
        instances in turn (one was down) counts for each."""
        found: dict[int, dict[str, int]] = {}
        for line in self.nginx.log_lines() if lines is None else lines:
            if line.game is None:
                continue
            for upstream in line.upstream.replace(" : ", ", ").split(", "):
                name = self.instance_of(upstream.strip())
                counts = found.setdefault(line.game, {})
                counts[name] = counts.get(name, 0) + 1
        return found


@pytest.fixture
def start_balanced(
    pg_url: str, start_server: Callable[..., Any], tmp_path: Path
) -> Iterator[Callable[..., Balanced]]:
    if nginx_binary() is None:
        pytest.skip("nginx is not installed (Debian's nginx; `make test` installs it as root)")
    started: list[Nginx] = []

    def start(env: dict[str, str] | None = None, tls: bool = False) -> Balanced:
        port = free_port()
        instances = {
            name: start_server(
                pg_url,
                env={"INSTANCE_NAME": name, "TRUSTED_PROXIES": "127.0.0.1", **(env or {})},
                host=host,
                port=port,
            )
            for name, host in HOSTS.items()
        }
        nginx = Nginx(
            tmp_path / f"nginx-{len(started)}",
            [f"{server.host}:{server.port}" for server in instances.values()],
            tls=tls,
        )
        started.append(nginx)
        nginx.start()
        return Balanced(nginx, instances, pg_url)

    try:
        yield start
    finally:
        for nginx in started:
            nginx.stop()


@pytest.fixture
def balanced(start_balanced: Callable[..., Balanced]) -> Balanced:
    return start_balanced()
