"""The one place the search bot steps a game state: the adapter to the engine.

Every state-stepping call of ``app/bots/strong.py`` goes through ``clone``,
``step`` and ``step_in_place``:

- ``step`` is the engine's public ``apply`` (copies the state, checks legality):
  used for the candidate move, on the sampled world the search owns;
- ``step_in_place`` plays a move on a state the search owns (a private copy) with
  the engine's ``apply_in_place``, which checks legality like ``apply`` but does not
  copy; ``clone`` is the engine's fast copier.
"""

from __future__ import annotations

from typing import Any

from app import engine

State = dict[str, Any]
Action = dict[str, Any]


def clone(state: State) -> State:
    """An independent deep copy of a plain-JSON state."""
    copied: State = engine.clone(state)  # the engine's own copier (app/engine/clone.py)
    return copied


def step(state: State, seat: int, action: Action) -> State:
    """The state after ``seat`` plays ``action`` (the given state is left as it was)."""
    new_state, _events = engine.apply(state, seat, action)
    return new_state


def step_in_place(state: State, seat: int, action: Action) -> None:
    """Play ``action`` (taken from ``engine.legal_actions(state, seat)``) on ``state``
    itself, through the engine's in-place path (no undo token: a playout never goes
    back). Only for a private copy: the state is changed."""
    engine.apply_in_place(state, seat, action, undoable=False)
