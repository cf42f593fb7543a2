"""The public dispatch of the engine: `apply` (on a copy), `apply_in_place` and
`undo` pass an action through the gate (`gate.check`: it must be one
`legal_actions` lists) and run its handler from `HANDLERS` (`gate.ACTIONS`,
the one table of action types), then `advance` the game to the next decision.

The rules live in modules named for their part of docs/rules.md:

- `setup` (2): `new_game`.
- `sequence` (3-4, 5.10, 26): game turns, rounds, initiative, player turns, upkeep, the end.
- `diplomacy_phase` (3.2-3.5, 21.2): the diplomatic phase's moves and handler.
- `turn_actions` (5, 6.6, 9.1, 12.4, 13, 14.43, 16, 19.4): the handlers of a player's turn.
- `parleys` (20, 18.2): calling, voting and resolving parleys.
- `grand_actions` (20.14-20.45): grand diplomacy's handlers; its rules are in `grand`.
- `prompts`: `pending`. `legality`: `legal_actions`, `default_action`. `gate`: `ACTIONS`,
  `check`, `diagnose`.
- Mechanisms below the phases: `endeavours` (8-15, 22.2), `defense` (13), `economy`
  (16, 17), `usurpers` and `usurper_records` (17.5x, 19.34), `nomads` (24), `fate`
  (19), `grand` (20.1-20.45, 22.1), `ownership` (7.4, 18), `exile` (21.1, 7.52), `market` (6.5-6.8), `deck` (5),
  `scoring` (26), `world`, `core`, `rules`.

docs/engine-contract.md ("Modules") has the whole map and the layering rule.

Names other code imported from here before the split are re-exported."""

from __future__ import annotations

from typing import Any

from app.engine import memo
from app.engine.clone import copy_state
from app.engine.core import State
from app.engine.exile import court_lost
from app.engine.gate import HANDLERS, check, diagnose
from app.engine.legality import default_action, legal_actions
from app.engine.parleys import (
    parley_options,
    parley_weight,
    resolve_parley,
    start_parley,
)
from app.engine.prompts import pending
from app.engine.sequence import (
    advance,
    begin_player_turn,
    current_picker,
    end_player_turn,
    end_round,
    finish,
    start_game_turn,
    start_round,
    turn_outcome,
    upkeep,
)
from app.engine.setup import SCHEMA, geo_counters, new_game


def apply(state: State, seat: int, action: Any) -> tuple[State, list[dict[str, Any]]]:
    act = check(state, seat, action)
    # a card is never changed, only moved; an area record is copied when first changed
    st = copy_state(state, share_cards=True, share_areas=True)
    entry = memo.tracked(state)
    if entry is not None:
        entry.owns_map = False  # its map's records are the new state's too now
    events: list[dict[str, Any]] = []
    with memo.scope(), memo.areas_on_write(st):
        HANDLERS[act["type"]](st, seat, act, events)
        advance(st, events)
    return st, events


def apply_in_place(
    state: State, seat: int, action: Any, *, undoable: bool = True
) -> tuple[memo.Undo | None, list[dict[str, Any]]]:
    """`apply` on the state itself, for bots and search (docs/engine-contract.md,
    "In place"). Returns ``(token, events)``: ``undo(state, token)`` puts the
    state back exactly as it was; with ``undoable=False`` the token is ``None``
    and nothing is kept (a bot playing on, a playout from a `clone`). The
    action is checked exactly as `apply` checks it; an illegal one raises
    `IllegalAction` and leaves the state untouched. The events are detached
    copies: later moves never change them."""
    act = check(state, seat, action)
    entry = memo.track(state)
    token = memo.Undo(state, entry) if undoable else None
    entry.moved()
    if token is not None:
        token.stamp_after = entry.stamp
    events: list[dict[str, Any]] = []
    try:
        entry.moving = True
        with memo.scope():
            if entry.owns_map:  # a clone's playout: nobody else holds its map's records
                HANDLERS[act["type"]](state, seat, act, events)
                advance(state, events)
            else:  # shared with the state an `apply` made it from, or an undo token's:
                with memo.areas_on_write(state):  # each is copied when first changed
                    HANDLERS[act["type"]](state, seat, act, events)
                    advance(state, events)
        entry.moving = False
    except BaseException:
        entry.moving = False
        if token is not None:
            memo.restore(state, token)
        else:
            memo.forget(state)  # half applied: no memo may trust it now
        raise
    return token, memo.detach(events)


def undo(state: State, token: memo.Undo) -> None:
    """Take back the `apply_in_place` that gave ``token``: the state is again,
    key for key, what it was before (the same `state_hash`). Tokens are taken
    back last first, each once; anything else raises `EngineError`."""
    memo.restore(state, token)


__all__ = [
    "new_game",
    "pending",
    "legal_actions",
    "apply",
    "apply_in_place",
    "undo",
    "default_action",
    # re-exported for code that imported them from here before the split
    "SCHEMA",
    "advance",
    "begin_player_turn",
    "court_lost",
    "current_picker",
    "diagnose",
    "end_player_turn",
    "end_round",
    "finish",
    "geo_counters",
    "parley_options",
    "parley_weight",
    "resolve_parley",
    "start_game_turn",
    "start_parley",
    "start_round",
    "turn_outcome",
    "upkeep",
]
