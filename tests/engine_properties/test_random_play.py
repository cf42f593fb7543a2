"""Property: random legal play never breaks the engine (docs/engine-contract.md).

Whole games with a uniformly random legal action at every step; at every state
the invariants, the exactness of ``legal_actions`` (a sample of listed actions
accepted, corrupted ones refused with a reason, other seats refused) and the
purity of ``apply`` are checked (see ``walk.py``).

The big run (``slow``) plays 2,000 whole games: 700 full-length teaching
games (Kushan vs Han, two game turns), and 260 games of each of the five
scenarios stopped after one round (``end_turn: 1, rounds: 1``), so that every
era, all its powers and its Fate deck are exercised (about 9 minutes of one core
on a busy machine: 0.4 s a teaching game with its checks, 0.2-0.45 s the first
round of a six-power scenario). There the acceptance/refusal probes and the check of the deadline's
default action run on a quarter of the states (chosen at random); the invariants
on all of them. The quick tests (not ``slow``) probe
every state of fewer games, and whole-length games of every scenario run in
the slow set.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .catalogue import game_settings, scenarios, seats_of, teaching
from .walk import play_random

SCENARIO_IDS = sorted(scenarios())
SEEDS = st.integers(min_value=0, max_value=2**31 - 1)

ONE_ROUND = {"end_turn": 1, "rounds": 1}

# The big run.
TEACHING_GAMES = 700
# Ten tests of 70 games: each well inside its time limit, and small enough that
# `make test`'s workers (pytest-xdist) share them out evenly.
TEACHING_BATCHES = 10
SHORT_GAMES_PER_SCENARIO = 260
BIG_RUN_PROBE_RATE = 0.25
# A batch takes well under a minute of one quiet core; the limit leaves room for a busy machine.
BIG_RUN_TIMEOUT = 1800


@game_settings(4)
@given(seed=SEEDS)
def test_whole_teaching_games_keep_every_invariant(seed: int) -> None:
    scenario = teaching()
    walk = play_random(scenario, seats_of(scenario), seed, probe=2)
    assert walk.final is not None and walk.log


@pytest.mark.parametrize("scenario", SCENARIO_IDS)
@game_settings(2)
@given(seed=SEEDS)
def test_one_round_games_of_every_scenario_keep_every_invariant(scenario: str, seed: int) -> None:
    walk = play_random(scenario, seats_of(scenario), seed, ONE_ROUND, probe=2)
    assert walk.final is not None


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIO_IDS)
def test_a_whole_game_of_every_scenario(scenario: str) -> None:
    """One full-length game per scenario, no option."""
    walk = play_random(scenario, seats_of(scenario), 4242, probe=1, probe_rate=0.1)
    assert walk.final is not None


@pytest.mark.slow
@pytest.mark.timeout(BIG_RUN_TIMEOUT)
@pytest.mark.parametrize("batch", range(TEACHING_BATCHES))
@game_settings(TEACHING_GAMES // TEACHING_BATCHES)
@given(seed=SEEDS)
def test_many_teaching_games(batch: int, seed: int) -> None:
    scenario = teaching()
    play_random(scenario, seats_of(scenario), seed, probe=1, probe_rate=BIG_RUN_PROBE_RATE)


@pytest.mark.slow
@pytest.mark.timeout(BIG_RUN_TIMEOUT)
@pytest.mark.parametrize("scenario", SCENARIO_IDS)
@game_settings(SHORT_GAMES_PER_SCENARIO)
@given(seed=SEEDS)
def test_many_one_round_games_of_every_scenario(scenario: str, seed: int) -> None:
    play_random(
        scenario, seats_of(scenario), seed, ONE_ROUND, probe=1, probe_rate=BIG_RUN_PROBE_RATE
    )


def test_the_big_run_plays_at_least_two_thousand_games() -> None:
    assert len(SCENARIO_IDS) >= 4
    assert TEACHING_GAMES + SHORT_GAMES_PER_SCENARIO * len(SCENARIO_IDS) >= 2000
