"""Legality: `legal_actions` is the one source of what a seat may do now (every
rule that opens or closes an action is read here or in the phase module it
names); `diagnose` says in words why another action is refused, citing the
rule (5.4, 5.5, 6.6, 9.1, 16.11-16.15); `default_action` is what a passed
deadline does."""

from __future__ import annotations

import json
from typing import Any

from app.engine import grand, memo, nomads, usurpers
from app.engine.core import State, card_name, card_type, name, owned, player
from app.engine.deck import next_draw_pile, petition_cost
from app.engine.defense import defense_cost
from app.engine.diplomacy_phase import diplomacy_actions
from app.engine.economy import tax_options
from app.engine.endeavours import base_cost, endeavour_actions, kinds_for
from app.engine.errors import IllegalAction
from app.engine.fate import holding_actions
from app.engine.market import recruit_options
from app.engine.parleys import parley_options
from app.engine.prompts import pending
from app.engine.rules import MAX_EXTRA_TALENTS


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """Every action the seat may take now. On a state driven in place
    (`apply_in_place`, `clone`), the list is computed once per position and
    kept outside the state (`memo`); callers get their own list of the same
    action dicts, which they must not change."""
    if type(seat) is not int or not 0 <= seat < len(state["players"]):
        return []
    entry = memo.tracked(state)
    if entry is None or entry.moving:
        with memo.scope():
            return _legal_actions(state, seat)
    legal = entry.legal.get(seat)
    if legal is None:
        with memo.scope():
            legal = entry.legal[seat] = _legal_actions(state, seat)
    return legal[:]


def _legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    prompts = [pr for pr in pending(state) if pr["seat"] == seat]
    if not prompts:
        return []
    kind = prompts[0]["kind"]
    p = player(state, seat)
    out: list[dict[str, Any]] = []
    if kind == "vote":
        return [{"type": "vote", "choice": c} for c in ("yes", "no", "abstain")]
    if kind == "request":
        if prompts[0]["request"] in ("offer", "verdict"):
            return grand.request_actions(state, seat, prompts[0])
        if prompts[0]["request"] == "waive_tie":
            area = prompts[0]["area"]
            return [
                {"type": "waive_tie", "area": area, "waive": True},
                {"type": "waive_tie", "area": area, "waive": False},
            ]
        power = state["players"][prompts[0]["from"]]["power"]
        what = prompts[0]["request"]  # peace | join
        return [
            {"type": "diplo", "move": f"accept_{what}", "power": power},
            {"type": "diplo", "move": f"reject_{what}", "power": power},
        ]
    if kind == "defend" and nomads.pending_raid(state):
        return nomads.defend_actions(state, seat)  # 24.13
    if kind == "defend":
        it = state["interrupt"]
        cost = defense_cost(state, seat, it["action"]["target"]) or 1
        top = max(0, min(MAX_EXTRA_TALENTS, p["talents"] - cost))
        return [{"type": "defend", "talents": t} for t in range(top + 1)] + [{"type": "decline"}]
    if kind == "diplomacy":
        return diplomacy_actions(state, seat)
    if kind == "initiative":
        return [
            {"type": "choose_slot", "slot": i}
            for i, s in enumerate(state["initiative"]["slots"])
            if s is None
        ]
    if kind == "advisor":
        card = p["deck"]["hand"]
        if card_type(card) is not None:
            out += endeavour_actions(state, seat)
        if next_draw_pile(p) and p["influence"] >= petition_cost(state, seat):
            out.append({"type": "petition"})
        out.append({"type": "dismiss"})
        out += holding_actions(state, seat, "drawn")
        return out
    # kind == "turn"
    if p["years_left"] > 0 and (p["deck"]["draw"] or p["deck"]["discard"]):
        out.append({"type": "draw"})
    out += tax_options(state, seat)
    out += recruit_options(state, seat)
    out += holding_actions(state, seat, "start")
    out += parley_options(state, seat)
    out += grand.turn_actions(state, seat)  # 20.14, 20.45
    out += usurpers.buy_off_options(state, seat)  # 17.56, 21.31
    for a, area in sorted(state["areas"].items()):
        if seat in area["ties"]:
            out.append({"type": "remove_tie", "area": a})  # 12.43
    for a in owned(state, seat):
        if state["areas"][a]["fort"]:
            out.append({"type": "reduce_fort", "area": a})  # 14.43
    out.append({"type": "end_turn"})
    return out


