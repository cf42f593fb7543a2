"""Shared fixtures: real databases and real servers.

Databases
- ``pg_server_url`` (session): ``postgresql+psycopg://user@host:port`` of a PostgreSQL
  server — the one at 127.0.0.1:5432 (user postgres, trust) when it answers, else a
  throwaway cluster started with initdb/pg_ctl in a temp dir on a free port.
- ``pg_url`` (function): a fresh, EMPTY PostgreSQL database for this test
  (``…/ig_test_xxxxxxxx``), dropped afterwards.
- ``sqlite_url`` (function): ``sqlite:///<tmp_path>/test.sqlite3``, a real empty file.
- ``db_url`` (function, parametrised ``sqlite`` / ``postgresql``): an empty database.
- ``migrated_url`` (function, parametrised like ``db_url``): the same, migrated to head.
- ``db`` (function): an SQLAlchemy ``Session`` on ``migrated_url`` (rolled back and
  closed after the test).

Servers (real uvicorn subprocesses over real HTTP; ``imperial-glory db upgrade`` first)
- ``start_server`` (function): a factory ``start_server(database_url, env=None, args=None,
  host="127.0.0.1", port=0) -> LiveServer`` (port 0: a free one); every server it starts
  is stopped at the end of the test.
- ``live_server`` (module): one server on a fresh SQLite file, shared by the module.
- ``live_server_pg`` (module): one server on a fresh PostgreSQL database.
- ``live_server_any`` (module, parametrised ``sqlite`` / ``postgresql``).

``LiveServer`` has ``url`` (``http://HOST:PORT``; ``host`` is 127.0.0.1 unless given),
``port``, ``database_url``, ``log_path``, ``stop()``, ``start()``, ``restart()`` and ``log()``.

Clients
- ``new_player(server, name=None, password=...) -> Player``: a signed-up user with an
  ``httpx.Client`` holding its session cookie and CSRF header (``tests/platform`` shows
  the API it wraps). Usernames are unique per call.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PG_DEFAULT = ("127.0.0.1", 5432, "postgres")


# --------------------------------------------------------------------------- helpers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _pg_connect(url: str, dbname: str = "postgres") -> Any:
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    return psycopg.connect(f"{plain}/{dbname}", autocommit=True, connect_timeout=3)


def _pg_answers(url: str) -> bool:
    try:
        with _pg_connect(url, "postgres"):
            return True
    except Exception:
        return False


def _find_pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    return None


class ThrowawayCluster:
    """A PostgreSQL cluster in a temp dir (initdb + pg_ctl), for machines without one."""

    def __init__(self) -> None:
        initdb, pg_ctl = _find_pg_bin("initdb"), _find_pg_bin("pg_ctl")
        if not initdb or not pg_ctl:
            pytest.skip("no PostgreSQL server answers and initdb/pg_ctl are not installed")
        self.pg_ctl = pg_ctl
        self.dir = Path(tempfile.mkdtemp(prefix="ig-pg-"))
        self.port = free_port()
        self.user: str | None = None
        if os.geteuid() == 0:  # initdb refuses to run as root
            import pwd

            for candidate in ("postgres", "nobody"):
                with contextlib.suppress(KeyError):
                    pwd.getpwnam(candidate)
                    self.user = candidate
                    break
            os.chmod(self.dir, 0o777)
        data = self.dir / "data"
        self._run([initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"])
        self._run(
            [
                pg_ctl,
                "-D",
                str(data),
                "-l",
                str(self.dir / "log"),
                "-o",
                f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
                "-w",
                "start",
            ]
        )
        self.data = data

    def _run(self, cmd: list[str]) -> None:
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}"

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run([self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"])
        shutil.rmtree(self.dir, ignore_errors=True)


def create_pg_database(server_url: str) -> str:
    name = f"ig_test_{uuid.uuid4().hex[:10]}"
    with _pg_connect(server_url) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url}/{name}"


def drop_pg_database(database_url: str) -> None:
    server_url, name = database_url.rsplit("/", 1)
    with contextlib.suppress(Exception), _pg_connect(server_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def migrate(database_url: str) -> None:
    """``imperial-glory db upgrade`` in-process."""
    from app.store.cli import upgrade

    upgrade(database_url)


# --------------------------------------------------------------------------- databases


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    host, port, user = PG_DEFAULT
    url = os.environ.get("TEST_PG_SERVER_URL", f"postgresql+psycopg://{user}@{host}:{port}")
    if _pg_answers(url):
        yield url
        return
    cluster = ThrowawayCluster()
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_server_url: str) -> Iterator[str]:
    url = create_pg_database(pg_server_url)
    try:
        yield url
    finally:
        drop_pg_database(url)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'test.sqlite3'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    server = request.getfixturevalue("pg_server_url")
    url = create_pg_database(server)
    try:
        yield url
    finally:
        drop_pg_database(url)


@pytest.fixture
def migrated_url(db_url: str) -> str:
    migrate(db_url)
    return db_url


@pytest.fixture
def db(migrated_url: str) -> Iterator[Any]:
    from app.store.db import make_engine, make_sessionmaker

    engine = make_engine(migrated_url)
    session = make_sessionmaker(engine)()
    try:
        yield session
    finally:
        session.rollback()
        session.close()
        engine.dispose()


# --------------------------------------------------------------------------- servers


#: Test servers sign up many players from one address and play whole games fast:
#: the production rate limits (app/services/ratelimit.py) are lifted unless a test sets
#: its own (tests/platform/test_security.py does).
RELAXED_LIMITS = {
    "RATE_SIGNUP": "100000/60",
    "RATE_CHAT": "100000/60",
    "RATE_ACTIONS": "100000/60",
    "RATE_RESET": "100000/60",
    "RATE_RESET_ACCOUNT": "100000/60",
    "RATE_GAMES": "100000/60",
}


@dataclass
class LiveServer:
    """A real ``imperial-glory serve`` subprocess."""

    database_url: str
    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    #: more arguments to ``serve`` (``--workers 2``)
    args: list[str] = field(default_factory=list)
    #: the address it listens on (another loopback address stands for another machine)
    host: str = "127.0.0.1"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __str__(self) -> str:
        return self.url

    @property
    def log_path(self) -> Path:
        return self.workdir / f"server-{self.host}-{self.port}.log"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def start(self, timeout: float = 30.0) -> None:
        if not self.port:
            self.port = free_port()
        env = {**os.environ, **RELAXED_LIMITS, **self.env, "DATABASE_URL": self.database_url}
        env.pop("PORT", None)
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli",
                    "serve",
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                    *self.args,
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not answer /healthz within {timeout}s:\n{self.log()}")

    def stop(self, kill: bool = False) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL if kill else signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def restart(self, kill: bool = False) -> None:
        """Stop (SIGTERM, or SIGKILL with ``kill=True``) and start again on the same port."""
        self.stop(kill=kill)
        self.start()


ServerFactory = Callable[..., LiveServer]


@contextlib.contextmanager
def _servers(workdir: Path) -> Iterator[ServerFactory]:
    started: list[LiveServer] = []

    def start(
        database_url: str,
        env: dict[str, str] | None = None,
        args: list[str] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> LiveServer:
        migrate(database_url)
        server = LiveServer(
            database_url=database_url,
            workdir=workdir,
            env=dict(env or {}),
            args=list(args or []),
            host=host,
            port=port,
        )
        started.append(server)
        server.start()
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[ServerFactory]:
    with _servers(tmp_path) as factory:
        yield factory


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    workdir = tmp_path_factory.mktemp("live")
    with _servers(workdir) as factory:
        yield factory(f"sqlite:///{workdir / 'live.sqlite3'}")


@pytest.fixture(scope="module")
def live_server_pg(
    tmp_path_factory: pytest.TempPathFactory, pg_server_url: str
) -> Iterator[LiveServer]:
    workdir = tmp_path_factory.mktemp("live-pg")
    url = create_pg_database(pg_server_url)
    try:
        with _servers(workdir) as factory:
            yield factory(url)
    finally:
        drop_pg_database(url)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live_server_any(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    workdir = tmp_path_factory.mktemp(f"live-{request.param}")
    if request.param == "sqlite":
        with _servers(workdir) as factory:
            yield factory(f"sqlite:///{workdir / 'live.sqlite3'}")
        return
    server_url = request.getfixturevalue("pg_server_url")
    url = create_pg_database(server_url)
    try:
        with _servers(workdir) as factory:
            yield factory(url)
    finally:
        drop_pg_database(url)


# --------------------------------------------------------------------------- clients


class Player:
    """A signed-up user driving the JSON API over real HTTP (see docs/api.md)."""

    def __init__(self, base_url: str, username: str, password: str) -> None:
        self.base_url = base_url
        self.username = username
        self.password = password
        self.http = httpx.Client(base_url=base_url, timeout=30)
        self.csrf = ""
        self.user_id = 0

    # accounts
    def signup(self) -> httpx.Response:
        r = self.http.post(
            "/api/signup", json={"username": self.username, "password": self.password}
        )
        self._remember(r)
        return r

    def login(self) -> httpx.Response:
        r = self.http.post(
            "/api/login", json={"username": self.username, "password": self.password}
        )
        self._remember(r)
        return r

    def _remember(self, r: httpx.Response) -> None:
        if r.status_code == 200:
            body = r.json()
            self.csrf = body["csrf_token"]
            self.user_id = body["user"]["id"]
            self.http.headers["X-CSRF-Token"] = self.csrf

    @property
    def session_cookie(self) -> str | None:
        return self.http.cookies.get("ig_session")

    # games
    def create_game(self, **body: Any) -> dict[str, Any]:
        body.setdefault("seats", [{"kind": "human"}, {"kind": "bot", "bot_level": "heuristic"}])
        r = self.http.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        result: dict[str, Any] = r.json()
        return result

    def join(
        self, game_id: int, power: str | None = None, seat: int | None = None
    ) -> httpx.Response:
        return self.http.post(f"/api/games/{game_id}/join", json={"power": power, "seat": seat})

    def start(self, game_id: int) -> httpx.Response:
        return self.http.post(f"/api/games/{game_id}/start")

    def view(self, game_id: int) -> dict[str, Any]:
        r = self.http.get(f"/api/games/{game_id}/view")
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    def act(
        self,
        game_id: int,
        action: dict[str, Any],
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> httpx.Response:
        return self.http.post(
            f"/api/games/{game_id}/actions",
            json={
                "action": action,
                "expected_version": expected_version,
                "idempotency_key": idempotency_key or uuid.uuid4().hex,
            },
        )

    def close(self) -> None:
        self.http.close()


@pytest.fixture
def new_player() -> Iterator[Callable[..., Player]]:
    players: list[Player] = []

    def make(
        server: LiveServer | str, name: str | None = None, password: str = "correct horse 1"
    ) -> Player:
        base = server.url if isinstance(server, LiveServer) else str(server)
        player = Player(base, name or f"p{uuid.uuid4().hex[:10]}", password)
        r = player.signup()
        assert r.status_code == 200, r.text
        players.append(player)
        return player

    yield make
    for player in players:
        player.close()
