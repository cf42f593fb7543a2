"""Bundles that trade (docs/rules.md 20.11-20.15): which offers and counters the
standard bot makes, and how it sizes them.

A bundle is worth something to each side (``Grand.worth``, in the evaluation's
units). The bot builds a few candidate bundles for a power from what the listed
template allows: terms (peace, non-aggression, an alliance with a trusted partner
against the leader), claims swapped where the area's owner, or the power beside it, values a
claim more than its holder (26.1: a claim to an owned area scores), a border area ceded for
peace when losing a war and asked for peace when winning one, an area bought where we
hold its claim (for talents, a pact or pledged votes), and pledged votes.
It then values each from both sides (the other side by our own rules, from that
seat's public view: ``Politics.as_seat``) and moves talents across (never tribute:
it cannot see whether it could pay it, 20.12) so that the other side keeps
``1 - greed`` of the surplus and we keep the rest.
A bundle is only offered when the other side, judged so, would accept it: never an
offer the bot would refuse if it were the one receiving it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.bots.grand import Grand

# An offer is accepted when it is worth more than this to the one receiving it.
ACCEPT = 0.05
# Offers are sized to leave the other side at least this much above ACCEPT.
MARGIN = 0.1
TALENT_VALUE = 0.22


def empty() -> dict[str, Any]:
    return {"talents": 0, "per_turn": 0, "areas": [], "claims": [], "votes": False}


def lasting(give: dict[str, Any], get: dict[str, Any], terms: list[str]) -> bool:
    return bool(
        give["per_turn"]
        or get["per_turn"]
        or give["votes"]
        or get["votes"]
        or set(terms) & {"non_aggression", "alliance"}
    )


def as_offer(
    give: dict[str, Any], get: dict[str, Any], terms: list[str], turns: int
) -> dict[str, Any]:
    """An offer action of these sides (its power left to the caller), the terms in the
    engine's order."""
    return {
        "type": "offer",
        "power": None,
        "give": give,
        "get": get,
        "terms": sorted(terms, key=("peace", "non_aggression", "alliance").index),
        "turns": turns,
    }


def fits(tpl: dict[str, Any], give: dict[str, Any], get: dict[str, Any], terms: list[str]) -> bool:
    """Within the template's ranges (20.11-20.13), and not empty."""
    for side, lim in ((give, tpl.get("give") or {}), (get, tpl.get("get") or {})):
        if side["talents"] > int(lim.get("talents") or 0) or side["talents"] < 0:
            return False
        if side["per_turn"] > int(lim.get("per_turn") or 0) or side["per_turn"] < 0:
            return False
        if not set(side["areas"]) <= set(lim.get("areas") or []):
            return False
        if not set(side["claims"]) <= set(lim.get("claims") or []):
            return False
    if not set(terms) <= set(tpl.get("terms") or []):
        return False
    return any(give.values()) or any(get.values()) or bool(terms)


def size(
    grand: Grand,
    other: int,
    tpl: dict[str, Any],
    give: dict[str, Any],
    get: dict[str, Any],
    terms: list[str],
    turns: int,
) -> tuple[dict[str, Any], float, float] | None:
    """Talents moved across a base bundle so that the other side is left ``1 - greed``
    of the surplus above what it needs to accept, the rest kept by us (issue 42: the
    dealer asks for the surplus its deal creates). Both sides are judged by what the
    bundle does to their chance of winning (``Grand.gain``): each side's worth less the
    other's, weighed by how much the other threatens to win. Returns the offer, its
    gain to us and to them; None when no such bundle fits, pays us, or binds us to a
    pact we would not keep (``Grand.sincere``)."""
    if not grand.sincere(terms, other):
        return None
    lo, hi = (tpl.get("turns") or [1, 1])[:2]
    give, get = dict(give), dict(get)
    keep = lasting(give, get, terms)
    turns = max(int(lo), min(int(hi), turns or int(hi))) if keep else 0
    mirror = grand.mirror(other)
    w_us, w_them = grand.rival_weight(other), mirror.rival_weight(grand.seat)

    def gains() -> tuple[float, float]:
        mine = grand.worth(give, get, terms, turns, other)
        theirs = mirror.worth(get, give, terms, turns, grand.seat)
        return mine - w_us * theirs, theirs - w_them * mine

    mine, theirs = gains()
    need = ACCEPT + MARGIN
    surplus = mine + theirs - need
    if surplus <= 0.1:
        return None
    target = need + (1.0 - grand.pol.mood.greed) * surplus
    # A talent we give is worth TALENT_VALUE to them and costs us as much, so it moves
    # their gain by TALENT_VALUE x (1 + w_them).
    shift = (target - theirs) / (TALENT_VALUE * (1.0 + w_them))  # talents we give (<0: ask)
    get_lim = int(((tpl.get("get") or {}).get("talents")) or 0)
    # Talents now, never tribute: a promise of tribute the treasury cannot keep at an
    # upkeep is a breach (20.12), and the bot cannot see its future income. Talents
    # asked are given up before talents are given, and the other way round.
    if shift > 0:
        add = math.ceil(shift)
        cut = min(get["talents"], add)
        get["talents"] -= cut
        give["talents"] += add - cut
    elif shift < 0:
        ask = math.floor(-shift)
        cut = min(give["talents"], ask)
        give["talents"] -= cut
        get["talents"] += max(0, min(ask - cut, get_lim - get["talents"]))
    if not fits(tpl, give, get, terms):
        return None
    mine, theirs = gains()
    if mine <= 0.0 or theirs < need:
        return None
    offer = as_offer(give, get, terms, turns)
    return offer, mine, theirs


