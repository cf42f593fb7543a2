"""`imperial-glory balance`: rotation, intervals and the report it writes (issue 11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.balance import cli as balance_cli
from app.balance.calibrate import fitted_levels, rescored_win_rates
from app.balance.cli import SCENARIOS_JSON, current_levels, main, write_levels
from app.balance.games import MEASURE_BUDGET, GameSummary, plan, rotated_levels
from app.balance.pace import place_of, seconds_for
from app.balance.stats import percentile, wilson


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = wilson(10, 10)
    assert round(low, 4) == 0.7225 and high == 1.0


def test_percentile_is_nearest_rank() -> None:
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([1.0, 2.0], 90) == 2.0
    assert percentile([], 50) == 0.0


def test_rotation_puts_every_level_on_every_power_equally() -> None:
    levels = ["strong", "heuristic", "heuristic", "heuristic", "heuristic", "heuristic"]
    jobs = plan("four_empires", ["a", "b", "c", "d", "e", "f"], levels, 12, seed=1)
    for seat in range(6):
        played = [job.levels[seat] for job in jobs]
        assert played.count("strong") == 2  # 12 games / 6 seats
    assert rotated_levels(["x", "y"], 2, 0) == ("x", "y")
    assert rotated_levels(["x", "y"], 2, 1) == ("y", "x")
    assert [job.seed for job in jobs] == list(range(1, 13))


def test_votes_cast_together_are_charged_once() -> None:
    vote = {"type": "vote", "yes": True}
    assert seconds_for(vote, None) > 0
    assert seconds_for(vote, vote) == 0.0
    assert seconds_for({"type": "endeavour"}, vote) > seconds_for({"type": "draw"}, None)


def test_the_court_tax_is_charged_as_a_click() -> None:
    """16.17: the court is taxed without a check, in one click on the page; any other
    area's tax is a choice with odds to weigh."""
    court = {"type": "tax", "area": "luoyang", "amount": 3}
    other = {"type": "tax", "area": "yan_zhao", "amount": 2}
    assert seconds_for(court, None, 12, "luoyang") == seconds_for({"type": "draw"}, None)
    assert seconds_for(other, None, 12, "luoyang") > seconds_for(court, None, 12, "luoyang")
    assert seconds_for(court, None, 12, None) == seconds_for(other, None, 12, "luoyang")
    assert seconds_for({"type": "plunder", "area": "luoyang"}, None, 12, "luoyang") > 4.0


def test_an_endeavour_where_the_last_acted_needs_no_map_picks() -> None:
    """The page keeps the place of a seat's last endeavour: acting there again is the
    kind and the talents; acting elsewhere, or a first endeavour, picks on the map."""
    build = {"type": "endeavour", "kind": "build", "base": "bactria", "target": "bactria"}
    feast = {"type": "endeavour", "kind": "festival", "base": "bactria", "target": "bactria"}
    away = {"type": "endeavour", "kind": "conquest", "base": "bactria", "target": "sogdiana"}
    assert place_of(build) == ("bactria", "bactria")
    first = seconds_for(build, None, 30)
    again = seconds_for(feast, None, 30, None, place_of(build))
    assert 0 < again < first
    assert seconds_for(away, None, 30, None, place_of(build)) == first
    assert seconds_for({"type": "tax", "area": "x"}, None, 30, None, ("x", "x")) > 4.0


