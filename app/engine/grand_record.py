"""The public record of grand diplomacy that the agreements do not hold: offers
refused or countered (20.14-20.15: who refused whom, never the bundle) and
verdicts defied (20.41/20.43). Every fact is public (its event is), so the view
shows the record whole; the bots read it for trust and for never repeating a
refused offer in the same game turn (docs/bots.md).

It lives in ``state["grand"]["record"]``, made on first use (a game with no such
fact, and an older saved game, has none)."""

from __future__ import annotations

from typing import Any

from app.engine.clone import copy_json
from app.engine.core import State


def remember(state: State, fact: str, **who: int) -> None:
    """Add a fact (``refused``, ``countered``: ``from`` the offerer, ``to`` who answered;
    ``defied``: ``seat``), dated by game turn and round."""
    grand = state["grand"]
    grand.setdefault("record", []).append(
        {"fact": fact, **who, "turn": state["turn"], "round": state["round"]}
    )


def record_view(state: State) -> list[dict[str, Any]]:
    grand = state.get("grand") or {}
    out: list[dict[str, Any]] = copy_json(list(grand.get("record") or []))
    return out


def refusals_view(state: State) -> list[dict[str, int]]:
    """The offers refused this game turn, as {from, to} (public, 20.14): a bot does
    not make one again before the next game turn (docs/bots.md)."""
    out: list[dict[str, int]] = []
    for fact in (state.get("grand") or {}).get("record") or []:
        if fact["fact"] == "refused" and fact["turn"] == state["turn"]:
            pair = {"from": fact["from"], "to": fact["to"]}
            if pair not in out:
                out.append(pair)
    return out
