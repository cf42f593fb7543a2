"""The one place the search bot steps a game state: the adapter to the engine.

Every state-stepping call of ``app/bots/strong.py`` goes through ``clone`` and
``step``. Today they use ``engine.apply`` (which copies the state and checks
legality); when the engine offers ``clone`` / ``apply_in_place`` / ``undo``,
only this module changes.
"""

from __future__ import annotations

import marshal
from typing import Any

from app import engine

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
