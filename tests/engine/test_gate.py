"""The gate (app/engine/gate.py): `check`, the one legality check every caller
uses, is exact; `ACTIONS`, the one table of action types, agrees with what
`legal_actions` lists and is what `diagnose` explains from."""

from __future__ import annotations

import random

import pytest

from app import engine
from app.engine import IllegalAction
from app.engine.flow import HANDLERS
from app.engine.gate import ACTIONS, answering, diagnose

from .helpers import HAN, KUSHAN, game, turn_of


def test_check_returns_a_copy_of_a_listed_action():
    s = turn_of(game(), KUSHAN)
    listed = engine.legal_actions(s, KUSHAN)[0]
    got = engine.check(s, KUSHAN, listed)
    assert got == listed and got is not listed


def test_check_compares_type_for_type():
    """`True == 1` in Python: the gate still refuses a listed number sent as a bool
    (the loose `action in legal` that bots and services used to re-check with)."""
    s = turn_of(game(), KUSHAN)
    slot = {"type": "choose_slot", "slot": 0}
    numbered = next(
        (a for a in engine.legal_actions(s, KUSHAN) if any(type(v) is int for v in a.values())),
        None,
    )
    assert numbered is not None, engine.legal_actions(s, KUSHAN)
    key = next(k for k, v in numbered.items() if type(v) is int and v in (0, 1))
    loose = {**numbered, key: bool(numbered[key])}
    assert loose == numbered  # what `in legal` would let through
    with pytest.raises(IllegalAction):
        engine.check(s, KUSHAN, loose)
    with pytest.raises(IllegalAction) as err:
        engine.check(s, KUSHAN, slot)
    assert err.value.code == "wrong_prompt"


@pytest.mark.parametrize(
    "seat, action, code",
    [
        (HAN, {"type": "draw"}, "not_your_turn"),
        (KUSHAN, {"type": "petition"}, "wrong_prompt"),
        (KUSHAN, {"type": "summon_dragons"}, "wrong_prompt"),
        (KUSHAN, {"nope": 1}, "malformed"),
        (KUSHAN, ["draw"], "malformed"),
        (9, {"type": "draw"}, "bad_seat"),
    ],
)
def test_check_refuses_as_apply_does(seat, action, code):
    s = turn_of(game(), KUSHAN)
    for gate in (engine.check, engine.apply):
        with pytest.raises(IllegalAction) as err:
            gate(s, seat, action)
        assert err.value.code == code and err.value.reason.endswith(".")


def test_check_refuses_everything_once_the_game_is_over():
    s = turn_of(game(), KUSHAN)
    listed = engine.legal_actions(s, KUSHAN)[0]
    s["over"] = True
    with pytest.raises(IllegalAction) as err:
        engine.check(s, KUSHAN, listed)
    assert err.value.code == "game_over"


def test_the_dispatch_is_the_table():
    assert {t: row.handler for t, row in ACTIONS.items()} == HANDLERS


def test_a_wrong_prompt_names_the_types_the_table_gives():
    s = turn_of(game(), KUSHAN)
    refusal = diagnose(s, KUSHAN, {"type": "vote", "choice": "yes"})
    assert refusal.code == "wrong_prompt"
    assert (
        refusal.reason == f"You must answer the turn prompt first ({', '.join(answering('turn'))})."
    )
    assert {"draw", "tax", "recruit", "end_turn", "offer", "readmission"} <= set(answering("turn"))
    assert answering("vote") == ["vote"]
    assert answering("initiative") == ["choose_slot"]
    assert answering("defend") == ["decline", "defend"]


@pytest.mark.parametrize("seed", range(4))
def test_every_listed_action_has_a_row_that_answers_its_prompt(seed):
    """Random play: whatever `legal_actions` lists is a type of `ACTIONS` that answers
    the prompt of its seat, and `check` lets it through."""
    r = random.Random(seed)
    scenario, seats = [
        ("teaching", ["kushan", "han"]),
        ("four_empires", ["rome", "parthia", "kushan", "han"]),
    ][seed % 2]
    s = engine.new_game(scenario, seats, seed)
    seen: set[tuple[str, str]] = set()
    n = 0
    while not s["over"] and n < 600:
        prompts = engine.pending(s)
        prompt = r.choice(prompts)
        seat = prompt["seat"]
        kind = next(p["kind"] for p in prompts if p["seat"] == seat)
        legal = engine.legal_actions(s, seat)
        for a in legal:
            assert kind in ACTIONS[a["type"]].answers, (kind, a)
            seen.add((kind, a["type"]))
        a = r.choice(legal)
        assert engine.check(s, seat, a) == a
        s, _ = engine.apply(s, seat, a)
        n += 1
    assert len(seen) > 10
