"""The rules engine of Imperial Glory: pure, deterministic, plain JSON state.

See docs/engine-contract.md for the seam and docs/rules.md for the rules.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from app.engine import memo
from app.engine.clone import copy_state
from app.engine.content import active, load_content, set_active, using
from app.engine.errors import BadSetup, ContentMismatch, EngineError, IllegalAction, UnknownScenario
from app.engine.flow import (
    apply,
    apply_in_place,
    default_action,
    legal_actions,
    new_game,
    pending,
    undo,
)
from app.engine.gate import check
from app.engine.grand_offers import offer_fits
from app.engine.memo import Undo
from app.engine.scoring import outcome, score
from app.engine.seat_view import SeatView, seat_view
from app.engine.view import (
    PUBLIC_KEYS,
    explain,
    private_inputs,
    private_view,
    public_inputs,
    public_parts,
    view,
)

GameState = dict[str, Any]
Action = dict[str, Any]


def dumps(state: GameState) -> str:
    """Canonical JSON: sorted keys, no spaces."""
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> GameState:
    try:
        state: GameState = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise EngineError(f"This is not a saved game: {exc}.") from exc
    if not isinstance(state, dict) or "players" not in state:
        raise EngineError("This is not a saved game.")
    if state.get("content_hash") != active().hash:
        raise ContentMismatch("This game was saved with another content pack.")
    return state


def clone(state: GameState) -> GameState:
    """A deep copy of a state, by its known layout (several times faster than
    ``copy.deepcopy``), ready to be driven in place with `apply_in_place`:
    its legal actions are computed once per position."""
    copy = copy_state(state)
    memo.track(copy).owns_map = True  # a deep copy: its map's records are its own
    return copy


def freeze(state: GameState) -> None:
    """Promise that `state` will never change again (a server's committed position,
    read by many threads): the engine then computes its legal actions, lasting effects
    and owned areas once and reuses them until `thaw`. Moving it in place thaws it."""
    memo.freeze(state)


def thaw(state: GameState) -> None:
    """Forget what was remembered about a frozen state (its holder lets go of it)."""
    memo.thaw(state)


def state_hash(state: GameState) -> str:
    return hashlib.sha256(dumps(state).encode()).hexdigest()


def replay(
    scenario_id: str,
    seats: list[str],
    seed: int,
    log: list[tuple[int, Action]] | list[list[Any]],
    options: dict[str, Any] | None = None,
) -> GameState:
    state = new_game(scenario_id, seats, seed, options)
    for seat, action in log:
        state, _ = apply(state, int(seat), action)
    return state


__all__ = [
    "BadSetup",
    "ContentMismatch",
    "EngineError",
    "IllegalAction",
    "PUBLIC_KEYS",
    "SeatView",
    "UnknownScenario",
    "Undo",
    "apply",
    "apply_in_place",
    "check",
    "clone",
    "default_action",
    "dumps",
    "explain",
    "freeze",
    "legal_actions",
    "load_content",
    "loads",
    "new_game",
    "offer_fits",
    "outcome",
    "pending",
    "private_inputs",
    "private_view",
    "public_inputs",
    "public_parts",
    "replay",
    "score",
    "seat_view",
    "set_active",
    "state_hash",
    "thaw",
    "undo",
    "using",
    "view",
]
