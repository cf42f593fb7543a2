"""Stepping through a finished game, decision by decision, with nothing hidden.

Step k is the position after the first k actions of the log (step 0: the setup). It is
rebuilt from the nearest snapshot at or before k plus the log after it
(`play.state_before`), so any step costs at most `gamelog.SNAPSHOT_EVERY` applies.

Only once the game is over: until then a replay would show hands, draw piles and the
private lines of the log. After the end every seat's view may be chosen (whose hand
to look at) and every event is shown, private ones included.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app import engine
from app.services import lobby, moves, play
from app.services.errors import Conflict, Forbidden, Invalid
from app.store import log

OVER = ("finished", "aborted")
# How many lines of the log, up to the step, travel with it.
LOG_TAIL = 60


def replay_step(
    db: Session, game_id: int, user_id: int | None, step: int, seat: int | None = None
) -> dict[str, Any]:
    """The position after `step` actions, seen from `seat` (None: the public view), with
    the action that led to it and the log up to it. Same fields as the seat view, so the
    game page draws it; `replay` holds what is particular to the step."""
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, user_id):
        raise Forbidden("This game is private.")
    if game.status not in OVER or game.state is None:
        raise Conflict(
            "The replay opens once the game is over: until then it would show hidden cards.",
            status=game.status,
        )
    steps = game.last_action
    if not 0 <= step <= steps:
        raise Invalid(f"This game has steps 0 to {steps}.", field="step", steps=steps)
    seats = sorted(game.seats, key=lambda s: s.index)
    if seat is not None and not any(s.index == seat for s in seats):
        raise Invalid("There is no such seat in this game.", field="seat")
    state = play.state_before(db, game.id, step)
    action = log.action_at(db, game.id, step)
    rows = log.events_upto_action(db, game.id, step, LOG_TAIL)
    # Private lines are shown to all now, marked as once private.
    events = [
        {
            **r.payload,
            "seq": r.seq,
            "action_seq": r.action_seq,
            "to": None,
            "was_private": r.visible_to is not None,
        }
        for r in reversed(rows)
    ]
    return {
        **moves.game_fields(game, [lobby.seat_summary(s, game.scenario) for s in seats]),
        "version": step,
        "seat": seat,
        "view": engine.view(state, seat),
        "legal_actions": [],
        "prompts": engine.pending(state) if step < steps else [],
        "last_seq": rows[0].seq if rows else 0,
        "can_undo": False,
        "events": events,
        "replay": {
            "step": step,
            "steps": steps,
            "action": None
            if action is None
            else {"seat": action.seat, "action": action.action, "source": action.source},
            "new_events": [e for e in events if e["action_seq"] == step],
        },
    }
