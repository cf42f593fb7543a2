"""26.2: victory levels: the highest standing (total less the power's level) wins."""

from __future__ import annotations

from typing import Any

import pytest

from app import engine
from app.engine.core import geo
from app.engine.scoring import outcome_of, victory_levels

from .helpers import HAN, KUSHAN, game


def set_level(monkeypatch: pytest.MonkeyPatch, power: str, level: float) -> None:
    """Set a power's victory level in the loaded pack for this test only."""
    for pw in geo().scenarios["teaching"]["powers"]:
        if pw["id"] == power:
            monkeypatch.setitem(pw, "victory_level", level)


def test_26_2_standing_is_the_total_less_the_victory_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_level(monkeypatch, "han", 7)
    set_level(monkeypatch, "kushan", -2)
    s = game()
    assert victory_levels(s) == {KUSHAN: -2, HAN: 7}
    rows = engine.score(s)
    for seat, level in ((KUSHAN, -2), (HAN, 7)):
        assert rows[seat]["level"] == level
        assert rows[seat]["standing"] == rows[seat]["total"] - level
    # The score in every seat's view carries the level and the standing.
    assert engine.view(s, KUSHAN)["score"][str(HAN)]["standing"] == rows[HAN]["standing"]


def test_26_2_the_highest_standing_wins_not_the_highest_total(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = game()
    totals = {seat: row["total"] for seat, row in engine.score(s).items()}
    big, small = (HAN, KUSHAN) if totals[HAN] >= totals[KUSHAN] else (KUSHAN, HAN)
    assert outcome_of(s)["winner"] == big  # no levels: the highest total wins
    gap = totals[big] - totals[small]
    set_level(monkeypatch, s["players"][big]["power"], gap + 1)
    res: dict[str, Any] = outcome_of(s)
    assert res["winner"] == small and res["ranking"] == [small, big]
    assert res["scores"][str(big)]["total"] > res["scores"][str(small)]["total"]


def test_26_2_a_level_ties_then_more_areas_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    s = game()
    totals = {seat: row["total"] for seat, row in engine.score(s).items()}
    set_level(monkeypatch, "kushan", totals[KUSHAN] - totals[HAN])  # standings tie
    rows = engine.score(s)
    assert rows[KUSHAN]["standing"] == rows[HAN]["standing"]
    areas = {seat: sum(1 for a in s["areas"].values() if a["owner"] == seat) for seat in rows}
    if areas[KUSHAN] != areas[HAN]:
        assert outcome_of(s)["winner"] == max(areas, key=lambda k: areas[k])


def test_26_2_a_half_point_level_splits_a_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    """A half point sits between two whole levels: it never ties on standing, so it
    decides what the tie-break would have (the finer step the balance needs)."""
    s = game()
    totals = {seat: row["total"] for seat, row in engine.score(s).items()}
    tie = totals[KUSHAN] - totals[HAN]
    set_level(monkeypatch, "kushan", tie - 0.5)  # half a point below the tie: Kushan wins
    rows = engine.score(s)
    assert rows[KUSHAN]["level"] == tie - 0.5
    assert rows[KUSHAN]["standing"] == rows[HAN]["standing"] + 0.5
    assert outcome_of(s)["winner"] == KUSHAN
    set_level(monkeypatch, "kushan", tie + 0.5)  # half a point above: Han wins
    assert outcome_of(s)["winner"] == HAN
    # A whole level stays an int, so whole standings print without a fraction.
    set_level(monkeypatch, "kushan", float(tie))
    assert isinstance(engine.score(s)[KUSHAN]["standing"], int)
