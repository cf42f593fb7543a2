"""The one place the search bot steps a game state: the adapter to the engine.

Every state-stepping call of ``app/bots/strong.py`` goes through ``clone``,
``step`` and ``step_in_place``:

- ``step`` is the engine's public ``apply`` (copies the state, checks legality):
  used for the candidate move, on the sampled world the search owns;
- ``step_in_place`` plays a move the engine has just listed as legal directly on
  a state the search owns (a private copy), with the engine's own handler and
  ``advance`` — what ``engine.apply`` does after its copy and its legality check.
  When the engine offers ``apply_in_place`` / ``undo``, this is the line to change.
"""

from __future__ import annotations

import marshal
from typing import Any

from app import engine
from app.engine import flow

State = dict[str, Any]
Action = dict[str, Any]


def clone(state: State) -> State:
    """An independent deep copy of a plain-JSON state."""
    copied: State = marshal.loads(marshal.dumps(state))  # plain JSON data: exact and fast
    return copied


def step(state: State, seat: int, action: Action) -> State:
    """The state after ``seat`` plays ``action`` (the given state is left as it was)."""
    new_state, _events = engine.apply(state, seat, action)
    return new_state


def step_in_place(state: State, seat: int, action: Action) -> None:
    """Play ``action`` (taken from ``engine.legal_actions(state, seat)``) on ``state``
    itself. Only for a private copy: the state is changed."""
    events: list[dict[str, Any]] = []
    flow.HANDLERS[action["type"]](state, seat, dict(action), events)
    flow.advance(state, events)
