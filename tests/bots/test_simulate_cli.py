"""`imperial-glory simulate` as a real subprocess: JSON out, no errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def simulate(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "simulate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("bots", ["heuristic", "random"])
def test_simulate_all_scenarios_json(bots: str) -> None:
    from app.engine.content import content

    games = 2 * len(content()["scenarios"])  # two per scenario
    done = simulate(
        "--scenario",
        "all",
        "--games",
        str(games),
        "--bots",
        bots,
        "--seed",
        "7",
        "--end-turn",
        "1",
        "--rounds",
        "1",
        "--json",
    )
    assert done.returncode == 0, done.stderr + done.stdout
    result = json.loads(done.stdout)
    for key in (
        "games",
        "games_per_s",
        "mean_rounds",
        "win_rate_by_power",
        "petition_bust_rate",
        "errors",
        "mean_game_turns",
        "score_spread",
        "busts_per_game",
        "by_scenario",
    ):
        assert key in result, key
    assert result["errors"] == 0, result["error_samples"]
    assert result["illegal_choices"] == 0
    assert result["games"] == games
    assert all(sub["games"] == 2 for sub in result["by_scenario"].values())
    assert result["mean_rounds"] >= 1
    assert 0.0 <= result["petition_bust_rate"] <= 1.0
    assert all(0.0 <= rate <= 1.0 for rate in result["win_rate_by_power"].values())


def test_simulate_one_whole_teaching_game_plain_text_and_jobs() -> None:
    from app.engine.content import content

    teaching = next(s["id"] for s in content()["scenarios"] if s.get("teaching"))
    done = simulate("--scenario", teaching, "--games", "2", "--jobs", "2", "--seed", "3")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "games" in done.stdout and "errors: 0" in done.stdout


def test_simulate_same_seed_same_statistics() -> None:
    runs = [
        json.loads(
            simulate(
                "--scenario",
                "all",
                "--games",
                "4",
                "--end-turn",
                "1",
                "--rounds",
                "1",
                "--seed",
                "5",
                "--json",
            ).stdout
        )
        for _ in range(2)
    ]
    for run in runs:
        run.pop("seconds"), run.pop("games_per_s")
        for sub in run["by_scenario"].values():
            sub.pop("seconds"), sub.pop("games_per_s")
    assert runs[0] == runs[1]


def test_simulate_refuses_bad_arguments() -> None:
    assert simulate("--scenario", "atlantis", "--games", "1").returncode == 2
    assert simulate("--bots", "genius", "--games", "1").returncode == 2
    assert simulate("--games", "0").returncode == 2
