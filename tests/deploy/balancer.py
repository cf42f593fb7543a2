"""Debian's nginx run from ``deploy/nginx.conf``, for the tests and the bench.

No pytest here: bench/ws_fanout.py ``--nginx N`` imports it too. The site file is used
as it is, three things alone rewritten for a run on this machine (``render_site``):
the ``listen`` lines (a free port on 127.0.0.1), the access log's directory, and, with
``tls=True``, the commented TLS lines uncommented with a throwaway self-signed
certificate (a second free port). A small main configuration around it (``daemon off``,
pid, temp paths and logs in a temp directory) includes it inside ``http {}``, as
Debian's /etc/nginx/nginx.conf includes sites-enabled/; the upstreams file sits where
the site's relative ``include imperial-glory/upstreams.conf`` finds it (the directory of
the main configuration, nginx's configuration prefix).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx.conf"
LOG_DIR = "/var/log/nginx/"


def nginx_binary() -> str | None:
    """Debian's nginx (/usr/sbin is not on every PATH), or None when not installed."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def render_site(
    site: str, port: int, log_dir: Path, tls_port: int | None = None, tls_dir: Path | None = None
) -> str:
    """`site` (deploy/nginx.conf's text) for a run on this machine; a ValueError when a
    line it rewrites is not there, so that the file and its test cannot drift apart."""
    listens = re.findall(r"^    listen (?:\[::\]:)?80;\n", site, flags=re.M)
    if len(listens) != 2:
        raise ValueError("deploy/nginx.conf: expected `listen 80;` and `listen [::]:80;`")
    out = re.sub(r"^    listen \[::\]:80;\n", "", site, flags=re.M)
    out = out.replace("    listen 80;\n", f"    listen 127.0.0.1:{port};\n")
    if out.count(LOG_DIR) != 1:
        raise ValueError(f"deploy/nginx.conf: expected one access_log under {LOG_DIR}")
    out = out.replace(LOG_DIR, f"{log_dir}/")
    if tls_port is not None:
        assert tls_dir is not None
        tls_lines = re.findall(r"^    # ((?:listen|ssl_|add_header|if \(\$scheme).*)$", out, re.M)
        if len(tls_lines) < 6:
            raise ValueError("deploy/nginx.conf: the commented TLS lines are not there")
        for line in tls_lines:
            live = line
            if line.startswith("listen [::]"):
                live = ""
            elif line.startswith("listen 443"):
                live = f"listen 127.0.0.1:{tls_port} ssl http2;"
            elif line.startswith("ssl_certificate_key"):
                live = f"ssl_certificate_key {tls_dir}/key.pem;"
            elif line.startswith("ssl_certificate"):
                live = f"ssl_certificate     {tls_dir}/cert.pem;"
            elif line.startswith("if ($scheme"):
                live = ""  # plain HTTP stays served here: the other tests use it
            out = out.replace(f"    # {line}\n", f"    {live}\n" if live else "")
    return out


def self_signed(directory: Path) -> None:
    """A throwaway certificate for 127.0.0.1 (cert.pem, key.pem) made with openssl."""
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(directory / "key.pem"),
            "-out",
            str(directory / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )


@dataclass
class LogLine:
    """One line of the site's access log (its ``imperial_glory`` format)."""

    method: str
    path: str
    status: int
    game: int | None
    #: the instance (``ADDRESS:PORT``) the request went to; several when nginx retried
    upstream: str


_LOG = re.compile(
    r'^\S+ \[[^\]]+\] "(?P<method>[A-Z]+) (?P<path>\S+) [^"]*" (?P<status>\d{3}) \d+ \S+ '
    r"game=(?P<game>\d*) upstream=(?P<upstream>.*)$"
)


class Nginx:
    """nginx in the foreground in `workdir`, in front of `upstreams` (``ADDRESS:PORT``).

    ``url`` (and ``tls_url`` with ``tls=True``), ``start()``, ``stop()``,
    ``set_upstreams()`` (rewrites the upstreams file and reloads), ``log_lines()``."""

    def __init__(self, workdir: Path, upstreams: list[str], tls: bool = False) -> None:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
        self.binary = binary
        self.workdir = workdir
        self.upstreams = list(upstreams)
        self.port = free_port()
        self.tls_port = free_port() if tls else None
        self.proc: subprocess.Popen[bytes] | None = None
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "imperial-glory").mkdir(exist_ok=True)
        if tls:
            self_signed(workdir)
        site = render_site(
            SITE.read_text(), self.port, workdir, self.tls_port, workdir if tls else None
        )
        (workdir / "site.conf").write_text(site)
        self._write_upstreams()
        temp = "\n".join(
            f"    {kind}_temp_path {workdir}/temp-{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        # As root, nginx's workers would run as `nobody`, who cannot enter pytest's
        # private temp directories to buffer a large answer: they stay root here.
        user = "user root;\n" if os.geteuid() == 0 else ""
        (workdir / "nginx.conf").write_text(
            f"daemon off;\n{user}worker_processes 1;\nworker_rlimit_nofile 65536;\n"
            f"pid {workdir}/nginx.pid;\nerror_log {workdir}/error.log info;\n"
            "events { worker_connections 16384; }\n"
            f"http {{\n{temp}\n    include {workdir}/site.conf;\n}}\n"
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        assert self.tls_port is not None
        return f"https://127.0.0.1:{self.tls_port}"

    @property
    def access_log(self) -> Path:
        return self.workdir / "imperial-glory.access.log"

    def _write_upstreams(self) -> None:
        lines = "".join(f"server {each};\n" for each in self.upstreams)
        (self.workdir / "imperial-glory" / "upstreams.conf").write_text(lines)

    def _command(self, *more: str) -> list[str]:
        return [self.binary, "-p", str(self.workdir), "-c", str(self.workdir / "nginx.conf"), *more]

    def check(self) -> None:
        """``nginx -t``: the rendered configuration is valid (its complaint otherwise)."""
        done = subprocess.run(self._command("-t"), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"nginx -t failed:\n{done.stderr}")

    def start(self, timeout: float = 15.0) -> None:
        self.check()
        log = (self.workdir / "nginx.out").open("ab")
        self.proc = subprocess.Popen(
            self._command(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.proc.returncode}: {self.errors()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1),
            ):
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen within {timeout}s: {self.errors()}")

    def set_upstreams(self, upstreams: list[str]) -> None:
        """Another list of instances, taken by a graceful reload (SIGHUP)."""
        self.upstreams = list(upstreams)
        self._write_upstreams()
        self.check()
        assert self.proc is not None
        self.proc.send_signal(signal.SIGHUP)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)  # fast shutdown: sockets closed at once
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    @property
    def pids(self) -> list[int]:
        """The master's pid (its workers are its children), or none when stopped."""
        return [self.proc.pid] if self.proc is not None else []

    def errors(self) -> str:
        out = ""
        for name in ("nginx.out", "error.log"):
            with contextlib.suppress(FileNotFoundError):
                out += (self.workdir / name).read_text(errors="replace")[-4000:]
        return out

    def log_lines(self) -> list[LogLine]:
        """Every request logged so far (a socket is logged when it closes)."""
        found: list[LogLine] = []
        with contextlib.suppress(FileNotFoundError):
            for text in self.access_log.read_text().splitlines():
                m = _LOG.match(text)
                if m is None:
                    raise ValueError(f"an access log line in no known format: {text!r}")
                found.append(
                    LogLine(
                        m["method"],
                        m["path"],
                        int(m["status"]),
                        int(m["game"]) if m["game"] else None,
                        m["upstream"],
                    )
                )
        return found
