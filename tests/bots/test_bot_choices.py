"""Bots choose only among the legal actions of their seat, from their seat's view."""

from __future__ import annotations

import random

import pytest

from app import engine
from app.bots import BOT_LEVELS, UnknownBotLevel, choose_action
from app.bots.runner import play_game
from app.bots.simulate import scenario_catalogue
from app.bots.strong import Budget
from app.engine.content import content

CATALOGUE = scenario_catalogue()
TEACHING = next(
    (s["id"] for s in content().get("scenarios", []) if s.get("teaching")),
    None,
)


def test_levels_are_listed() -> None:
    assert BOT_LEVELS[:2] == ("random", "heuristic")


def test_unknown_level_and_empty_legal_list_are_refused() -> None:
    with pytest.raises(UnknownBotLevel):
        choose_action("genius", {}, [{"type": "draw"}], random.Random(0))
    with pytest.raises(ValueError):
        choose_action("random", {}, [], random.Random(0))


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_bot_returns_one_of_the_listed_actions_at_every_step(level: str) -> None:
    assert TEACHING is not None
    seats = CATALOGUE[TEACHING]
    rng = random.Random(5)
    state = engine.new_game(TEACHING, seats, 5)
    steps = 0
    while engine.outcome(state) is None and steps < 3000:
        seat = int(engine.pending(state)[0]["seat"])
        legal = engine.legal_actions(state, seat)
        action = choose_action(level, engine.view(state, seat), legal, rng)
        # the listed dict itself, or (20.14) a concrete offer fitting a listed template, or
        # (20.14, issue 40) a listed refusal of an offer with the bot's reason added
        bare = {k: v for k, v in action.items() if k != "reason"}
        assert (
            any(action is candidate for candidate in legal)
            or engine.offer_fits(legal, action)
            or (action.get("answer") == "refuse" and action.get("reason") and bare in legal)
        )
        state, _ = engine.apply(state, seat, action)
        steps += 1
    assert steps > 0


def test_random_bot_is_uniform() -> None:
    legal = [{"type": "a"}, {"type": "b"}, {"type": "c"}]
    rng = random.Random(1)
    counts = {"a": 0, "b": 0, "c": 0}
    for _ in range(3000):
        counts[choose_action("random", {}, legal, rng)["type"]] += 1
    assert all(900 < n < 1100 for n in counts.values()), counts


def test_heuristic_bot_is_deterministic_for_a_seed() -> None:
    assert TEACHING is not None
    seats = CATALOGUE[TEACHING]
    first = play_game(TEACHING, seats, 11, "heuristic")
    second = play_game(TEACHING, seats, 11, "heuristic")
    assert not first.errors, first.errors[:1]
    assert first.log == second.log
    assert first.final_hash == second.final_hash


@pytest.mark.parametrize("scenario", sorted(CATALOGUE))
@pytest.mark.parametrize("level", BOT_LEVELS)
def test_bots_finish_short_games_of_every_scenario_without_error(scenario: str, level: str) -> None:
    # The strong bot searches on a tiny budget here: these games check legality, not play.
    budget = Budget(iterations=1, seconds=5.0, candidates=2, horizon=3)
    record = play_game(
        scenario,
        CATALOGUE[scenario],
        3,
        level,
        options={"end_turn": 1, "rounds": 1},
        budget=budget,
    )
    assert record.errors == [], record.errors[:1]
    assert record.illegal_choices == 0
    assert record.outcome is not None


def test_heuristic_bot_replays_to_the_same_hash() -> None:
    assert TEACHING is not None
    seats = CATALOGUE[TEACHING]
    record = play_game(TEACHING, seats, 21, "heuristic")
    assert not record.errors
    assert engine.state_hash(engine.replay(TEACHING, seats, 21, record.log)) == record.final_hash


def test_heuristic_bot_beats_the_random_bot() -> None:
    """Greedy play on the evaluation must beat uniform play from either seat."""
    assert TEACHING is not None
    seats = CATALOGUE[TEACHING]
    wins = games = 0
    for seed in range(4):
        for heuristic_seat in (0, 1):
            levels = ["random", "random"]
            levels[heuristic_seat] = "heuristic"
            record = play_game(TEACHING, seats, 100 + seed, levels, use_explain=True)
            assert not record.errors, record.errors[:1]
            assert record.outcome is not None
            games += 1
            wins += record.outcome["winner"] == heuristic_seat
    assert wins >= 6, f"the heuristic bot won only {wins} of {games} games against random play"
