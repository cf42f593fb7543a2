"""Property: whatever is not listed by ``legal_actions`` is refused with a reason.

States are taken along random games of every scenario (every phase: diplomacy,
initiative, turns, advisors, defense, votes ...). Hypothesis then makes actions
near the listed ones (a field changed, dropped or added, a wrong type, ``True``
for ``1``) or arbitrary JSON, and any that is not listed must raise
``IllegalAction`` with a readable reason and leave the state untouched; the
same listed action sent by a seat that is not prompted, or by no seat at all,
is refused too.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import engine

from .catalogue import scenarios, seats_of
from .invariants import assert_refused, is_listed, listed_form
from .malformed import actions_near


@lru_cache(maxsize=1)
def sample_states() -> list[tuple[dict[str, Any], int]]:
    """(state, prompted seat) every few actions of one short game per scenario."""
    out: list[tuple[dict[str, Any], int]] = []
    for scenario in sorted(scenarios()):
        rng = random.Random(scenario)
        state = engine.new_game(scenario, seats_of(scenario), 77, {"end_turn": 1, "rounds": 2})
        step = 0
        while engine.outcome(state) is None:
            seat = int(engine.pending(state)[0]["seat"])
            legal = engine.legal_actions(state, seat)
            if step % 7 == 0:
                out.append((state, seat))
            state, _ = engine.apply(state, seat, legal[rng.randrange(len(legal))])
            step += 1
    return out


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
@given(data=st.data())
def test_unlisted_actions_are_refused_with_a_reason(data: st.DataObject) -> None:
    states = sample_states()
    state, seat = states[data.draw(st.integers(0, len(states) - 1), label="state")]
    legal = engine.legal_actions(state, seat)
    action = data.draw(actions_near(legal), label="action")
    if is_listed(legal, action):
        return
    assert_refused(state, seat, action)


@settings(max_examples=100, deadline=None, database=None)
@given(data=st.data())
def test_listed_actions_from_the_wrong_seat_are_refused(data: st.DataObject) -> None:
    states = sample_states()
    state, seat = states[data.draw(st.integers(0, len(states) - 1), label="state")]
    prompted = {int(p["seat"]) for p in engine.pending(state)}
    legal = engine.legal_actions(state, seat)
    action = data.draw(st.sampled_from(legal), label="action")
    seats = len(state["players"])
    wrong = data.draw(
        st.one_of(
            st.sampled_from([s for s in range(seats) if s not in prompted] or [-1]),
            st.sampled_from([-1, seats, 10**6, None, "0", 0.0, True]),
        ),
        label="seat",
    )
    if isinstance(wrong, int) and not isinstance(wrong, bool) and wrong in prompted:
        return
    if wrong in prompted and listed_form(wrong) in {listed_form(s) for s in prompted}:
        return
    assert_refused(state, wrong, action)
