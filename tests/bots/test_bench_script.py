"""bench/engine.py and bench/ws_fanout.py run and print their figures (their values are
the machine's business)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_engine_bench_prints_its_figures_as_json() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "bench/engine.py",
            "--scenario",
            "teaching",
            "--games",
            "1",
            "--repeats",
            "1",
            "--samples",
            "10",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    figures = result["scenarios"]["teaching"]
    for key in ("games_per_s", "us_per_apply", "us_per_legal_actions", "us_per_view"):
        assert figures[key] > 0, key
    assert figures["errors"] == 0
    assert result["games_per_s"]["teaching"] == figures["games_per_s"]


@pytest.mark.postgres
def test_fanout_bench_seats_a_bench_account_a_seat_and_plays() -> None:
    """bench/ws_fanout.py gets its accounts from the server's bench-only route (which it
    turns on for the server it starts), one a seat, and plays every game to the end."""
    done = subprocess.run(
        [
            sys.executable,
            "bench/ws_fanout.py",
            "--games",
            "2",
            "--moves",
            "2",
            "--think",
            "0",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["setup_accounts"] == "bench_route"
    assert result["sockets"] == 12
    assert result["actions"] == 4
    assert result["lost"] == result["action_errors"] == result["ack_timeouts"] == 0
    parts = result["setup_accounts_s"] + result["setup_games_s"] + result["setup_sockets_s"]
    assert parts <= result["setup_s"] + 0.05
