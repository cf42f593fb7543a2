"""The directory where the processes of ``imperial-glory serve --workers N`` write their
metrics (prometheus-client's multiprocess mode; docs/deploy.md, "Metrics").

``serve`` sets it up before any worker starts, since prometheus-client picks its value
store when it is first imported: ``PROMETHEUS_MULTIPROC_DIR`` when the host names one
(kept after the server stops), else a fresh temporary directory (removed when it
stops). Either is emptied at start: files of a server run before would be summed into
this one's. When a worker exits, the parent marks it dead, so that its live gauges
(sockets open, the pool) leave the sums; its counters stay, as a Prometheus counter
must never go down.

This module never imports the metrics themselves (``app.services.metrics``): the parent
process only prepares the directory and never counts anything.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile

from prometheus_client import multiprocess

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def clean(path: str) -> None:
    """Create `path` if missing and remove the value files (``*.db``) in it."""
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(path, name))


def prepare(workers: int) -> str | None:
    """The multiprocess directory for a server of `workers` processes, set in this
    process's environment (which the workers inherit) and emptied; a temporary one is
    removed when this process exits. None for one process and no
    ``PROMETHEUS_MULTIPROC_DIR``: its metrics live in its own memory."""
    given = os.environ.get(MULTIPROC_ENV) or None
    if workers <= 1 and given is None:
        return None
    path = given or tempfile.mkdtemp(prefix="ig-metrics-")
    clean(path)
    os.environ[MULTIPROC_ENV] = path
    if given is None:
        atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def process_gone(pid: int) -> None:
    """Worker `pid` exited: its live gauges leave the sums (its counters stay)."""
    if os.environ.get(MULTIPROC_ENV):
        with contextlib.suppress(OSError):
            multiprocess.mark_process_dead(pid)
