"""`imperial-glory serve` keeps glibc to two malloc arenas (``limit_malloc_arenas``):
each thread that allocates would otherwise get an arena of its own, up to eight a core,
and the process keeps what each grew to. Its workers inherit the limit through
MALLOC_ARENA_MAX; one already set is left as it is.

Each case runs in a fresh interpreter: an arena limit cannot be undone, and the arenas
are counted by glibc's own ``malloc_info``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Eight threads alive at once, each allocating beyond pymalloc's small objects (glibc
# then gives each a new arena, up to the limit); then the arenas malloc_info lists.
PROBE = r"""
import ctypes, os, re, sys, tempfile, threading
if sys.argv[1] == "serve":
    from app.web.serve import limit_malloc_arenas
    print("set", limit_malloc_arenas())
keep, barrier = [], threading.Barrier(8)
def work():
    keep.append([bytearray(4096) for _ in range(50)])
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile() as f:
    fp = ctypes.c_void_p(libc.fopen(f.name.encode(), b"w"))
    libc.malloc_info(0, fp)
    libc.fclose(fp)
    print("arenas", len(re.findall(r"<heap nr=", open(f.name).read())))
import subprocess
print("child", subprocess.run(
    [sys.executable, "-c", "import os; print(os.environ.get('MALLOC_ARENA_MAX'))"],
    capture_output=True, text=True, check=True).stdout.strip())
"""


def probe(mode: str, arena_max: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    if arena_max is not None:
        env["MALLOC_ARENA_MAX"] = arena_max
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
    reason="glibc's malloc only",
)


@glibc
def test_serve_keeps_the_process_to_two_arenas_and_its_workers_inherit_it() -> None:
    unlimited = probe("plain")
    assert int(unlimited["arenas"]) > 2  # what the limit is for: a thread, an arena
    assert unlimited["child"] == "None"
    limited = probe("serve")
    assert limited["set"] == "True"
    assert int(limited["arenas"]) <= 2
    assert limited["child"] == "2"  # a worker started by serve


@glibc
def test_a_malloc_arena_max_already_set_is_left_alone() -> None:
    given = probe("serve", arena_max="4")
    assert given["set"] == "False"
    assert given["child"] == "4"
    assert 2 < int(given["arenas"]) <= 4  # glibc applied the environment's own limit
