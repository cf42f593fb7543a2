"""7.2: a scenario of another era restates the language and religion of areas."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app import engine
from app.engine.content import content, load_content, using


@pytest.fixture(autouse=True)
def installed_pack() -> Iterator[None]:
    """These rules are about the scenarios as shipped, not the synthetic test pack."""
    with using(load_content()):
        yield


def test_7_2_late_antiquity_restates_languages_and_religions() -> None:
    scenario = next(s for s in content()["scenarios"] if s["id"] == "late_antiquity")
    overrides = scenario["area_overrides"]
    assert overrides, "the Late Antiquity scenario restates some areas"
    seats = scenario["seat_sets"]["2"]
    state = engine.new_game("late_antiquity", seats, 3)
    areas = {a["id"]: a for a in content()["areas"]}
    changed = 0
    for area_id, culture in overrides.items():
        for key in ("language", "religion"):
            if key in culture:
                assert state["areas"][area_id][key] == culture[key]
                changed += culture[key] != areas[area_id][key]
    assert changed > 0
    untouched = next(a for a in areas if a not in overrides)
    assert state["areas"][untouched]["religion"] == areas[untouched]["religion"]


def test_7_2_the_main_scenario_keeps_the_map_as_drawn() -> None:
    state = engine.new_game("four_empires", ["rome", "parthia"], 3)
    for area in content()["areas"]:
        assert state["areas"][area["id"]]["language"] == area["language"]
        assert state["areas"][area["id"]]["religion"] == area["religion"]
