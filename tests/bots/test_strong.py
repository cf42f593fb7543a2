"""The strong (search) bot: it knows only what its seat's view shows, and it plays legal moves.

The central test re-deals every hidden part of real game states (other seats'
hands, draw and discard piles, our own draw order, the market deck, the fate
deck with the rivals' holding cards, the RNG) in a way the seat's view cannot
tell apart, and checks that the bot's choice does not change.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app import engine
from app.bots import choose_action, strong
from app.bots.heuristic import choose_heuristic
from app.bots.simulate import scenario_catalogue
from app.bots.strong import Budget, choose_strong, determinize

CATALOGUE = scenario_catalogue()
# No time limit: the choice must depend on the view and the bot's RNG alone.
BUDGET = Budget(iterations=3, seconds=1e9, candidates=3, horizon=6)


def redeal(state: dict[str, Any], seat: int, seed: int) -> dict[str, Any]:
    """Another state ``seat`` cannot tell from ``state``: every hidden part shuffled.

    Written independently of ``strong.determinize`` (plain ``random``, no canonical
    order), so the two only agree on what is hidden, not on how to shuffle it.
    """
    r = random.Random(seed)
    st: dict[str, Any] = engine.loads(engine.dumps(state))
    attacker = (st.get("interrupt") or {}).get("attacker")
    for other, p in enumerate(st["players"]):
        deck = p["deck"]
        if other == seat:
            r.shuffle(deck["draw"])
            continue
        keep_hand = attacker == other
        pool = deck["draw"] + deck["discard"]
        if deck["hand"] is not None and not keep_hand:
            pool.append(deck["hand"])
        r.shuffle(pool)
        if deck["hand"] is not None and not keep_hand:
            deck["hand"] = pool.pop(0)
        n = len(deck["draw"])
        deck["draw"], deck["discard"] = pool[:n], pool[n:]
    r.shuffle(st["market"]["deck"])
    holdings = [h for o, p in enumerate(st["players"]) if o != seat for h in p["holdings"]]
    pool = st["fate"]["deck"] + holdings
    r.shuffle(pool)
    for o, p in enumerate(st["players"]):
        if o != seat:
            k = len(p["holdings"])
            p["holdings"], pool = pool[:k], pool[k:]
    st["fate"]["deck"] = pool
    st["rng"] = r.getrandbits(64)
    return st


def decision_states(scenario: str, seed: int, kinds: set[str], want: int) -> list[tuple[Any, int]]:
    """States of a standard-bot game where some seat has a real choice of ``kinds``."""
    seats = CATALOGUE[scenario]
    state = engine.new_game(scenario, seats, seed)
    rng = random.Random(seed)
    found: list[tuple[Any, int]] = []
    steps = 0
    while engine.outcome(state) is None and len(found) < want and steps < 4000:
        prompt = engine.pending(state)[0]
        seat = int(prompt["seat"])
        legal = engine.legal_actions(state, seat)
        if prompt["kind"] in kinds and len(legal) >= 3 and steps % 7 == 0:
            found.append((state, seat))
        action = choose_heuristic(engine.view(state, seat), legal, rng)
        state, _ = engine.apply(state, seat, action)
        steps += 1
    assert len(found) == want
    return found


def test_redeal_keeps_the_seat_view_and_changes_the_hidden_parts() -> None:
    state, seat = decision_states("four_empires", 4, {"turn", "advisor"}, 1)[0]
    other = redeal(state, seat, 99)
    assert engine.view(other, seat) == engine.view(state, seat)
    assert engine.state_hash(other) != engine.state_hash(state)


def test_determinize_depends_on_the_view_only() -> None:
    for state, seat in decision_states("four_empires", 5, {"turn", "advisor", "diplomacy"}, 3):
        a = determinize(state, seat, random.Random(3))
        b = determinize(redeal(state, seat, 1234), seat, random.Random(3))
        assert engine.state_hash(a) == engine.state_hash(b)
        assert engine.view(a, seat) == engine.view(state, seat)


@pytest.mark.parametrize(
    ("scenario", "seed", "kinds"),
    [
        ("teaching", 7, {"turn", "advisor"}),
        ("four_empires", 8, {"turn", "advisor", "diplomacy"}),
    ],
)
def test_choice_is_unchanged_when_hidden_parts_are_redealt(
    scenario: str, seed: int, kinds: set[str]
) -> None:
    for state, seat in decision_states(scenario, seed, kinds, 3):
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        first = choose_strong(state, seat, view, legal, random.Random(11), budget=BUDGET)
        # One of the listed actions, or a concrete offer sized for a listed template (20.14).
        assert any(first is candidate for candidate in legal) or engine.offer_fits(legal, first)
        assert strong.LAST.searched and strong.LAST.rollouts >= 3
        for redeal_seed in (1, 2):
            other = redeal(state, seat, redeal_seed)
            again = choose_strong(
                other,
                seat,
                engine.view(other, seat),
                engine.legal_actions(other, seat),
                random.Random(11),
                budget=BUDGET,
            )
            assert again == first


def test_strong_plays_a_whole_short_game_with_legal_moves() -> None:
    seats = CATALOGUE["teaching"]
    state = engine.new_game("teaching", seats, 2, {"end_turn": 1})
    rng = random.Random(2)
    budget = Budget(iterations=2, seconds=1e9, candidates=3, horizon=4)
    searched = 0
    while engine.outcome(state) is None:
        seat = int(engine.pending(state)[0]["seat"])
        legal = engine.legal_actions(state, seat)
        view = engine.view(state, seat)
        level = "strong" if seat == 0 else "standard"
        action = choose_action(level, view, legal, rng, state=state, budget=budget)
        # a listed action itself, or a concrete offer fitting its listed template (20.1)
        assert any(action is candidate for candidate in legal) or engine.offer_fits(legal, action)
        searched += int(level == "strong" and strong.LAST.searched)
        state, _ = engine.apply(state, seat, action)
    assert searched > 5


def test_strong_without_a_state_plays_as_standard() -> None:
    state, seat = decision_states("teaching", 3, {"turn", "advisor"}, 1)[0]
    legal = engine.legal_actions(state, seat)
    view = engine.view(state, seat)
    assert choose_action("strong", view, legal, random.Random(4)) == choose_action(
        "standard", view, legal, random.Random(4)
    )


def test_votes_are_left_to_the_standard_policy() -> None:
    """A secret ballot is hidden state: the strong bot does not search it."""
    view = {"me": {"seat": 0}, "prompts": [{"seat": 0, "kind": "vote"}], "players": []}
    legal = [{"type": "vote", "choice": c} for c in ("yes", "no", "abstain")]
    choose_strong({}, 0, view, legal, random.Random(0), budget=BUDGET)
    assert not strong.LAST.searched


class _JumpingClock:
    """``time`` as a busy or paused machine shows it to the search: every look at the
    wall clock finds ten seconds gone; the thread's own CPU time is the real one."""

    def __init__(self) -> None:
        self.wall = 0.0

    def perf_counter(self) -> float:
        self.wall += 10.0
        return self.wall

    def thread_time(self) -> float:
        import time

        return time.thread_time()


@pytest.mark.parametrize(("clock", "iterations"), [("wall", 1), ("cpu", 4)])
def test_a_cpu_clock_thinks_as_long_on_a_busy_machine(
    monkeypatch: pytest.MonkeyPatch, clock: str, iterations: int
) -> None:
    """The time limit counts what the budget's clock counts: elapsed time cuts a search
    short when the machine is busy or the process paused; the search's own CPU time
    (the tournament's default) does not (docs/bots.md)."""
    monkeypatch.setattr(strong, "time", _JumpingClock())
    state, seat = decision_states("teaching", 7, {"turn", "advisor"}, 1)[0]
    budget = Budget(iterations=4, seconds=5.0, candidates=3, horizon=6, clock=clock)
    legal = engine.legal_actions(state, seat)
    choose_strong(state, seat, engine.view(state, seat), legal, random.Random(11), budget=budget)
    assert strong.LAST.searched
    assert strong.LAST.iterations == iterations
