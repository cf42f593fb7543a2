"""2.2: a scenario's standard length (default_turns) and the long campaign by option."""

from __future__ import annotations

import pytest

from app import engine
from app.engine.core import geo
from app.engine.errors import BadSetup

FE = ["rome", "parthia"]


def test_2_2_the_four_empires_plays_four_turns_unless_asked_for_more() -> None:
    sc = geo().scenarios["four_empires"]
    assert sc["turns"] == 8 and sc["default_turns"] == 4
    assert engine.new_game("four_empires", FE, 1)["end_turn"] == 4
    assert engine.new_game("four_empires", FE, 1, {"end_turn": 8})["end_turn"] == 8
    with pytest.raises(BadSetup):
        engine.new_game("four_empires", FE, 1, {"end_turn": 9})


def test_2_2_without_default_turns_a_game_plays_them_all() -> None:
    sc = geo().scenarios["successors"]
    assert "default_turns" not in sc
    assert engine.new_game("successors", ["seleucid", "ptolemaic"], 1)["end_turn"] == sc["turns"]
