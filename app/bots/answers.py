"""Why a bot refuses an offer (docs/rules.md 20.14, 20.3; issue 40): one line from the
bot's own evaluation, sent with the refusal so that the power that offered learns what
would have been taken, or which record the bot will not deal with.

The reason is part of the bot's action (``{"type": "answer_offer", "answer": "refuse",
"reason": …}``): the engine checks it and tells it to the two parties only, as it does the
bundle, so a game with bots replays the same. The words come from the same figures the
answer came from (``Grand.answer_worth``, ``consent.lets_go``), never from another rule."""

from __future__ import annotations

import math
from typing import Any

from app.bots import bundles
from app.bots.board import num
from app.bots.consent import FAR_PEACE, _agreement, _left, keep_worth
from app.bots.grand import TALENT_VALUE, Grand, _side
from app.bots.politics import Politics
from app.engine.core import geo

Action = dict[str, Any]

#: the engine's bound on a reason (app/engine/grand_actions.MAX_REASON, 20.14)
MAX_REASON = 200


def with_reason(view: dict[str, Any], action: Action, temperament: str | None = None) -> Action:
    """``action`` with its reason when it refuses the offer made to us (20.14), else as is."""
    if action.get("type") != "answer_offer" or action.get("answer") != "refuse":
        return action
    off = (view.get("me") or {}).get("offer")
    if not isinstance(off, dict) or not isinstance(off.get("from"), int):
        return action
    pol = Politics(view, temperament=temperament)
    if off.get("kind") == "cancel":
        reason = cancel_reason(pol, off)
    else:
        reason = offer_reason(Grand(pol), off)
    return {**action, "reason": reason[:MAX_REASON]}


def _area_name(area: Any) -> str:
    row = geo().areas.get(str(area)) or {}
    return str(row.get("name") or area)


def _listed(items: list[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _talents(n: int) -> str:
    return f"{n} talent{'' if n == 1 else 's'}"


def offer_reason(grand: Grand, off: dict[str, Any]) -> str:
    """The record we will not deal with (a breaker we do not trust), or what we would
    need to take the offer: its shortfall in talents, from ``Grand.answer_worth``."""
    other = int(off["from"])
    trust = grand.pol.trust
    if trust.breaker(other) and trust.of(other) < 0.6:
        broken = [
            ag
            for ag in grand.view.get("agreements") or []
            if isinstance(ag, dict) and ag.get("status") == "broken" and ag.get("breaker") == other
        ]
        if broken:
            ag = broken[-1]
            return (
                f"it does not deal with a power that broke agreement {ag.get('id')} "
                f"(game turn {ag.get('ended')}) until its word is trusted again."
            )
        return "it does not deal with a power that defied a parley's verdict."
    give, get = _side(off.get("get")), _side(off.get("give"))
    terms = list(off.get("terms") or [])
    if not grand.sincere(terms, other):
        return "it does not sign a pact of peace it might not keep."
    value = grand.gain(give, get, terms, int(num(off.get("turns"))), other)
    need = bundles.ACCEPT
    wary = bundles.lasting(give, get, terms) and trust.of(other) < 1.0
    if wary:
        need += 0.6 * (1.0 - trust.of(other))
    short = need - value
    if short <= 0:
        return "it weighed the offer and chose to keep things as they are."
    # A talent more given to us gains us its worth and costs the offerer as much,
    # which counts for us by how far the offerer threatens to win (``Grand.gain``).
    per_talent = TALENT_VALUE * (1.0 + grand.rival_weight(other))
    talents = max(1, math.ceil(short / per_talent - 1e-9))
    items = [_area_name(a) for a in give["areas"]]
    items += [f"the claim to {_area_name(a)}" for a in give["claims"]]
    items += [_talents(int(num(give["talents"])))] if give["talents"] else []
    what = f"to give up {_listed(items)}" if items else "to take it"
    line = f"it would need {_talents(talents)} more {what}"
    held = num(
        ((grand.pol.players[other] if 0 <= other < len(grand.pol.players) else {}) or {}).get(
            "talents"
        ),
        -1,
    )
    if 0 <= held < talents + get["talents"]:
        line += ", more than the offerer holds"
    if wary:
        line += " (it asks more for what lasts of a partner it trusts less)"
    return line + "."


def cancel_reason(pol: Politics, off: dict[str, Any]) -> str:
    """20.3: keeping the agreement is still worth more to us than letting it go."""
    ag = _agreement(pol.view, off.get("agreement"))
    if ag is None:
        return "the agreement is no longer in force."
    kept = keep_worth(pol, ag) - FAR_PEACE * max(1, _left(pol, ag))
    talents = max(1, round(kept / TALENT_VALUE))
    return (
        f"agreement {ag.get('id')} is still worth about {_talents(talents)} to it "
        f"over its {_left(pol, ag)} game turn{'' if _left(pol, ag) == 1 else 's'} left."
    )
