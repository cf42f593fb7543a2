"""Random legal play through a whole game, checking the engine at every step.

At every state of the game (the first included):

- the invariants of ``invariants.check_all``;
- every prompted seat has at least one legal action, every other seat none;
- the deadline's ``default_action`` for each prompt is one of the listed actions
  (a probe: on ``probe_rate`` of the states);
- ``probe`` legal actions (besides the one played) are applied to the state:
  each must be accepted;
- one corrupted action (``malformed.mutate``) is refused with a reason when it
  is not listed, and the prompted seat's listed action is refused from a seat
  that is not prompted;
- none of this changes the state (``apply`` never mutates its input);

(``probe_rate`` < 1 does the acceptance/refusal probes on that share of the
states only, to make long runs affordable; the invariants are checked at every
state regardless.)

then a legal action is chosen uniformly and played. The action log is kept so
the caller can replay the game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from app import engine
from app.services import gamelog

from .invariants import assert_refused, canon, check_all, is_listed, listed_form
from .malformed import mutate

MAX_ACTIONS = 100_000


@dataclass
class Walk:
    scenario: str
    seats: list[str]
    seed: int
    options: dict[str, Any] | None
    log: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    final: dict[str, Any] | None = None
    states: int = 0


def play_random(
    scenario: str,
    seats: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
    probe: int = 1,
    corrupt: bool = True,
    invariants: bool = True,
    probe_rate: float = 1.0,
) -> Walk:
    rng = random.Random(seed * 1_000_003 + 11)
    walk = Walk(scenario, list(seats), seed, options)
    state = engine.new_game(scenario, list(seats), seed, options)
    first = state
    where = f"{scenario} seed {seed} options {options}"
    while engine.outcome(state) is None:
        assert len(walk.log) < MAX_ACTIONS, f"{where}: no end after {MAX_ACTIONS} actions"
        walk.states += 1
        step = f"{where} action {len(walk.log)}"
        if invariants:
            try:
                check_all(state, first)
            except AssertionError as exc:
                raise AssertionError(f"{step}: {exc}") from exc
        prompts = engine.pending(state)
        assert prompts, f"{step}: the game is not over and nobody is prompted"
        prompted = sorted({int(p["seat"]) for p in prompts})
        seat = prompted[0]
        legal = engine.legal_actions(state, seat)
        assert legal, f"{step}: seat {seat} prompted ({prompts[0].get('kind')}) with no action"
        probing = probe_rate >= 1.0 or rng.random() < probe_rate
        for prompt in prompts if probing else ():
            fallback = engine.default_action(state, prompt)
            options = (
                legal if prompt["seat"] == seat else engine.legal_actions(state, prompt["seat"])
            )
            assert listed_form(fallback) in {listed_form(a) for a in options}, (
                f"{step}: default_action {fallback} for the {prompt.get('kind')} prompt of seat "
                f"{prompt['seat']} is not listed"
            )
        if (probe or corrupt) and probing:
            before = gamelog.dumps(state)  # engine.dumps byte for byte, ten times faster
            for other in range(len(seats)):
                if other not in prompted:
                    assert engine.legal_actions(state, other) == [], (
                        f"{step}: seat {other} is not prompted but has legal actions"
                    )
            for candidate in rng.sample(legal, k=min(probe, len(legal))):
                try:
                    engine.apply(state, seat, candidate)
                except Exception as exc:
                    raise AssertionError(
                        f"{step}: listed action {canon(candidate)} refused: {exc!r}"
                    ) from exc
            if corrupt:
                bad = mutate(rng.choice(legal), rng)
                if not is_listed(legal, bad):
                    try:
                        assert_refused(state, seat, bad, unchanged=False)
                    except AssertionError as exc:
                        raise AssertionError(f"{step}: {exc}") from exc
                outsiders = [s for s in range(len(seats)) if s not in prompted]
                if outsiders:
                    assert_refused(state, rng.choice(outsiders), legal[0], unchanged=False)
                assert_refused(state, rng.choice([-1, len(seats), 99]), legal[0], unchanged=False)
            assert gamelog.dumps(state) == before, f"{step}: apply mutated its input"
        action = legal[rng.randrange(len(legal))]
        state, events = engine.apply(state, seat, action)
        assert isinstance(events, list), f"{step}: apply returned {type(events)} events"
        walk.log.append((seat, action))
    if invariants:
        check_all(state, first)
    walk.final = state
    return walk
