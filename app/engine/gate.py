"""The gate every action passes: `ACTIONS`, the engine's one table of action
types (each type's handler, the prompts it answers, and who explains its
refusal); `check`, the one legality check (the action must be one
`legal_actions` lists, compared exactly, or an offer that fits a listed
template, 20.14); `diagnose`, the refusal in words, citing the rule (5.4, 5.5,
3.53, 6.6, 9.1, 16.11-16.15, 20.3-20.45).

`apply` and `apply_in_place` call `check`; services and bots call it through
`app.engine.check` rather than compare against `legal_actions` themselves, so
that everyone refuses exactly what the engine refuses."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.engine import grand, grand_offers
from app.engine.core import State, card_name, name, player
from app.engine.deck import petition_cost
from app.engine.diplomacy_phase import h_diplo
from app.engine.endeavours import base_cost, kinds_for
from app.engine.errors import IllegalAction
from app.engine.grand_actions import (
    MAX_REASON,
    answer_reason,
    h_answer_offer,
    h_cancel,
    h_offer,
    h_readmission,
    h_renounce,
    h_verdict,
)
from app.engine.legality import legal_of_type
from app.engine.parleys import h_call_parley, h_vote
from app.engine.prompts import pending
from app.engine.sequence import h_choose_slot, h_end_turn
from app.engine.turn_actions import (
    h_buy_off,
    h_defend,
    h_dismiss,
    h_draw,
    h_endeavour,
    h_petition,
    h_play,
    h_recruit,
    h_reduce_fort,
    h_remove_tie,
    h_tax,
    h_waive,
)

Handler = Callable[[State, int, dict[str, Any], list[dict[str, Any]]], None]
#: (state, seat, action, prompt kind) -> the refusal of an unlisted action of a type
#: that does answer the seat's prompt
Explainer = Callable[[State, int, dict[str, Any], str], IllegalAction]


def _no_years(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    if player(state, seat)["years_left"] <= 0:
        return IllegalAction("You have no years left this round.", "no_years")
    return _not_now(state, seat, action, kind)


def _no_petition(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    p = player(state, seat)
    cost = petition_cost(state, seat)
    if p["influence"] < cost:
        return IllegalAction(
            f"A petition now costs {cost} influence; you have {p['influence']}.", "no_influence"
        )
    return IllegalAction("Your deck has no card left to draw.", "empty_deck")


def _no_tax(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    p = player(state, seat)
    if p["tax_state"] == "closed":
        return IllegalAction(
            "Your taxation segment is over: all taxes are raised at once (16.14).", "tax_closed"
        )
    if action.get("area") in p["taxed"]:
        return IllegalAction("That area was already taxed this turn (16.15).", "taxed")
    return IllegalAction(
        "You may tax only your own connected areas, up to their social state (16.11-16.13).",
        "bad_tax",
    )


def _no_recruit(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    if player(state, seat)["recruited"]:
        return IllegalAction("You have already recruited this turn (6.6).", "recruited")
    return IllegalAction("You cannot afford that card, or there is no such slot.", "cannot_afford")


def _no_endeavour(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    p = player(state, seat)
    card = p["deck"]["hand"]
    k = action.get("kind")
    if k not in kinds_for(card):
        return IllegalAction(f"{card_name(card)} cannot undertake {k!r}.", "wrong_advisor")
    if not isinstance(action.get("talents"), int) or action["talents"] < 0:
        return IllegalAction("Talents must be a whole number, 0 or more.", "bad_talents")
    try:
        cost, _ = base_cost(
            state,
            seat,
            str(k),
            str(action.get("base")),
            str(action.get("target")),
            action.get("option"),
        )
    except (KeyError, TypeError):
        return IllegalAction("That base or target is not valid for this endeavour.", "bad_target")
    if cost + action["talents"] > p["talents"]:
        return IllegalAction(
            f"That costs {cost + action['talents']} talents; you have {p['talents']}.",
            "cannot_afford",
        )
    return IllegalAction("That base or target is not valid for this endeavour.", "bad_target")


def _no_diplo(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    bound = grand.bound_by_terms(state, seat)
    if action.get("move") == "join" and bound:
        ag = bound[0]
        partner = name(state, next(x for x in ag["parties"] if x != seat))
        return IllegalAction(
            f"You are bound by agreement {ag['id']} with {partner} (non-aggression): a junior "
            "partner shares its hegemon's wars, so a power so bound may not join a coalition. "
            "Offer to cancel the agreement first (3.53, 20.13, 20.3).",
            "bound",
        )
    return _not_now(state, seat, action, kind)


def _not_now(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    return IllegalAction("That action is not allowed now.", "illegal")


@dataclass(frozen=True)
class ActionType:
    """One row of `ACTIONS`."""

    handler: Handler
    #: the kinds of prompt (`pending`) an action of this type answers
    answers: frozenset[str]
    explain: Explainer = _not_now


def _row(handler: Handler, *answers: str, explain: Explainer = _not_now) -> ActionType:
    return ActionType(handler, frozenset(answers), explain)


#: type -> its handler, the prompts it answers, its refusal's explainer
ACTIONS: dict[str, ActionType] = {
    "vote": _row(h_vote, "vote"),
    "waive_tie": _row(h_waive, "request"),
    "diplo": _row(h_diplo, "request", "diplomacy", explain=_no_diplo),
    "defend": _row(h_defend, "defend"),
    "decline": _row(h_defend, "defend"),
    "choose_slot": _row(h_choose_slot, "initiative"),
    "endeavour": _row(h_endeavour, "advisor", explain=_no_endeavour),
    "petition": _row(h_petition, "advisor", explain=_no_petition),
    "dismiss": _row(h_dismiss, "advisor"),
    "play": _row(h_play, "advisor", "turn"),
    "draw": _row(h_draw, "turn", explain=_no_years),
    "tax": _row(h_tax, "turn", explain=_no_tax),
    "plunder": _row(h_tax, "turn", explain=_no_tax),
    "recruit": _row(h_recruit, "turn", explain=_no_recruit),
    "call_parley": _row(h_call_parley, "turn"),
    "remove_tie": _row(h_remove_tie, "turn"),
    "reduce_fort": _row(h_reduce_fort, "turn"),
    "buy_off": _row(h_buy_off, "turn"),
    "end_turn": _row(h_end_turn, "turn"),
    # grand diplomacy (20.14-20.45): its rules explain its refusals
    "offer": _row(h_offer, "request", "diplomacy", "turn", explain=grand_offers.diagnose),
    "cancel": _row(h_cancel, "diplomacy", "turn", explain=grand_offers.diagnose),
    "answer_offer": _row(h_answer_offer, "request", explain=grand_offers.diagnose),
    "verdict": _row(h_verdict, "request", explain=grand_offers.diagnose),
    "renounce": _row(h_renounce, "diplomacy", explain=grand_offers.diagnose),
    "readmission": _row(h_readmission, "turn", explain=grand_offers.diagnose),
}

#: type -> handler (the dispatch `flow` runs)
HANDLERS: dict[str, Handler] = {t: row.handler for t, row in ACTIONS.items()}


def answering(kind: str) -> list[str]:
    """The action types that answer a prompt of `kind`, sorted."""
    return sorted(t for t, row in ACTIONS.items() if kind in row.answers)


def diagnose(state: State, seat: int, action: dict[str, Any]) -> IllegalAction:
    """A reason a person can read for an action `legal_actions` does not list."""
    if state["over"]:
        return IllegalAction("The game is over.", "game_over")
    if type(seat) is not int or not 0 <= seat < len(state["players"]):
        return IllegalAction("There is no such seat in this game.", "bad_seat")
    prompts = [pr for pr in pending(state) if pr["seat"] == seat]
    if not prompts:
        waiting = ", ".join(sorted({name(state, pr["seat"]) for pr in pending(state)}))
        return IllegalAction(
            f"It is not your decision now; waiting for {waiting}.", "not_your_turn"
        )
    kind = prompts[0]["kind"]
    t = action.get("type")
    row = ACTIONS.get(t) if isinstance(t, str) else None
    if row is None or kind not in row.answers:
        return IllegalAction(
            f"You must answer the {kind} prompt first ({', '.join(answering(kind))}).",
            "wrong_prompt",
        )
    return row.explain(state, seat, action, kind)


def check_offer(
    state: State, seat: int, action: dict[str, Any], legal: list[dict[str, Any]]
) -> dict[str, Any]:
    """`check` for offers (20.14): the action as `apply` takes it, or the refusal."""
    listed = [a for a in legal if a.get("type") == "offer"]
    if not listed:
        raise diagnose(state, seat, action)
    for a in listed:
        if a.get("power") == action.get("power"):
            grand_offers.fits(a, action)
            return action
    raise IllegalAction("You cannot make an offer to that power now.", "no_offer")


def check(state: State, seat: int, action: Any) -> dict[str, Any]:
    """The action as `apply` works on it (a copy), or the `IllegalAction` that refuses
    it: the one legality check. An action is legal when `legal_actions` lists one equal
    to it type for type (``True`` is not ``1``), or, for an offer, when it fits the
    template listed for its power (20.14). Only the parts of `legal_actions` that can
    list an action of its type are worked out (`legality.legal_of_type`): the whole
    list was a third of an `apply` (issue 39)."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("An action must be an object with a 'type'.", "malformed")
    act = dict(action)
    if state.get("over"):
        raise IllegalAction("The game is over.", "game_over")
    kind = act.get("kind") if act["type"] == "endeavour" else None
    legal = legal_of_type(state, seat, act["type"], kind if isinstance(kind, str) else None)
    if act["type"] == "offer":
        return check_offer(state, seat, act, legal)
    if act["type"] == "answer_offer" and "reason" in act:  # 20.14: a refusal's reason
        try:
            answer_reason(act)
        except ValueError:
            raise IllegalAction(
                "A reason goes with a refusal only, in one line of at most "
                f"{MAX_REASON} characters (20.14).",
                "bad_reason",
            ) from None
        listed = {k: v for k, v in act.items() if k != "reason"}
        if listed not in legal:
            raise diagnose(state, seat, listed)
        return act
    key = json.dumps(act, sort_keys=True)  # type-exact: True is not 1
    if not any(a == act and json.dumps(a, sort_keys=True) == key for a in legal):
        raise diagnose(state, seat, act)
    return act