def default_action(state: State, prompt: dict[str, Any]) -> dict[str, Any]:
    """What a passed deadline does: pass, decline, abstain, dismiss, end the turn."""
    kind = prompt.get("kind")
    seat = int(prompt.get("seat", -1))
    legal = legal_actions(state, seat)
    prefs: list[dict[str, Any]] = []
    if kind == "vote":
        prefs = [{"type": "vote", "choice": "abstain"}]
    elif kind == "request":
        prefs = [
            a
            for a in legal
            if a.get("waive") is False
            or str(a.get("move", "")).startswith("reject_")
            or a.get("answer") == "refuse"
            or a.get("comply") is True
        ]
    elif kind == "defend":
        prefs = [{"type": "decline"}]
    elif kind == "diplomacy":
        prefs = [{"type": "diplo", "move": "pass"}]
    elif kind == "advisor":
        prefs = [{"type": "dismiss"}]
    elif kind == "turn":
        prefs = [{"type": "end_turn"}]
    for a in prefs:
        if a in legal:
            return a
    if legal:
        return legal[0]
    raise IllegalAction("There is nothing to decide for that prompt.", "no_prompt")


def _norm(action: Any) -> dict[str, Any]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("An action must be an object with a 'type'.", "malformed")
    return dict(action)


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
    t = action.get("type")
    kind = prompts[0]["kind"]
    p = player(state, seat)
    expected = {
        "vote": {"vote"},
        "request": {"waive_tie", "diplo", "answer_offer", "verdict", "offer"},
        "defend": {"defend", "decline"},
        "diplomacy": {"diplo", "offer", "cancel", "renounce"},
        "initiative": {"choose_slot"},
        "advisor": {"endeavour", "petition", "dismiss", "play"},
        "turn": {
            "draw",
            "tax",
            "plunder",
            "recruit",
            "play",
            "call_parley",
            "remove_tie",
            "reduce_fort",
            "buy_off",
            "end_turn",
            "offer",
            "cancel",
            "readmission",
        },
    }[kind]
    if t not in expected:
        return IllegalAction(
            f"You must answer the {kind} prompt first ({', '.join(sorted(expected))}).",
            "wrong_prompt",
        )
    if t in grand.ACTION_TYPES:
        return grand.diagnose(state, seat, action, kind)
    bound = grand.bound_by_terms(state, seat)
    if t == "diplo" and action.get("move") == "join" and bound:
        ag = bound[0]
        partner = name(state, next(x for x in ag["parties"] if x != seat))
        return IllegalAction(
            f"You are bound by agreement {ag['id']} with {partner} (non-aggression): a junior "
            "partner shares its hegemon's wars, so a power so bound may not join a coalition. "
            "Offer to cancel the agreement first (3.53, 20.13, 20.3).",
            "bound",
        )
    if t == "draw" and p["years_left"] <= 0:
        return IllegalAction("You have no years left this round.", "no_years")
    if t == "petition":
        cost = petition_cost(state, seat)
        if p["influence"] < cost:
            return IllegalAction(
                f"A petition now costs {cost} influence; you have {p['influence']}.", "no_influence"
            )
        return IllegalAction("Your deck has no card left to draw.", "empty_deck")
    if t in ("tax", "plunder"):
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
    if t == "recruit":
        if p["recruited"]:
            return IllegalAction("You have already recruited this turn (6.6).", "recruited")
        return IllegalAction(
            "You cannot afford that card, or there is no such slot.", "cannot_afford"
        )
    if t == "endeavour":
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
            return IllegalAction(
                "That base or target is not valid for this endeavour.", "bad_target"
            )
        if cost + action["talents"] > p["talents"]:
            return IllegalAction(
                f"That costs {cost + action['talents']} talents; you have {p['talents']}.",
                "cannot_afford",
            )
        return IllegalAction("That base or target is not valid for this endeavour.", "bad_target")
    return IllegalAction("That action is not allowed now.", "illegal")


def check_offer(
    state: State, seat: int, action: dict[str, Any], legal: list[dict[str, Any]]
) -> dict[str, Any]:
    """`_check` for offers: the action as `apply` takes it, or the refusal."""
    listed = [a for a in legal if a.get("type") == "offer"]
    if not listed:
        raise diagnose(state, seat, action)
    for a in listed:
        if a.get("power") == action.get("power"):
            grand.fits(a, action)
            return action
    raise grand._bad("You cannot make an offer to that power now.", "no_offer")


def _check(state: State, seat: int, action: Any) -> dict[str, Any]:
    """The action as `apply` works on it, or the `IllegalAction` that refuses it."""
    act = _norm(action)
    if state.get("over"):
        raise IllegalAction("The game is over.", "game_over")
    legal = legal_actions(state, seat)
    if act["type"] == "offer":  # 20.14: any offer that fits a listed template
        return check_offer(state, seat, act, legal)
    key = json.dumps(act, sort_keys=True)  # type-exact: True is not 1
    if not any(a == act and json.dumps(a, sort_keys=True) == key for a in legal):
        raise diagnose(state, seat, act)
    return act
