"""`imperial-glory serve` lifts its soft limit of open files to the hard one (every socket
is a file: a default soft limit of 1,024 refuses sockets long before 1,000 live games'
six each), and its workers inherit it."""

from __future__ import annotations

import resource

from app.web.serve import raise_open_files


def test_serve_lifts_the_soft_limit_of_open_files_to_the_hard_one() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = 256 if hard == resource.RLIM_INFINITY else min(256, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        got = raise_open_files()
        now, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        assert got == now > low
        if hard != resource.RLIM_INFINITY:
            assert now == hard
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, now), hard))
