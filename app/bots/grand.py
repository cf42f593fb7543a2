"""Grand diplomacy for the standard bot (docs/rules.md 20): what a bundle is worth
to us, which offers to make, which to accept, when to keep or break an agreement,
how to vote in 20.41-20.45 parleys and whether to bow to a verdict.

It reads only the seat's view (public board, agreements in force, the offer
pending to us) through the seat's ``Judgement`` (``politics.Politics``). Values are in the victory-point-ish units
of ``evaluate.py``.

- **A bundle's worth**: talents at ``TALENT_VALUE``; an area at its population
  (+2 with our claim, +3 for a court); a claim at 2 when we own the area, else
  2 times the chance we take it (``claim_worth``, from the board); tribute as talents over its turns; pledged votes a little; peace,
  non-aggression and alliance by the balance of strength: worth the border we
  would risk to a stronger neighbour, costly when we are the stronger one and
  eye its border.
- **Accept** an offer when its worth to us is positive (more for what lasts when
  we trust the offerer less; nothing from a breaker we do not trust); **counter**
  one a little short of worth taking, or one whose offerer gains much more than we.
- **Offer** bundles that trade (``bundles.py``), sized so the other side would take
  them; never again in the same game turn to a power that refused us (``trust.py``).
- **Keep or break**: renounce an agreement only when what it still costs us
  (tribute owed) is more than the expected price of being accursed.
- **Votes**: as pledged; otherwise against the breaker unless he is ours, for
  readmitting a weaker power and against the leader.
- **Verdicts**: return the area unless it is worth more than the curse.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

from app.bots import bundles
from app.bots.board import area_map, num

if TYPE_CHECKING:
    from app.bots.temperament import Temperament
    from app.bots.trust import Trust

Action = dict[str, Any]

TALENT_VALUE = 0.22
VOTES_VALUE = 0.25  # a partner's pledged votes, per game turn
CLAIM_OWNED_VALUE = 2.0  # 26.1: an owned area with our claim scores 2 more
# A claim to an area its holder does not own scores only once the holder takes it: it is
# worth CLAIM_OWNED_VALUE times the chance of that, read from the board (issue 42). An
# independent area is likelier taken the more of the holder's areas border it; another
# power's area by a holder stronger than that power, and likelier still at war with it;
# an area out of reach hardly at all. So a claim is worth more to the power best placed
# to take the area than to its holder, and handing it over is a deal both sides gain from.
CLAIM_REACH_FREE = 0.2  # an independent area, per area of the holder's bordering it
CLAIM_REACH_HELD = 0.15  # another power's area, at even strength
CLAIM_REACH_WAR = 2.0  # ... times this while at war with its owner
CLAIM_REACH_MAX = 0.6
CLAIM_REACH_FAR = 0.05
ACCURSED_BASE = 2.0  # 22.11: -2 on every rating and +2 on every rebellion value
ACCURSED_PER_TURN = 1.0
SAFETY_SHARE = 0.35  # of the border a stronger neighbour could take from us
FREED_ARMIES = 1.5  # a neighbour's peace while we fight elsewhere, against in peacetime
OFFER_ODDS = 0.85  # the chance a bundle sized to be taken is taken
# An offer's score in the diplomatic phase is OFFER_ODDS x its gain + OFFER_BONUS, against
# a pass at 0.5; in the player turn, against the draw (DRAW_SCORE, evaluate.py), it is
# made first when OFFER_ODDS x its gain beats OFFER_FLOOR.
OFFER_BONUS = 0.2
OFFER_FLOOR = 0.1
DRAW_SCORE = 1.0
COUNTER_ODDS = 0.75  # the chance a counter is taken
LEADER_PACT = 0.15  # of the leader's lead, a game turn bound to it
# The spread of the final standings around today's (26.2), in standing points, with no
# game turn left; it doubles with each game turn left (at most four). Fitted on
# Standard games of The Four Empires (seeds 2000-2039): the softmax of the standings at
# this temperature is the likeliest estimate of who wins (issue 42).
WIN_SPREAD = 3.5
WIN_SPREAD_TURNS = 4


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
    hegemons: list[int]
    mood: Temperament

    @property
    def trust(self) -> Trust: ...
    def as_seat(self, seat: int) -> Judgement: ...
    def seat_of(self, power: Any) -> int | None: ...
    def held(self, seat: int) -> list[str]: ...
    def turns_left(self) -> int: ...
    def score(self, seat: int) -> float: ...
    def leader(self) -> int | None: ...
    def lead(self) -> float: ...
    def bloc_strength(self, seat: int) -> float: ...
    def head(self, seat: int) -> int: ...
    def threat(self) -> int | None: ...
    def _join(self, hegemon: int) -> float: ...
    def neighbours(self, other: int) -> bool: ...
    def at_war_with(self, other: int) -> bool: ...
    def enemies(self) -> list[int]: ...
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
        self._mirrors: dict[int, Grand] = {}
        self._breach: dict[int, float] = {}
        self._shelter: dict[int, float] = {}
        self._odds: list[float] | None = None

    def mirror(self, other: int) -> Grand:
        """``other``'s judgement of a bundle, by our rules from its seat (20.14)."""
        got = self._mirrors.get(other)
        if got is None:
            got = self._mirrors[other] = Grand(self.pol.as_seat(other))
        return got

    # -- the chance of winning ---------------------------------------------------

    def win_odds(self) -> list[float]:
        """Each seat's chance of winning as we estimate it (issue 42): a softmax of the
        standings (26.2) whose spread widens with the game turns left (``WIN_SPREAD``),
        so early on a deal is judged almost by what it brings, late by whom it helps."""
        if self._odds is None:
            n = len(self.pol.players)
            left = min(WIN_SPREAD_TURNS, max(0, self.pol.turns_left()))
            spread = WIN_SPREAD * 2.0**left
            standing = [self.pol.score(s) for s in range(n)]
            top = max(standing, default=0.0)
            weights = [math.exp((x - top) / spread) for x in standing]
            total = sum(weights) or 1.0
            self._odds = [w / total for w in weights]
        return self._odds

    def rival_weight(self, other: int) -> float:
        """What a point of standing gained by ``other`` costs our chance of winning, in
        points of our own: d P(we win) is P(1-P) x (our gain - w x its gain) / spread,
        with w = P(other) / (1 - P(us)): a deal that feeds the leader costs us more than
        one that feeds a power far behind (0 when we are sure to win or it cannot)."""
        odds = self.win_odds()
        if not 0 <= other < len(odds) or not 0 <= self.seat < len(odds):
            return 0.0
        return odds[other] / max(1e-6, 1.0 - odds[self.seat])

    def gain(self, mine: Any, theirs: Any, terms: list[str], turns: int, other: int) -> float:
        """What a bundle (we give ``mine``, get ``theirs``) does to our chance of winning,
        in points of our own standing: its worth to us less what it brings ``other``
        (judged by our rules from its seat) weighed by ``rival_weight``."""
        ours = self.worth(mine, theirs, terms, turns, other)
        its = self.mirror(other).worth(theirs, mine, terms, turns, self.seat)
        return ours - self.rival_weight(other) * its

    def sincere(self, terms: list[str], other: int) -> bool:
        """CICERO's honesty: we do not sign a pact binding us not to attack ``other``
        (non-aggression, alliance: 20.13) while a war on it is what we would choose now;
        a pact we sign is one we mean to keep (breaking it later must pay after the
        parley and the curse, ``Politics._war`` with ``breach_cost``)."""
        if not set(terms) & {"non_aggression", "alliance"}:
            return True
        return self.pol._war(other) <= 0

    # -- worth ------------------------------------------------------------------

    def accursed_cost(self) -> float:
        base = ACCURSED_BASE + ACCURSED_PER_TURN * max(0, self.pol.turns_left())
        return base * self.pol.mood.faith

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
        elif value > 0 and any(e != other for e in pol.enemies()):
            # At war elsewhere: the pact frees our armies for the war we want (issue 42),
            # and a neighbour we cannot watch is worth more at peace.
            value *= FREED_ARMIES
        return value * pol.mood.peace if value > 0 else value

    def barred_shelter(self, other: int) -> float:
        """3.53: what a pact with ``other`` binding us (non-aggression or alliance) costs
        us per game turn by barring us from a coalition against the power that threatens
        us: the shelter the coalition would give, valued as a treaty with that threat
        would be. Nothing for a hegemon, when the pact is with the threat (or its
        hegemon) itself, or while no hegemon we would join stands: a pact in force can
        be cancelled by consent when one rises (20.31)."""
        got = self._shelter.get(other)
        if got is not None:
            return got
        pol = self.pol
        threat = pol.threat()
        cost = 0.0
        if (
            threat is not None
            and self.seat not in pol.hegemons
            and pol.head(self.seat) == self.seat
            and other not in (threat, pol.head(threat))
            and any(pol._join(h) > 0 for h in pol.hegemons if h != self.seat)
        ):
            ratio = pol.bloc_strength(threat) / max(1.0, pol.bloc_strength(self.seat))
            cost = SAFETY_SHARE * pol.border_worth_of(threat, self.seat) * min(2.0, ratio)
            cost *= pol.mood.peace
        self._shelter[other] = cost
        return cost

    def leader_pact(self, other: int) -> float:
        """What a pact binding us to the power closest to victory (26.2) costs us per
        game turn: it keeps us out of the wars and coalitions that would check it
        (3.53, 20.13), a share of its lead. With two powers no one else could check
        it, and our own war on it is weighed in ``peace_worth``."""
        pol = self.pol
        if len(pol.players) < 3 or other != pol.leader() or pol.lead() <= 0:
            return 0.0
        return LEADER_PACT * pol.lead() * pol.mood.leader

    def worth(self, mine: Any, theirs: Any, terms: list[str], turns: int, other: int) -> float:
        """The worth to us of a bundle where we give ``mine`` and get ``theirs``."""
        mine, theirs = _side(mine), _side(theirs)
        value = TALENT_VALUE * (num(theirs["talents"]) - num(mine["talents"]))
        value += TALENT_VALUE * turns * (num(theirs["per_turn"]) - num(mine["per_turn"]))
        value -= sum(self.area_worth(a) + self._court_extra(a) for a in mine["areas"])
        value += sum(self.area_worth(a) for a in theirs["areas"])
        value += sum(self.claim_worth(a) for a in theirs["claims"])
        value -= sum(self.claim_worth(a) for a in mine["claims"])
        if theirs["votes"] or "alliance" in terms:
            value += VOTES_VALUE * turns
        if mine["votes"] or "alliance" in terms:
            value -= 0.5 * VOTES_VALUE * turns
        if "non_aggression" in terms or "alliance" in terms:
            bars = self.barred_shelter(other) + self.leader_pact(other)
            value += (self.peace_worth(other) - bars) * max(1, turns)
        elif "peace" in terms:
            value += self.peace_worth(other) * 0.6
        return value

    def claim_worth(self, area: Any) -> float:
        """What a claim to ``area`` is worth to us (26.1): 2 when we own the area, else 2
        times the chance we come to own it (``CLAIM_REACH_*``): how many of our areas
        border it, and for another power's area how our strength compares with that
        power's and whether we are at war with it."""
        row = self.pol.areas.get(area) if isinstance(area, str) else None
        owner = row.get("owner") if isinstance(row, dict) else None
        if owner == self.seat:
            return CLAIM_OWNED_VALUE
        near, _, _ = area_map()
        border = len(near.get(str(area), frozenset()).intersection(self.pol.held(self.seat)))
        if not border:
            return CLAIM_OWNED_VALUE * CLAIM_REACH_FAR
        if isinstance(owner, int):
            pol = self.pol
            ratio = pol.bloc_strength(self.seat) / max(1.0, pol.bloc_strength(owner))
            reach = CLAIM_REACH_HELD * min(2.0, ratio)
            if pol.at_war_with(owner):
                reach *= CLAIM_REACH_WAR
        else:
            reach = CLAIM_REACH_FREE * border
        return CLAIM_OWNED_VALUE * max(CLAIM_REACH_FAR, min(CLAIM_REACH_MAX, reach))

    def _court_extra(self, area: Any) -> float:
        p = self.pol.players[self.seat] if 0 <= self.seat < len(self.pol.players) else {}
        return 3.0 if p.get("court") == area else 0.0

    # -- offers -----------------------------------------------------------------

    def compose(self, listed: Action) -> tuple[Action, float]:
        """Our best offer within the listed template, and its worth to us (or -1):
        the candidate bundles of ``bundles``, sized so that the other side would take
        them, scored by their worth to us and our trust in the other (20.14)."""
        other = self.pol.seat_of(listed.get("power"))
        tpl = listed.get("template") or {}
        if other is None or not tpl or self.pol.trust.refused_now(other):
            return listed, -1.0
        best: tuple[Action, float] | None = None
        for give, get, terms, turns in bundles.candidates(self, other, tpl):
            sized = bundles.size(self, other, tpl, give, get, terms, turns)
            if sized is None:
                continue
            offer, mine, _ = sized
            if bundles.lasting(offer["give"], offer["get"], offer["terms"]):
                mine *= min(1.0, self.pol.trust.of(other))  # its word is worth our trust
            if best is None or mine > best[1]:
                best = (offer, mine)
        if best is None:
            return listed, -1.0
        offer, mine = best
        offer["power"] = listed["power"]
        return offer, mine

    def partner_against_leader(self, other: int) -> bool:
        """An alliance (20.13) with a trusted power that borders the leader as we do."""
        pol = self.pol
        leader = pol.leader()
        if leader is None or leader in (self.seat, other) or pol.lead() < 2:
            return False
        return (
            pol.trust.of(other) >= 1.0
            and not pol.trust.breaker(other)
            and pol.neighbours(leader)
            and self.mirror(other).pol.neighbours(leader)
        )

    def border_areas(self, areas: list[str], other: int) -> list[str]:
        """Of ``areas`` (ours), those next to ``other``'s, cheapest to us first."""
        near, _, _ = area_map()
        theirs = set(self.pol.held(other))
        return sorted(
            (a for a in areas if near.get(a, frozenset()) & theirs),
            key=lambda a: (self.area_worth(a), a),
        )

    def claimed_of(self, areas: list[str]) -> list[str]:
        """Of ``areas`` (another's), those we hold the claim to, most populous first."""
        _, pop, _ = area_map()
        out = [a for a in areas if self.seat in ((self.pol.areas.get(a) or {}).get("claims") or [])]
        return sorted(out, key=lambda a: (-pop.get(a, 1.0), a))

    def countering(self) -> bool:
        prompts = self.view.get("prompts") or []
        return any(
            p.get("seat") == self.seat and p.get("request") == "offer"
            for p in prompts
            if isinstance(p, dict)
        )

    def counter(self, listed: Action) -> tuple[Action, float]:
        """20.15: the offer to us turned round, sized as our own offers are: with
        talents asked (or our costliest items left out) when it is short of worth
        taking, or asking more when the offerer gains much more than we do. Its
        worth to us (or -1 when no counter pays)."""
        off = (self.view.get("me") or {}).get("offer")
        tpl = listed.get("template") or {}
        if not isinstance(off, dict) or not tpl or off.get("kind") == "cancel":
            return listed, -1.0  # an offer to cancel (20.3) is taken or refused (consent.py)
        other = int(off["from"])
        if self.pol.trust.refused_now(other):
            return listed, -1.0  # it refused ours this game turn: no bundle of ours again
        terms = [t for t in off.get("terms") or [] if t in (tpl.get("terms") or [])]
        if len(terms) != len(off.get("terms") or []):
            return listed, -1.0
        give, get = _side(off.get("get")), _side(off.get("give"))
        turns = int(num(off.get("turns")))
        taken = self.answer_worth(off)
        bases = [(give, get)]
        if give["areas"] or give["claims"]:
            bases.append(({**give, "areas": [], "claims": []}, get))
        best: tuple[Action, float] | None = None
        for g, r in bases:
            sized = bundles.size(self, other, tpl, g, r, terms, turns)
            if sized is not None and (best is None or sized[1] > best[1]):
                best = (sized[0], sized[1])
        if best is None:
            # Nothing near the offer trades: answer with the bundle we would offer
            # this power ourselves (issue 40: a counter whenever a sized one exists,
            # a person's lopsided offer included, rather than a bare refusal).
            for g, r, t, n in bundles.candidates(self, other, tpl):
                sized = bundles.size(self, other, tpl, g, r, t, n)
                if sized is None:
                    continue
                mine = sized[1]
                if bundles.lasting(sized[0]["give"], sized[0]["get"], sized[0]["terms"]):
                    mine *= min(1.0, self.pol.trust.of(other))
                if mine > 0 and (best is None or mine > best[1]):
                    best = (sized[0], mine)
        if best is None and len(self.pol.players) == 2:
            best = self.priced(other, tpl, give, get, terms, turns)
        if best is None:
            return listed, -1.0
        offer, mine = best
        if taken is not None and mine - taken < 0.5:
            return listed, -1.0  # we would take it as it is: not worth haggling
        offer["power"] = listed["power"]
        return offer, mine

    def priced(
        self,
        other: int,
        tpl: dict[str, Any],
        give: dict[str, Any],
        get: dict[str, Any],
        terms: list[str],
        turns: int,
    ) -> tuple[Action, float] | None:
        """With two powers every bundle is zero-sum to our reading (the partner's gain
        is our loss whole, ``rival_weight`` 1), so no bundle both sides gain from is
        ever sized: the offer made to us, with the talents we would need to gain from it
        asked (or given less), is our price, and the counter says it (20.15). None when
        the template cannot carry it."""
        give, get = dict(give), dict(get)
        keep = bundles.lasting(give, get, terms)
        lo, hi = (tpl.get("turns") or [1, 1])[:2]
        turns = max(int(lo), min(int(hi), turns or int(hi))) if keep else 0
        short = bundles.ACCEPT + bundles.MARGIN - self.gain(give, get, terms, turns, other)
        if short > 0:
            talents = math.ceil(short / (TALENT_VALUE * (1.0 + self.rival_weight(other))))
            cut = min(int(num(give["talents"])), talents)
            give["talents"] = int(num(give["talents"])) - cut
            get["talents"] = int(num(get["talents"])) + talents - cut
        if not bundles.fits(tpl, give, get, terms):
            return None
        mine = self.gain(give, get, terms, turns, other)
        if mine <= bundles.ACCEPT:
            return None
        offer = bundles.as_offer(give, get, terms, turns)
        return offer, mine

    def score_offer(self, action: Action) -> float:
        if self.countering():
            _, value = self.counter(action)
            if value <= 0:
                return -1.0
            off = (self.view.get("me") or {}).get("offer") or {}
            taken = self.answer_worth(off)
            # Against accepting (1.0) or refusing (0.5): a counter may be refused.
            if taken is not None:
                return 1.0 + COUNTER_ODDS * value - taken
            return 0.5 + COUNTER_ODDS * value
        _, value = self.compose(action)
        if value <= 0:
            return -1.0
        if self.view.get("phase") == "turn":
            # In its player turn an offer comes before the draw and costs no year
            # (20.14): worth making whenever it gains us anything, ahead of the draw.
            return DRAW_SCORE + OFFER_ODDS * value - OFFER_FLOOR
        return OFFER_ODDS * value + OFFER_BONUS

    def answer_worth(self, off: dict[str, Any]) -> float | None:
        """What the offer made to us gains us (``gain``: our chance of winning, in points
        of standing), if we would accept it (else None): more than ``bundles.ACCEPT``,
        with more asked of a power we trust less for what lasts, nothing taken from a
        breaker we do not trust (sanctions), and no pact signed that we would not keep."""
        if not isinstance(off, dict) or off.get("to") != self.seat:
            return None
        other = int(off["from"])
        give, get = _side(off.get("get")), _side(off.get("give"))
        terms = list(off.get("terms") or [])
        trust = self.pol.trust
        if trust.breaker(other) and trust.of(other) < 0.6:
            return None
        if not self.sincere(terms, other):
            return None  # we would not keep it: we do not sign it
        value = self.gain(give, get, terms, int(num(off.get("turns"))), other)
        need = bundles.ACCEPT
        if bundles.lasting(give, get, terms):
            need += 0.6 * max(0.0, 1.0 - trust.of(other))
        return value if value > need else None

    def score_answer(self, action: Action) -> float:
        off = (self.view.get("me") or {}).get("offer")
        if not isinstance(off, dict) or off.get("to") != self.seat:
            return 0.0
        accept = self.answer_worth(off) is not None
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
        got = self._breach.get(other)
        if got is None:
            got = self._breach[other] = self._breach_cost(other)
        return got

    def _breach_cost(self, other: int) -> float:
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

    def judge_breach(self, injured: int, breaker: int) -> str:
        """Our own 20.44 vote: sanction the breaker (DipBlue), unless it is ours, or
        the injured is the leader a third party would rather see checked."""
        pol = self.pol
        if self.seat == breaker or (
            pol._allied_pair(self.seat, breaker) and pol.trust.of(breaker) >= 0.3
        ):
            return "no"
        if self.seat == injured or pol._allied_pair(self.seat, injured):
            return "yes"
        if pol._war_pair(self.seat, breaker):
            return "yes"
        leader = pol.leader()
        if injured == leader and pol.lead() * pol.mood.leader >= 3:
            return "no"  # the breach checked the power closest to victory
        if breaker == leader or pol.trust.of(breaker) < 0.5:
            return "yes"
        return "abstain"

    def judge_readmission(self, caller: int) -> str:
        """Our own 20.45 vote: never for a breaker we still do not trust (the wrong
        fades with the game turns), for a weaker power we trust, against the leader."""
        pol = self.pol
        if caller == self.seat or pol._allied_pair(caller, self.seat):
            return "yes"
        if pol._war_pair(caller, self.seat) or caller == pol.leader():
            return "no"
        trust = pol.trust.of(caller)
        if trust < 0.3:
            return "no"
        if trust >= 0.7 or pol.score(caller) < pol.score(self.seat):
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
            return self.judge_breach(caller, against)
        if q == "readmit" and isinstance(caller, int):
            return self.judge_readmission(caller)
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
