"""Legality: `legal_actions` is the one source of what a seat may do now (every
rule that opens or closes an action is read here or in the phase module it
names); `default_action` is what a passed deadline does. The check of an
action against this list, and the refusal in words, are in `gate`."""

from __future__ import annotations

from typing import Any

from app.engine import grand_offers, memo, nomads, usurpers
from app.engine.core import State, card_type, owned, player
from app.engine.deck import next_draw_pile, petition_cost
from app.engine.defense import defense_cost
from app.engine.diplomacy_phase import diplomacy_actions
from app.engine.economy import tax_options
from app.engine.endeavours import endeavour_actions
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
        with memo.reading():
            return _legal_actions(state, seat)
    legal = entry.legal.get(seat)
    if legal is None:
        with memo.reading():
            legal = entry.legal[seat] = _legal_actions(state, seat)
    return legal[:]


def legal_of_type(
    state: State, seat: int, kind: str, endeavour: str | None = None
) -> list[dict[str, Any]]:
    """The legal actions of type ``kind`` (and maybe some of other types): what
    `gate.check` needs to tell whether one action is listed, without working out
    the parts of `legal_actions` that can list no action of that type (the offer
    templates of 20.14 when the action is a draw, say); for an endeavour of kind
    ``endeavour``, only that kind's (9.1). On a state whose list is remembered
    (`memo`), the whole list."""
    if type(seat) is not int or not 0 <= seat < len(state["players"]):
        return []
    entry = memo.tracked(state)
    if entry is not None and not entry.moving:
        legal = entry.legal.get(seat)
        if legal is not None:
            return legal
    with memo.reading():
        return _legal_actions(state, seat, kind, endeavour)


def _legal_actions(
    state: State, seat: int, only: str | None = None, endeavour: str | None = None
) -> list[dict[str, Any]]:
    """`legal_actions`; with ``only`` an action type, only the parts that can list
    an action of that type (each part below names the types it lists), and with
    ``endeavour`` only the endeavours of that kind."""

    def wanted(*types: str) -> bool:
        return only is None or only in types

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
            return grand_offers.request_actions(state, seat, prompts[0], counter=wanted("offer"))
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
    if kind == "diplomacy":  # diplo; 20.14, 20.3: offer, cancel, renounce
        return diplomacy_actions(state, seat, with_grand=wanted("offer", "cancel", "renounce"))
    if kind == "initiative":
        return [
            {"type": "choose_slot", "slot": i}
            for i, s in enumerate(state["initiative"]["slots"])
            if s is None
        ]
    if kind == "advisor":
        card = p["deck"]["hand"]
        if card_type(card) is not None and wanted("endeavour"):
            out += endeavour_actions(state, seat, endeavour)
        if next_draw_pile(p) and p["influence"] >= petition_cost(state, seat):
            out.append({"type": "petition"})
        out.append({"type": "dismiss"})
        if wanted("play"):
            out += holding_actions(state, seat, "drawn")
        return out
    # kind == "turn"
    if p["years_left"] > 0 and (p["deck"]["draw"] or p["deck"]["discard"]):
        out.append({"type": "draw"})
    if wanted("tax", "plunder"):
        out += tax_options(state, seat)
    if wanted("recruit"):
        out += recruit_options(state, seat)
    if wanted("play"):
        out += holding_actions(state, seat, "start")
    if wanted("call_parley"):
        out += parley_options(state, seat)
    if wanted("offer", "cancel", "readmission"):
        out += grand_offers.turn_actions(state, seat)  # 20.14, 20.45
    if wanted("buy_off"):
        out += usurpers.buy_off_options(state, seat)  # 17.56, 21.31
    if wanted("remove_tie"):
        for a, area in sorted(state["areas"].items()):
            if seat in area["ties"]:
                out.append({"type": "remove_tie", "area": a})  # 12.43
    if wanted("reduce_fort"):
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
