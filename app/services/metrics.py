"""What the server counts for ``/metrics`` (Prometheus; docs/deploy.md, "Metrics").

The metrics are defined here, in the services, so that every layer that has something
to count can reach them: the unit of work (moves), the stand-ins, the realtime layer
(sockets, pushes, bot think time) and the web layer (HTTP answers, the pool). The
``/metrics`` route (app/web/metrics.py) reads them out.

With several processes (``imperial-glory serve --workers N``) prometheus-client's
multiprocess mode is on: ``serve`` sets ``PROMETHEUS_MULTIPROC_DIR`` before any worker
starts (prometheus-client picks its value store when it is first imported), each
process writes its values to its own memory-mapped files there, and a scrape of any
process sums them (``exposition``). Gauges are ``livesum``: the sum over the processes
alive now.

Cost: a move is one counter increment and one histogram observation; the children of
the labelled metrics on the hot paths are bound once, here, not looked up per move.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector
from sqlalchemy.orm import Session

from app.store import lobby

#: where the processes of one server write their values (multiprocess mode), if set
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: the statuses a game may have, each shown even when no game has it
STATUSES = ("lobby", "active", "finished", "aborted")

# No ``*_created`` series beside each counter and histogram: they double the exposition
# and Prometheus has no use for them.
disable_created_metrics()

#: a move's source: a person over HTTP or a socket, the bot worker (a bot or a stand-in),
#: a clock that ran out (the seats handed to stand-ins or their prompts' defaults)
SOURCES = ("route", "socket", "bot", "clock")

#: latencies of a request's part: 1 ms .. 10 s
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: a bot's think: 1 ms .. 30 s (a strong level thinks seconds; BOT_THINK_TIMEOUT_S cuts it)
THINK_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

MOVES = Counter(
    "imperial_glory_moves",
    "Moves committed, by source (route, socket, bot, clock); a retried request's replay "
    "is not counted",
    ["source"],
)
MOVE_LATENCY = Histogram(
    "imperial_glory_move_commit_seconds",
    "From a move's arrival (the socket frame read, the HTTP handler entered, the bot "
    "worker's call) to its commit",
    ["source"],
    buckets=LATENCY_BUCKETS,
)
PUSH_LATENCY = Histogram(
    "imperial_glory_push_seconds",
    "From a change's commit in this process to its update handed to every socket of the "
    "game here (one observation per push)",
    buckets=LATENCY_BUCKETS,
)
SOCKETS = Gauge(
    "imperial_glory_sockets_open",
    "Game websockets open now",
    multiprocess_mode="livesum",
)
BOT_THINK = Histogram(
    "imperial_glory_bot_think_seconds",
    "A bot's or a stand-in's think, by level",
    ["level"],
    buckets=THINK_BUCKETS,
)
STANDINS = Counter(
    "imperial_glory_standins_started",
    "Stand-ins started for a person's seat, by why (time, away, vote, gone, deleted)",
    ["why"],
)
HTTP = Counter(
    "imperial_glory_http_responses",
    "HTTP responses, by method, route template (never the raw path) and status",
    ["method", "route", "status"],
)
POOL_IN_USE = Gauge(
    "imperial_glory_db_pool_in_use",
    "Database connections checked out of the pool (sampled each second and at a scrape)",
    multiprocess_mode="livesum",
)

_MOVES = {source: MOVES.labels(source) for source in SOURCES}
_MOVE_LATENCY = {source: MOVE_LATENCY.labels(source) for source in SOURCES}


def moved(source: str, since: float) -> None:
    """One move of `source` committed; `since`: when it arrived (``time.perf_counter``)."""
    _MOVES[source].inc()
    _MOVE_LATENCY[source].observe(time.perf_counter() - since)


def pushed(committed_at: float) -> None:
    """A change committed at `committed_at` (``time.time``, as the hub stamps it) was
    handed to its sockets just now."""
    PUSH_LATENCY.observe(max(0.0, time.time() - committed_at))


def standin_started(why: str) -> None:
    STANDINS.labels(why).inc()


def thought(level: str, seconds: float) -> None:
    BOT_THINK.labels(level).observe(seconds)


# --------------------------------------------------------------------------- read out


class Games(Collector):
    """``imperial_glory_games{status}`` read from the database at each scrape: every
    process sees the same rows, so one process answers for all (``active`` = the live
    games)."""

    def __init__(self, count: Callable[[], Mapping[str, int]]) -> None:
        self.count = count

    def collect(self) -> Iterable[Metric]:
        family = GaugeMetricFamily(
            "imperial_glory_games", "Games by status (lobby, active, finished…)", labels=["status"]
        )
        counts = {**dict.fromkeys(STATUSES, 0), **self.count()}
        for status, n in sorted(counts.items()):
            family.add_metric([status], n)
        yield family


def games_by_status(db: Session) -> dict[str, int]:
    """How many games there are in each status (``Games``)."""
    return lobby.count_by_status(db)


def multiprocess_dir() -> str | None:
    """The multiprocess directory this process writes to, or None (one process)."""
    return os.environ.get(MULTIPROC_ENV) or None


def exposition(extra: Iterable[Collector] = ()) -> bytes:
    """The text format of every metric: this process's (one process) or the sum over
    every process of the server (multiprocess mode), then `extra`'s."""
    if multiprocess_dir() is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        head = generate_latest(registry)
    else:
        head = generate_latest(REGISTRY)
    tail = CollectorRegistry(auto_describe=False)
    for collector in extra:
        tail.register(collector)
    return head + generate_latest(tail)