def _towards(claims: list[str], taker: Grand, holder: Grand) -> list[str]:
    """Of ``claims`` (the holder's), at most two worth more to the taker than to the
    holder, the widest difference first."""
    gaps = [(holder.claim_worth(a) - taker.claim_worth(a), a) for a in claims]
    return [a for gap, a in sorted(gaps) if gap < 0][:2]


def candidates(
    grand: Grand, other: int, tpl: dict[str, Any]
) -> list[tuple[dict[str, Any], dict[str, Any], list[str], int]]:
    """Base bundles (our side, theirs, terms, game turns) worth sizing for ``other``."""
    pol = grand.pol
    allowed = list(tpl.get("terms") or [])
    hi = int((tpl.get("turns") or [1, 1])[-1])
    give_lim, get_lim = tpl.get("give") or {}, tpl.get("get") or {}
    # 26.1: a claim scores for the area's owner, and is likelier to for the power beside
    # the area (``Grand.claim_worth``): swap claims towards whoever values them more.
    mirror = grand.mirror(other)
    ask_claims = _towards(get_lim.get("claims") or [], grand, mirror)
    sell_claims = _towards(give_lim.get("claims") or [], mirror, grand)
    at_war = pol.at_war_with(other)
    near = pol.neighbours(other)
    out: list[tuple[dict[str, Any], dict[str, Any], list[str], int]] = []
    treaty: list[tuple[list[str], int]] = []
    if at_war and "peace" in allowed:
        treaty.append((["peace"], 0))
    if (near or at_war) and "non_aggression" in allowed:
        treaty.append((["non_aggression"], hi))
    if "alliance" in allowed and grand.partner_against_leader(other):
        treaty.append((["alliance"], hi))
    for terms, turns in treaty:
        out.append((empty(), empty(), terms, turns))
        if ask_claims or sell_claims:
            give, get = empty(), empty()
            give["claims"], get["claims"] = sell_claims, ask_claims
            out.append((give, get, terms, turns))
        if not at_war or terms != ["peace"]:
            give = empty()
            give["votes"] = True  # a pledge costs us less than it is worth to them
            out.append((give, empty(), terms, turns))
    if ask_claims or sell_claims:
        give, get = empty(), empty()
        give["claims"], get["claims"] = sell_claims, ask_claims
        out.append((give, get, [], 0))
    if at_war and "peace" in allowed and pol.bloc_strength(other) > pol.bloc_strength(grand.seat):
        # Losing a war: a border area the enemy wants, for peace (20.11).
        border = grand.border_areas(give_lim.get("areas") or [], other)
        if border:
            give = empty()
            give["areas"] = [border[0]]
            out.append((give, empty(), ["peace"], 0))
    claimed = grand.claimed_of(get_lim.get("areas") or [])
    if at_war and "peace" in allowed and pol.bloc_strength(grand.seat) > pol.bloc_strength(other):
        # Winning a war: an area of theirs for peace (20.11), one we claim first, else
        # the border area they would give up most easily.
        wanted = claimed or mirror.border_areas(get_lim.get("areas") or [], grand.seat)
        if wanted:
            get = empty()
            get["areas"] = [wanted[0]]
            out.append((empty(), get, ["peace"], 0))
    if claimed and not at_war:
        # An area we hold the claim to, bought: for talents, and where our treasury
        # cannot pay its price, for a pact or our pledged votes as well (issue 42: what
        # the buyer has to give is rarely the talents an area costs).
        for terms, turns in [([], 0), *treaty]:
            get = empty()
            get["areas"] = [claimed[0]]
            out.append((empty(), get, terms, turns))
        give, get = empty(), empty()
        give["votes"], get["areas"] = True, [claimed[0]]
        out.append((give, get, [], hi))
    return out
