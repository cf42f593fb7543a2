"""bench/bots.py runs and prints its figures (their values are the machine's business)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bots_bench_prints_think_times_and_search_speed() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "bench/bots.py",
            "--scenario",
            "teaching",
            "--decisions",
            "3",
            "--iterations",
            "2",
            "--json",
        ],  # fmt: skip
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["decisions"] == 3
    assert set(result["levels"]) == {"novice", "standard", "strong"}
    for row in result["levels"].values():
        assert 0 <= row["p50_s"] <= row["p99_s"] <= row["max_s"]
    assert result["search"]["decisions_searched"] >= 1
    assert result["search"]["iterations_per_s"] > 0
    assert result["search"]["actions_per_s"] > 0
