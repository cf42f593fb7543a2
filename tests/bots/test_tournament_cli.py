"""`imperial-glory tournament` as a real subprocess, the level names, and simulate's politics."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from app.bots import BOT_LEVELS
from app.bots.levels import LOBBY_LEVELS, canonical, describe, label
from app.bots.tournament import parse_lineup, seat_levels, wilson
from app.services import lobby

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_levels_have_player_names_and_old_ids_keep_working() -> None:
    assert LOBBY_LEVELS == ("novice", "standard", "strong")
    assert [label(x) for x in LOBBY_LEVELS] == ["Novice", "Standard", "Strong"]
    assert all(describe(x) and "\n" not in describe(x) for x in LOBBY_LEVELS)
    assert canonical("heuristic") == "standard" and label("heuristic") == "Standard"
    assert {"random", "heuristic", "novice", "standard", "strong"} <= set(BOT_LEVELS)
    assert lobby.bot_levels() == LOBBY_LEVELS
    assert lobby.check_bot_level("heuristic") == "heuristic"  # games made before keep their id
    assert canonical(lobby.check_bot_level(None)) == "standard"
    assert [x["label"] for x in lobby.bot_level_info()] == ["Novice", "Standard", "Strong"]


def test_lineups_rotate_so_each_level_plays_each_power_equally() -> None:
    lineup = parse_lineup("strong,standard*5")
    assert lineup == ["strong"] + ["standard"] * 5
    seats: Counter[tuple[int, str]] = Counter()
    for game in range(12):
        for seat, level in enumerate(seat_levels(lineup, 6, game)):
            seats[(seat, level)] += 1
    assert all(seats[(seat, "strong")] == 2 for seat in range(6))
    assert all(seats[(seat, "standard")] == 10 for seat in range(6))


def test_wilson_interval() -> None:
    low, high = wilson(65, 100)
    assert 0.55 < low < 0.65 < high < 0.74
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_tournament_json_standard_against_random() -> None:
    done = cli(
        "tournament", "--bots", "standard,random", "--scenario", "teaching",
        "--games", "6", "--seed", "3", "--jobs", "2", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == 6 and result["errors"] == 0
    assert result["budget"]["clock"] == "cpu"  # the Strong seat's seconds are its own CPU time
    levels = result["levels"]
    assert set(levels) == {"standard", "random"}
    for row in levels.values():
        assert row["seats"] == 6
        assert row["powers"] == {"han": 3, "kushan": 3}  # seat-swapped
        assert 0 <= row["ci95"][0] <= row["win_rate"] <= row["ci95"][1] <= 1
        assert set(row["rating"]) == {"mu", "sigma", "ordinal"}
    assert levels["standard"]["wins"] + levels["random"]["wins"] == 6
    assert levels["standard"]["rating"]["mu"] > levels["random"]["rating"]["mu"]
    for level, row in levels.items():  # the level's wins, split by the power it played
        assert sum(row["wins_by_power"].values()) == row["wins"], level
    powers = result["powers"]  # each power's share whoever played it
    assert set(powers) == {"han", "kushan"}
    assert all(row["games"] == 6 for row in powers.values())
    assert sum(row["wins"] for row in powers.values()) == 6


def test_tournament_plain_text_with_the_strong_bot_on_a_small_budget() -> None:
    done = cli(
        "tournament", "--bots", "strong,novice", "--scenario", "teaching", "--games", "2",
        "--iterations", "1", "--candidates", "2", "--horizon", "3", "--jobs", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "strong" in done.stdout and "novice" in done.stdout and "95% CI" in done.stdout


def test_tournament_refuses_bad_arguments() -> None:
    assert cli("tournament", "--bots", "genius").returncode == 2
    assert cli("tournament", "--scenario", "atlantis").returncode == 2
    assert cli("tournament", "--games", "0").returncode == 2


def test_simulate_reports_politics_per_game() -> None:
    done = cli(
        "simulate", "--scenario", "four_empires", "--games", "2", "--seed", "100",
        "--end-turn", "3", "--jobs", "2", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    keys = {
        "wars_declared", "hegemony_claims", "coalition_joins", "parleys_called",
        "parleys_carried", "pvp_conquests", "exiles", "returns",
    }  # fmt: skip
    assert len(result["politics_per_game"]) == 2
    assert all(keys <= set(game) for game in result["politics_per_game"])
    assert keys <= set(result["politics_mean"])
    # Standard bots play politics: some war or hegemony happens within three game turns.
    assert sum(g["wars_declared"] + g["hegemony_claims"] for g in result["politics_per_game"]) > 0
