"""Cancelling an agreement by consent, for the standard bot (docs/rules.md 20.3):
what an agreement in force is still worth to each party, whether to offer its
cancellation, and whether to accept one.

An agreement is worth to a party what its lasting items still bring over the game
turns it has left (tribute, pledged votes, non-aggression), valued as a new bundle
would be (``Grand.worth``), less what it bars: votes pledged by an accursed partner
are worth nothing (22.12), and non-aggression keeps a threatened power out of the
coalition it would join (3.53, ``Grand.barred_shelter``). The bot offers to cancel when keeping the agreement
costs it and the partner, judged by the same rule from its seat, would let it go (it
is worth no more to it than a pact with a far-away power): the case where it no
longer serves both, so the offer is likely taken and worth the move. It accepts a
cancellation when keeping the agreement is worth no more than that to it.
"""

from __future__ import annotations

from typing import Any

from app.bots.board import num
from app.bots.grand import Grand
from app.bots.politics import Politics

Action = dict[str, Any]

LASTING = ("non_aggression", "alliance")
OFFER_WHEN = -0.1  # keeping it costs us at least this much ...
FAR_PEACE = 0.1  # ... and is worth to the partner no more than peace with a far-away power
OFFER_BASE = 0.55  # just above passing (0.5): a cancellation that serves both is worth a move


def _agreement(view: dict[str, Any], ident: Any) -> dict[str, Any] | None:
    for ag in view.get("agreements") or []:
        if isinstance(ag, dict) and ag.get("id") == ident and ag.get("status") == "in_force":
            return ag
    return None


def _left(pol: Politics, ag: dict[str, Any]) -> int:
    """The game turns ``ag`` is still in force, this one included (20.12)."""
    return max(0, int(num(ag.get("expires"))) - int(num(pol.view.get("turn"))) + 1)


def lets_go(pol: Politics, ag: dict[str, Any]) -> bool:
    """Whether ``pol``'s seat would consent to cancel ``ag``."""
    return keep_worth(pol, ag) <= FAR_PEACE * max(1, _left(pol, ag)) + 0.05


def keep_worth(pol: Politics, ag: dict[str, Any]) -> float:
    """What keeping ``ag`` to its expiry is worth to ``pol``'s seat (20.12)."""
    seat = pol.seat
    parties = [int(p) for p in ag.get("parties") or []]
    if seat not in parties or len(parties) != 2:
        return 0.0
    other = parties[0] if parties[1] == seat else parties[1]
    left = _left(pol, ag)
    mine = {"talents": 0, "per_turn": 0, "areas": [], "claims": [], "votes": False}
    theirs = dict(mine)
    for t in ag.get("tribute") or []:
        if t.get("payer") == seat:
            mine["per_turn"] = int(num(t.get("amount")))
        elif t.get("payee") == seat:
            theirs["per_turn"] = int(num(t.get("amount")))
    accursed = {s for s, p in enumerate(pol.players) if p.get("accursed")}
    for v in ag.get("votes") or []:  # 22.12: the accursed vote in no parley
        if v.get("pledger") == seat and seat not in accursed:
            mine["votes"] = True
        elif v.get("for") == seat and v.get("pledger") not in accursed:
            theirs["votes"] = True
    terms = [t for t in ag.get("terms") or [] if t in LASTING]
    if "alliance" in terms:  # its pledges are valued above, one by one
        terms = ["non_aggression"]
    return Grand(pol).worth(mine, theirs, terms, left, other)


def _partner(pol: Politics, other: int) -> Politics:
    """The partner's judgement, by our rules from its seat (public facts only)."""
    return Politics({**pol.view, "me": {"seat": other}}, pol.aggressive)


def score_cancel(pol: Politics, action: Action) -> float:
    """Offer to cancel when it serves both: it costs us, and the partner lets it go."""
    ag = _agreement(pol.view, action.get("agreement"))
    if ag is None:
        return -1.0
    ours = keep_worth(pol, ag)
    if ours > OFFER_WHEN:
        return -1.0
    other = next(int(p) for p in ag["parties"] if p != pol.seat)
    if pol.trust.refused_now(other):
        return -1.0  # it refused us this game turn: not asked again (issue 26)
    if not lets_go(_partner(pol, other), ag):
        return -1.0  # it would refuse: the move is wasted
    return OFFER_BASE - ours


def score_cancel_answer(pol: Politics, action: Action) -> float:
    """Accept a cancellation when keeping the agreement is worth nothing to us."""
    off = (pol.view.get("me") or {}).get("offer") or {}
    ag = _agreement(pol.view, off.get("agreement"))
    let_go = ag is None or lets_go(pol, ag)
    if action.get("answer") == "accept":
        return 1.0 if let_go else -0.5
    return 0.0 if let_go else 0.5
