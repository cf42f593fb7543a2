"""bench/engine.py runs and prints its figures (their values are the machine's business)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
