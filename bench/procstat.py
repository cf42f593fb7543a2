"""CPU figures of the benches, from Linux /proc: a process's CPU seconds and the whole
machine's busy ticks, so that a bench can say whether the server or the machine was the
limit (the bench's client, PostgreSQL and the server share the same cores)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def family(pid: int) -> list[int]:
    """`pid` and its descendants (a ``serve --workers`` parent and its workers)."""
    found = [pid]
    for each in found:
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{each}/task").iterdir():
                found += [int(c) for c in (task / "children").read_text().split()]
    return found


def family_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of `pid` and its live descendants."""
    total = 0.0
    for each in family(pid):
        with contextlib.suppress(OSError):
            total += cpu_seconds(each)
    return total


def machine_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores since boot (Linux /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def named_cpu_seconds(name: str) -> float:
    """User + system CPU seconds of every live process called `name` (its ``comm``):
    PostgreSQL's server and backends, which share the bench's cores. A process that
    started or ended between two readings is counted only for what it shows then."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if (entry / "comm").read_text().strip() == name:
                total += cpu_seconds(int(entry.name))
    return total
