"""Grand diplomacy for the standard bot (docs/rules.md 20): what a bundle is worth
to us, which offers to make, which to accept, when to keep or break an agreement,
how to vote in 20.41-20.45 parleys and whether to bow to a verdict.

It reads only the seat's view (public board, agreements in force, the offer
pending to us) through the seat's ``Judgement`` (``politics.Politics``). Values are in the victory-point-ish units
of ``evaluate.py``.

- **A bundle's worth**: talents at ``TALENT_VALUE``; an area at its population
  (+2 with our claim, +3 for a court); a claim at 2 when we own the area, else
  0.5; tribute as talents over its turns; pledged votes a little; peace,
  non-aggression and alliance by the balance of strength: worth the border we
  would risk to a stronger neighbour, costly when we are the stronger one and
  eye its border.
- **Accept** an offer when its worth to us is positive; never counter.
- **Offer**: to a stronger neighbour or enemy, non-aggression (or peace) for as
  long as allowed, with a few talents, or tribute when it is far stronger; never
  again in the same game turn to a power that refused us.
- **Keep or break**: renounce an agreement only when what it still costs us
  (tribute owed) is more than the expected price of being accursed.
- **Votes**: as pledged; otherwise against the breaker unless he is ours, for
  readmitting a weaker power and against the leader.
- **Verdicts**: return the area unless it is worth more than the curse.
"""

from __future__ import annotations

from typing import Any, Protocol

from app.bots.board import area_map, num

Action = dict[str, Any]

TALENT_VALUE = 0.22
VOTES_VALUE = 0.25  # a partner's pledged votes, per game turn
CLAIM_OWNED_VALUE = 2.0  # 26.1: an owned area with our claim scores 2 more
CLAIM_VALUE = 0.5
ACCURSED_BASE = 2.0  # 22.11: -2 on every rating and +2 on every rebellion value
ACCURSED_PER_TURN = 1.0
SAFETY_SHARE = 0.35  # of the border a stronger neighbour could take from us


def _side(value: Any) -> dict[str, Any]:
    out = {"talents": 0, "per_turn": 0, "areas": [], "claims": [], "votes": False}
    if isinstance(value, dict):
        out.update({k: v for k, v in value.items() if k in out})
    return out


class Judgement(Protocol):
    """What ``Grand`` reads of the seat's political judgement (``politics.Politics``,
    which in turn asks ``Grand`` what a war or a vote means for its agreements)."""

    view: dict[str, Any]
    seat: int
    players: list[dict[str, Any]]
    areas: dict[str, Any]

    def seat_of(self, power: Any) -> int | None: ...
    def turns_left(self) -> int: ...
    def score(self, seat: int) -> float: ...
    def leader(self) -> int | None: ...
    def bloc_strength(self, seat: int) -> float: ...
    def neighbours(self, other: int) -> bool: ...
    def at_war_with(self, other: int) -> bool: ...
    def border_worth(self, other: int) -> float: ...
    def border_worth_of(self, attacker: int, victim: int) -> float: ...
    def _war(self, other: int) -> float: ...
    def _allied_pair(self, a: int, b: int) -> bool: ...
    def _war_pair(self, a: int, b: int) -> bool: ...