def test_the_command_writes_the_report_and_keeps_the_tuning_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "docs" / "balance.md"
    args = ["--scenario", "teaching", "--games", "4", "--jobs", "1", "--report", str(report)]
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    teaching = result["scenarios"]["teaching"]
    assert teaching["games"] == 4 and teaching["errors"] == 0
    assert sum(p["wins"] for p in teaching["powers"].values()) + teaching["no_winner"] == 4
    assert teaching["petitions"] > 0 and teaching["mean_live_minutes"] > 0
    text = report.read_text()
    assert "| kushan |" in text and "| han |" in text and "petition bust rate" in text
    png = report.with_name("balance-winrates.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # A designer's note outside the markers survives the next run.
    report.write_text(text + "\n- 2026-11-24: a hand-written tuning entry.\n")
    assert main([*args, "--seed", "9"]) == 0
    rerun = report.read_text()
    assert "a hand-written tuning entry" in rerun
    assert "--seed 9" in rerun and "seeds from 1" not in rerun
    # One row of figures per scenario, with the command that reproduces it.
    row = next(x for x in rerun.splitlines() if x.startswith("| teaching | standard | 4 |"))
    assert row.endswith(" processes) |") and "`imperial-glory balance --scenario teaching" in row


def test_unknown_level_or_scenario_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--bots", "grandmaster", "--no-report"]) == 2
    assert main(["--scenario", "atlantis", "--no-report"]) == 2
    assert main(["--bots", "standard*many", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "grandmaster" in err and "atlantis" in err and "standard*many" in err


def test_a_mix_of_levels_is_written_as_the_tournament_writes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--scenario", "teaching", "--games", "2", "--jobs", "1", "--no-report", "--json"]
    assert main([*args, "--bots", "novice*1,standard"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["bots"] == "novice,standard"
    assert result["scenarios"]["teaching"]["games"] == 2
    # The same run is the bots' census of these games, as simulate --json counts it.
    census = result["scenarios"]["teaching"]
    assert {"offers_made", "offers_with_area_or_claim"} <= set(census["politics_mean"])
    assert census["openings"]["distinct"] >= 1
    # The Strong seat of a measurement thinks by CPU time, whatever else the machine does.
    assert MEASURE_BUDGET.clock == "cpu"


def _game(seed: int, scores: dict[str, float]) -> GameSummary:
    return GameSummary("x", seed, sorted(scores), ["heuristic"] * len(scores), scores=scores)


def test_games_rescored_say_who_would_have_won() -> None:
    """26.2: the highest total less level wins; a tie the summary cannot break is shared."""
    games = [_game(1, {"han": 30, "kushan": 20}), _game(2, {"han": 24, "kushan": 20})]
    assert rescored_win_rates(games, ["han", "kushan"], {"han": 0, "kushan": 0}) == {
        "han": 1.0,
        "kushan": 0.0,
    }
    # Han 5 above Kushan: the first still Han's (25 v 20), the second Kushan's (19 v 20)
    assert rescored_win_rates(games, ["han", "kushan"], {"han": 5}) == {"han": 0.5, "kushan": 0.5}
    # a tie on standing is shared
    assert rescored_win_rates(games, ["han", "kushan"], {"han": 4}) == {"han": 0.75, "kushan": 0.25}


def test_calibration_fits_the_levels_that_even_out_the_wins() -> None:
    """Han wins every game at today's levels by 2 to 9 points; the fitted levels give
    each power half the games when the same games are scored again, and move no more
    than that needs (half points, 26.2)."""
    margins = [2, 3, 4, 5, 6, 7, 8, 9]
    games = [_game(i, {"han": 20 + m, "kushan": 20}) for i, m in enumerate(margins)]
    levels = fitted_levels(games, {"han": 1, "kushan": 0}, step=1.0)
    rates = rescored_win_rates(games, ["han", "kushan"], levels)
    assert rates == {"han": 0.5, "kushan": 0.5}
    assert levels["han"] - levels["kushan"] in (5.5, 6, 6.5)  # between margins 5 and 6
    assert all(2 * v == int(2 * v) for v in levels.values())
    # by default half the way: the bots answer the standings, which moves them further
    half = fitted_levels(games, {"han": 1, "kushan": 0})
    assert 0 < half["han"] - 1 - half["kushan"] < levels["han"] - 1 - levels["kushan"]
    # already even: nothing moves
    even = [_game(1, {"han": 25, "kushan": 20}), _game(2, {"han": 20, "kushan": 25})]
    assert fitted_levels(even, {"han": 0, "kushan": 0}) == {"han": 0, "kushan": 0}


def test_calibration_moves_a_narrow_high_standing_power_by_its_wins() -> None:
    """The nomads' case: the highest mean standing of the table and the fewest wins
    (their results spread narrowly). The fit makes them easier, not harder."""
    games = []
    for i in range(12):
        # the nomads stand 25 every game; the empire 20 or 30, winning half; the third 22
        empire = 30 if i % 2 else 20
        games.append(_game(i, {"nomads": 25, "empire": empire, "kingdom": 22 + (i % 3) * 4}))
    before = rescored_win_rates(games, ["empire", "kingdom", "nomads"], {})
    levels = fitted_levels(games, {"empire": 0, "kingdom": 0, "nomads": 0}, step=1.0)
    after = rescored_win_rates(games, ["empire", "kingdom", "nomads"], levels)
    assert levels["nomads"] <= min(levels["empire"], levels["kingdom"])
    assert max(abs(r - 1 / 3) for r in after.values()) < max(
        abs(r - 1 / 3) for r in before.values()
    )


def test_written_levels_keep_the_pack_layout(tmp_path: Path) -> None:
    pack = tmp_path / "scenarios.json"
    original = SCENARIOS_JSON.read_text(encoding="utf-8")
    pack.write_text(original, encoding="utf-8")
    now = current_levels(pack)
    write_levels(now, pack)
    assert pack.read_text(encoding="utf-8") == original  # unchanged levels, same bytes
    write_levels({"teaching": {"han": 3}}, pack)
    assert current_levels(pack)["teaching"]["han"] == 3
    assert current_levels(pack)["teaching"]["kushan"] == now["teaching"]["kushan"]


def test_write_levels_needs_calibrate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--write-levels", "--no-report"]) == 2
    assert "--calibrate" in capsys.readouterr().err


def test_calibrate_prints_levels_in_half_points(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """26.2: the suggested levels are whole or half points, printed as such (Kushan
    starts from a half point here, so one of them is a half)."""
    monkeypatch.setattr(balance_cli, "current_levels", lambda: {"teaching": {"kushan": 0.5}})
    args = ["--scenario", "teaching", "--games", "2", "--jobs", "1", "--no-report"]
    assert main([*args, "--calibrate"]) == 0
    line = next(
        x for x in capsys.readouterr().out.splitlines() if x.startswith("victory levels suggested")
    )
    shown = dict(part.split() for part in line.split(": ", 1)[1].split(", "))
    assert set(shown) == {"kushan", "han"}
    assert all((2 * float(v)).is_integer() for v in shown.values())
    assert not float(shown["kushan"]).is_integer()


def test_runs_of_one_scenario_each_merge_into_one_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scenario's 600 games fit a session where all four do not: separate runs are
    written as one report, each scenario under the command that measured it."""
    files = []
    for seed in (3, 5):
        args = ["--scenario", "teaching", "--games", "2", "--jobs", "1", "--seed", str(seed)]
        assert main([*args, "--no-report", "--json"]) == 0
        files.append(tmp_path / f"run{seed}.json")
        files[-1].write_text(capsys.readouterr().out)
    one = json.loads(files[0].read_text())
    other = {**one, "command": "imperial-glory balance --scenario other", "seed": 77}
    other["scenarios"] = {"other": one["scenarios"]["teaching"]}
    files.append(tmp_path / "other.json")
    files[-1].write_text(json.dumps(other))

    report = tmp_path / "balance.md"
    assert main(["--merge", *map(str, files), "--report", str(report), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result["scenarios"]) == ["other", "teaching"]
    assert result["total_games"] == 4  # teaching measured twice: the later run stands
    text = report.read_text()
    assert "from 3 runs" in text
    assert "--seed 5 --no-report --json` (" in text and "--seed 3 " not in text
    assert "`imperial-glory balance --scenario other` (seeds from 77;" in text

    # A merged file merges again, as it was; a file that is not a run is refused.
    again = tmp_path / "again.json"
    again.write_text(json.dumps(result))
    assert main(["--merge", str(again), "--no-report", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scenarios"] == result["scenarios"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"scenarios": {"x": {}}}')
    assert main(["--merge", str(bad), "--no-report"]) == 2
    assert main(["--merge", str(tmp_path / "missing.json"), "--no-report"]) == 2
    assert "cannot read the run" in capsys.readouterr().err