class Grand:
    def __init__(self, politics: Judgement) -> None:
        self.pol = politics
        self.view = politics.view
        self.seat = politics.seat

    # -- worth ------------------------------------------------------------------

    def accursed_cost(self) -> float:
        return ACCURSED_BASE + ACCURSED_PER_TURN * max(0, self.pol.turns_left())

    def area_worth(self, area: Any) -> float:
        _, pop, _ = area_map()
        worth = pop.get(str(area), 1.0)
        row = self.pol.areas.get(area) if isinstance(area, str) else None
        if isinstance(row, dict) and self.seat in (row.get("claims") or []):
            worth += CLAIM_OWNED_VALUE
        return worth

    def peace_worth(self, other: int) -> float:
        """What peace or non-aggression with ``other`` is worth to us per game turn."""
        pol = self.pol
        mine, theirs = pol.bloc_strength(self.seat), pol.bloc_strength(other)
        if not (pol.neighbours(other) or pol.at_war_with(other)):
            return 0.1
        ratio = theirs / max(1.0, mine)
        value = SAFETY_SHARE * pol.border_worth_of(other, self.seat) * min(2.0, ratio)
        # a treaty ties our hands against its border when we mean to fight
        fighting = pol.at_war_with(other) and mine > 1.2 * theirs
        if fighting or pol._war(other) > 0:
            value -= 0.3 * pol.border_worth(other) * min(2.0, 1.0 / max(0.1, ratio))
        return value

    def worth(self, mine: Any, theirs: Any, terms: list[str], turns: int, other: int) -> float:
        """The worth to us of a bundle where we give ``mine`` and get ``theirs``."""
        mine, theirs = _side(mine), _side(theirs)
        value = TALENT_VALUE * (num(theirs["talents"]) - num(mine["talents"]))
        value += TALENT_VALUE * turns * (num(theirs["per_turn"]) - num(mine["per_turn"]))
        value -= sum(self.area_worth(a) + self._court_extra(a) for a in mine["areas"])
        value += sum(self.area_worth(a) for a in theirs["areas"])
        for a in theirs["claims"]:
            row = self.pol.areas.get(a) or {}
            value += CLAIM_OWNED_VALUE if row.get("owner") == self.seat else CLAIM_VALUE
        for a in mine["claims"]:
            row = self.pol.areas.get(a) or {}
            value -= CLAIM_OWNED_VALUE if row.get("owner") == self.seat else CLAIM_VALUE
        if theirs["votes"] or "alliance" in terms:
            value += VOTES_VALUE * turns
        if mine["votes"] or "alliance" in terms:
            value -= 0.5 * VOTES_VALUE * turns
        if "non_aggression" in terms or "alliance" in terms:
            value += self.peace_worth(other) * max(1, turns)
        elif "peace" in terms:
            value += self.peace_worth(other) * 0.6
        return value

    def _court_extra(self, area: Any) -> float:
        p = self.pol.players[self.seat] if 0 <= self.seat < len(self.pol.players) else {}
        return 3.0 if p.get("court") == area else 0.0

    # -- offers -----------------------------------------------------------------

    def compose(self, listed: Action) -> tuple[Action, float]:
        """Our best offer within the listed template, and its worth to us (or -1)."""
        other = self.pol.seat_of(listed.get("power"))
        tpl = listed.get("template") or {}
        if other is None or not tpl or self.refused_by(other):
            return listed, -1.0
        pol = self.pol
        terms_ok = list(tpl.get("terms") or [])
        lo, hi = (tpl.get("turns") or [1, 1])[:2]
        give_lim = tpl.get("give") or {}
        mine_t = int(num(give_lim.get("talents")))
        mine_s, theirs_s = pol.bloc_strength(self.seat), pol.bloc_strength(other)
        stronger = theirs_s > 1.15 * mine_s and (pol.neighbours(other) or pol.at_war_with(other))
        if not stronger:
            return listed, -1.0
        terms: list[str] = []
        turns = 0
        if "non_aggression" in terms_ok:
            terms, turns = ["non_aggression"], int(hi)
        elif "peace" in terms_ok:
            terms = ["peace"]
        give = _side(None)
        if terms:
            give["talents"] = min(mine_t // 3, 3)
            if theirs_s > 1.8 * mine_s and pol.turns_left() >= 1 and "non_aggression" in terms:
                give["per_turn"] = 1  # tribute to a far stronger power
        if not terms:
            return listed, -1.0
        offer = {
            "type": "offer",
            "power": listed["power"],
            "give": give,
            "get": _side(None),
            "terms": terms,
            "turns": turns if (turns or give["per_turn"]) else 0,
        }
        if give["per_turn"] and not offer["turns"]:
            offer["turns"] = int(lo)
        value = self.worth(give, _side(None), terms, int(offer["turns"]), other)
        # Will they take it? They weigh the talents against the border they give up.
        their_gain = TALENT_VALUE * (
            give["talents"] + give["per_turn"] * max(1, int(offer["turns"]))
        )
        their_cost = 0.25 * pol.border_worth(other) * 0.5
        p_accept = 0.8 if their_gain + 0.3 >= their_cost else 0.35
        return offer, value * p_accept

    def refused_by(self, other: int) -> bool:
        """They refused an offer of ours this game turn (the public ``refusals``): we do
        not ask again before the next turn (no nagging, issue 26)."""
        return any(
            r.get("from") == self.seat and r.get("to") == other
            for r in self.view.get("refusals") or []
        )

    def countering(self) -> bool:
        prompts = self.view.get("prompts") or []
        return any(
            p.get("seat") == self.seat and p.get("request") == "offer"
            for p in prompts
            if isinstance(p, dict)
        )

    def counter(self, listed: Action) -> tuple[Action, float]:
        """20.15: an offer a little short of worth taking is turned round with
        enough talents asked to make it worth our while, if the offerer has them."""
        off = (self.view.get("me") or {}).get("offer")
        tpl = listed.get("template") or {}
        if not isinstance(off, dict) or not tpl:
            return listed, -1.0
        other = int(off["from"])
        terms = [t for t in off.get("terms") or [] if t in (tpl.get("terms") or [])]
        if len(terms) != len(off.get("terms") or []):
            return listed, -1.0
        give, get = _side(off.get("get")), _side(off.get("give"))
        turns = int(num(off.get("turns")))
        value = self.worth(give, get, terms, turns, other)
        if value > 0.05 or value < -1.5:
            return listed, -1.0  # worth taking as it is, or too far apart
        want = int(-value / TALENT_VALUE) + 1
        room = int(num((tpl.get("get") or {}).get("talents"))) - int(num(get["talents"]))
        if want > room:
            return listed, -1.0
        get["talents"] = int(num(get["talents"])) + want
        for side, lim in ((give, tpl.get("give") or {}), (get, tpl.get("get") or {})):
            if side["talents"] > int(num(lim.get("talents"))) or not set(side["areas"]) <= set(
                lim.get("areas") or []
            ):
                return listed, -1.0
            if not set(side["claims"]) <= set(lim.get("claims") or []):
                return listed, -1.0
        offer = {
            "type": "offer",
            "power": listed["power"],
            "give": give,
            "get": get,
            "terms": terms,
            "turns": turns,
        }
        return offer, self.worth(give, get, terms, turns, other)

    def score_offer(self, action: Action) -> float:
        if self.countering():
            _, value = self.counter(action)
            return 0.7 if value > 0 else -1.0
        _, value = self.compose(action)
        return value - 0.4 if value > 0 else -1.0

    def score_answer(self, action: Action) -> float:
        off = (self.view.get("me") or {}).get("offer")
        if not isinstance(off, dict) or off.get("to") != self.seat:
            return 0.0
        value = self.worth(
            off.get("get"),
            off.get("give"),
            list(off.get("terms") or []),
            int(num(off.get("turns"))),
            int(off["from"]),
        )
        accept = value > 0.05
        if action.get("answer") == "accept":
            return 1.0 if accept else -0.5
        return 0.0 if accept else 0.5

    # -- keeping agreements --------------------------------------------------------

    def score_renounce(self, action: Action) -> float:
        ag = next(
            (
                a
                for a in self.view.get("agreements") or []
                if a.get("id") == action.get("agreement")
            ),
            None,
        )
        if not isinstance(ag, dict):
            return -1.0
        left = max(0, int(num(ag.get("expires"))) - int(num(self.view.get("turn"))) + 1)
        owed = sum(
            num(t.get("amount")) for t in ag.get("tribute") or [] if t.get("payer") == self.seat
        )
        cost_kept = TALENT_VALUE * owed * left
        other = [p for p in ag.get("parties") or [] if p != self.seat]
        p_guilty = self.guilty_odds(other[0] if other else -1)
        return cost_kept - p_guilty * self.accursed_cost() - 0.3

    def guilty_odds(self, injured: int) -> float:
        """Would a 20.44 parley on us carry? (yes >= no, votes by these rules)."""
        yes = no = 0.0
        for s, p in enumerate(self.pol.players):
            if p.get("accursed"):
                continue
            weight = num((p.get("emperor") or {}).get("statures", {}).get("diplomacy"))
            v = self.vote_breach(s, injured, self.seat)
            if v == "yes":
                yes += weight
            elif v == "no":
                no += weight
        return 0.9 if yes >= no else 0.2

    def breach_cost(self, other: int) -> float:
        """The expected price of breaking a non-aggression with ``other`` (20.44)."""
        bound = False
        for ag in self.view.get("agreements") or []:
            if (
                isinstance(ag, dict)
                and ag.get("status") == "in_force"
                and set(ag.get("parties") or []) == {self.seat, other}
                and set(ag.get("terms") or []) & {"non_aggression", "alliance"}
            ):
                bound = True
        return self.guilty_odds(other) * self.accursed_cost() if bound else 0.0

    # -- parleys and verdicts ---------------------------------------------------------

    def vote_breach(self, voter: int, injured: int, breaker: int) -> str:
        pol = self.pol
        if voter == breaker or pol._allied_pair(voter, breaker):
            return "no"
        if voter == injured or pol._allied_pair(voter, injured) or pol._war_pair(voter, breaker):
            return "yes"
        if pol.score(breaker) >= pol.score(voter):
            return "yes"
        return "abstain"

    def vote(self, parley: dict[str, Any]) -> str | None:
        """Our vote in a 20.44 or 20.45 parley (None: the older rules decide)."""
        pledged = (self.view.get("me") or {}).get("pledged_vote")
        if pledged in ("yes", "no"):
            return str(pledged)
        q = parley.get("question")
        caller, against = parley.get("caller"), parley.get("against")
        if q == "breach" and isinstance(caller, int) and isinstance(against, int):
            return self.vote_breach(self.seat, caller, against)
        if q == "readmit" and isinstance(caller, int):
            pol = self.pol
            if caller == self.seat or pol._allied_pair(caller, self.seat):
                return "yes"
            if pol._war_pair(caller, self.seat) or caller == pol.leader():
                return "no"
            return "yes" if pol.score(caller) < pol.score(self.seat) else "abstain"
        if q in ("contest", "inherit") and against == self.seat:
            return "no"
        return None

    def score_verdict(self, action: Action) -> float:
        v = self.view.get("verdict") or {}
        keep = self.area_worth(v.get("area")) > self.accursed_cost()
        if action.get("comply"):
            return 0.0 if keep else 1.0
        return 1.0 if keep else -1.0

    def score_readmission(self, action: Action) -> float:
        yes = no = 0.0
        for s, p in enumerate(self.pol.players):
            if p.get("accursed") and s != self.seat:
                continue
            weight = num((p.get("emperor") or {}).get("statures", {}).get("diplomacy"))
            pol = self.pol
            if s == self.seat or pol._allied_pair(s, self.seat):
                v = "yes"
            elif pol._war_pair(s, self.seat) or self.seat == pol.leader():
                v = "no"
            else:
                v = "yes" if pol.score(self.seat) < pol.score(s) else "abstain"
            if v == "yes":
                yes += weight
            elif v == "no":
                no += weight
        return 1.3 if yes >= no else -1.0
