"""The political half of the standard bot: war and peace, hegemony, coalitions,
parleys, asylum and tribute, judged from one seat's view.

Everything here reads the seat's view (public board, relations, scores, the
statures of every emperor) and the public content pack (the map's adjacency,
area populations and terrain). Nothing reads the game state.

The rules of thumb, in victory-point-ish units like ``evaluate.py``:

- **strength** of a power: the population it holds, its treasury and its score;
- **war** (3.21) on a neutral neighbour that is clearly weaker and whose border
  areas are worth taking, while at most one war is already running; a treaty is
  broken (3.22) only when it is old enough for the pretext roll to be likely;
- **hegemony** (3.51) when (about) strongest, or as the head of a second bloc
  against a hegemon we can stand up to;
- **join** a coalition (3.53) when a stronger power is at war with us or borders
  us and is not the hegemon; a hegemon **accepts** juniors that are not the
  leader and add strength;
- **peace** (3.23) by the balance of strength: propose it when the enemy is
  stronger, accept it unless we are clearly stronger and the enemy borders us;
- **votes** (20.4) for ourselves and our coalition, against the leader, against
  powers at war with us and against claims to areas we hold claims on ourselves;
  a parley is only called when the expected votes carry it;
- **asylum** (21.2): an exile asks the strongest power not at war with it; a host
  grants asylum to a weak exile that is not at war with it;
- **tribute** (24.2): paid when the expected loss to nomad raids this game turn
  is larger than what the tribute costs.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from app.bots import temperament as temperaments
from app.bots.board import area_map, num
from app.bots.grand import Grand
from app.bots.trust import Trust
from app.engine.core import geo
from app.engine.world import knobs

Action = dict[str, Any]

# War needs this edge in strength over the victim, and this much worth on the border.
WAR_EDGE = 1.25
WAR_BORDER_WORTH = 3.0
# Peace is proposed when the enemy is this much stronger, refused when we are.
PEACE_WHEN_WEAKER = 0.95
REFUSE_PEACE_EDGE = 1.45
# Hegemony is claimed with this edge over the strongest rival.
HEGEMONY_EDGE = 0.95
# At most this many rival blocs.
MAX_HEGEMONS = 2
# A raid costs an area a social level (24.1): this times the tax it would have paid.
SOCIAL_LEVEL_VALUE = 1.0
# 24.15: the chance of a Fate raid on us in a game turn (two raid cards in the Fate deck).
FATE_RAID_CHANCE = 0.12
# 24.13: a sacked area enters unrest: about this much worse than a plain raid.
UNREST_VALUE = 0.5


@lru_cache(maxsize=512)
def _land(area: str) -> frozenset[str]:
    """Land links only (24.11: a horde's reach runs over land)."""
    return frozenset(geo().land.get(area, set()))


class Politics:
    """Political judgement for the seat whose view this is."""

    def __init__(
        self, view: dict[str, Any], aggressive: bool = True, temperament: str | None = None
    ) -> None:
        self.view = view
        self.aggressive = aggressive
        self.temperament = temperament
        self.mood = temperaments.get(temperament)
        self._trust: Trust | None = None
        me = view.get("me") or {}
        seat = me.get("seat")
        self.seat: int = seat if isinstance(seat, int) else -1
        self.players: list[dict[str, Any]] = list(view.get("players") or [])
        self.areas: dict[str, Any] = view.get("areas") or {}
        self.relations: dict[str, Any] = view.get("relations") or {}
        self.hegemons: list[int] = [int(h) for h in view.get("hegemons") or []]
        self.coalitions: dict[str, list[int]] = {
            str(k): [int(x) for x in v] for k, v in (view.get("coalitions") or {}).items()
        }
        self._strength: dict[int, float] = {}
        self._held: dict[int, list[str]] | None = None

    def as_seat(self, seat: int) -> Politics:
        """The same judgement from another seat (public facts only: what that power
        would make of a bundle by our rules, 20.14), with a neutral temperament."""
        other = Politics(self.view, self.aggressive)
        other.seat = seat
        self.held(seat)  # fills the owners' cache the two share
        other._strength, other._held = self._strength, self._held
        return other

    @property
    def trust(self) -> Trust:
        if self._trust is None:
            self._trust = Trust(self.view, self.seat, self.mood.grudge)
        return self._trust

    # -- facts ------------------------------------------------------------------

    def seat_of(self, power: Any) -> int | None:
        for i, p in enumerate(self.players):
            if p.get("power") == power:
                return i
        return None

    def held(self, seat: int) -> list[str]:
        if self._held is None:
            held: dict[int, list[str]] = {}
            for a, x in self.areas.items():
                owner = x.get("owner") if isinstance(x, dict) else None
                if isinstance(owner, int):
                    held.setdefault(owner, []).append(a)
            self._held = held
        return self._held.get(seat, [])

    def score(self, seat: int) -> float:
        row = (self.view.get("score") or {}).get(str(seat))
        if isinstance(row, dict):  # 26.2: who is winning is measured by standing
            return num(row.get("standing", row.get("total")))
        return num(row)

    def strength(self, seat: int) -> float:
        cached = self._strength.get(seat)
        if cached is None:
            _, pop, _ = area_map()
            p = self.players[seat] if 0 <= seat < len(self.players) else {}
            land = sum(pop.get(a, 1.0) for a in self.held(seat))
            cached = land + 0.3 * num(p.get("talents")) + 0.2 * self.score(seat)
            if p.get("exiled"):
                cached *= 0.5
            self._strength[seat] = cached
        return cached

    def bloc_strength(self, seat: int) -> float:
        """A power with its coalition (3.55: partners share the hegemon's wars)."""
        head = self.head(seat)
        members = {head, *self.coalitions.get(str(head), [])}
        return sum(self.strength(s) for s in members)

    def status(self, other: int) -> str:
        lo, hi = sorted((self.seat, other))
        rel = self.relations.get(f"{lo}|{hi}")
        if isinstance(rel, dict):
            return str(rel.get("status", "neutral"))
        return "neutral"

    def since(self, other: int) -> int:
        lo, hi = sorted((self.seat, other))
        rel = self.relations.get(f"{lo}|{hi}")
        return int(num(rel.get("since"))) if isinstance(rel, dict) else 0

    def head(self, seat: int) -> int:
        for head, juniors in self.coalitions.items():
            if seat in juniors:
                return int(head)
        return seat

    def allied(self, other: int) -> bool:
        return self.head(other) == self.head(self.seat)

    def at_war_with(self, other: int) -> bool:
        """3.21 and 3.55, as the engine's ``at_war`` reads the public relations."""
        if other == self.seat or self.allied(other):
            return False
        a, b = self.seat, other
        ha, hb = self.head(a), self.head(b)
        for x, y in {(a, b), (ha, b), (a, hb), (ha, hb)}:
            if x == y:
                continue
            lo, hi = sorted((x, y))
            rel = self.relations.get(f"{lo}|{hi}")
            if isinstance(rel, dict) and rel.get("status") == "war":
                return True
        return False

    def enemies(self) -> list[int]:
        return [s for s in range(len(self.players)) if s != self.seat and self.at_war_with(s)]

    def border_worth(self, other: int) -> float:
        """What the other's areas next to ours are worth (courts excluded: 12.16)."""
        near, pop, _ = area_map()
        mine = set(self.held(self.seat))
        court = self.players[other].get("court") if 0 <= other < len(self.players) else None
        worth = 0.0
        for a in self.held(other):
            if a != court and near.get(a, frozenset()) & mine:
                worth += pop.get(a, 1.0)
        return worth

    def border_worth_of(self, attacker: int, victim: int) -> float:
        """What ``victim``'s areas next to ``attacker``'s are worth (courts excluded)."""
        near, pop, _ = area_map()
        theirs = set(self.held(attacker))
        court = self.players[victim].get("court") if 0 <= victim < len(self.players) else None
        return sum(
            pop.get(a, 1.0)
            for a in self.held(victim)
            if a != court and near.get(a, frozenset()) & theirs
        )

    def neighbours(self, other: int) -> bool:
        near, _, _ = area_map()
        mine = set(self.held(self.seat))
        return any(near.get(a, frozenset()) & mine for a in self.held(other))

    def leader(self) -> int | None:
        """The seat with the highest score (ties: none)."""
        if not self.players:
            return None
        scores = [(self.score(s), s) for s in range(len(self.players))]
        best = max(scores)[0]
        top = [s for v, s in scores if v == best]
        return top[0] if len(top) == 1 else None

    def lead(self) -> float:
        """How far the leader (closest to victory: 26.2's standing) is ahead of the next."""
        scores = sorted((self.score(s) for s in range(len(self.players))), reverse=True)
        return scores[0] - scores[1] if len(scores) >= 2 else 0.0

    def turns_left(self) -> int:
        return int(num(self.view.get("end_turn"))) - int(num(self.view.get("turn")))

    # -- diplomacy (3) -----------------------------------------------------------

    def score_diplo(self, action: Action) -> float:
        move = str(action.get("move", ""))
        other = self.seat_of(action.get("power"))
        if move == "pass":
            return 0.5
        if move == "claim_hegemony":
            return self._hegemony()
        if move == "relinquish_hegemony":
            return -1.0
        if move == "leave":
            return 0.3 if self.strength(self.seat) > self.strength(self.head(self.seat)) else -1.0
        if other is None:
            return 0.0
        if move == "declare_war":
            return self._war(other)
        if move == "propose_peace":
            return self._propose_peace(other)
        if move in ("accept_peace", "reject_peace"):
            accept = self._accept_peace(other)
            return (1.0 if accept else 0.0) if move == "accept_peace" else (0.0 if accept else 1.0)
        if move == "claim_hegemony":
            return self._hegemony()
        if move == "relinquish_hegemony":
            return -1.0
        if move == "join":
            return self._join(other)
        if move in ("accept_join", "reject_join"):
            accept = self._accept_join(other)
            return (1.0 if accept else 0.0) if move == "accept_join" else (0.0 if accept else 1.0)
        if move == "leave":
            return 0.3 if self.strength(self.seat) > self.strength(self.head(self.seat)) else -1.0
        if move == "ask_asylum":
            return self._ask_asylum(other)
        if move in ("accept_asylum", "reject_asylum"):
            accept = self._accept_asylum(other)
            return (1.0 if accept else 0.0) if move == "accept_asylum" else (0.0 if accept else 1.0)
        if move == "revoke_asylum":
            return 0.6 if self.at_war_with(other) else -1.0
        # A political move this bot does not know yet (the politics issue adds some):
        # pass rather than guess, and answer an unknown request as the deadline would.
        if move.startswith("reject_"):
            return 0.2
        if move.startswith("accept_"):
            return 0.0
        return -0.5

    def _war(self, other: int) -> float:
        if not self.aggressive or self.turns_left() < 0:
            return -1.0
        if len(self.enemies()) >= 1:
            return -1.0  # one war at a time
        if not self.neighbours(other):
            return -1.0
        edge = self.bloc_strength(self.seat) / max(1.0, self.bloc_strength(other))
        worth = self.border_worth(other)
        need, want = WAR_EDGE * self.mood.war_edge, WAR_BORDER_WORTH
        against_leader = other == self.leader() and self.lead() > 0
        if against_leader:  # play the leader: a war on the power closest to victory
            push = min(0.35, 0.05 * self.lead() * self.mood.leader)
            need, want = need * (1.0 - push), want * 0.5
        if self.trust.breaker(other):
            need *= 0.9  # a breaker's neighbours feel freer to fall on it
        if edge < need or worth < want:
            return -1.0
        value = 0.5 + 0.1 * worth + 0.5 * (edge - need)
        if against_leader:
            value += min(0.6, 0.1 * self.lead() * self.mood.leader)
        value -= Grand(self).breach_cost(other)  # 20.13, 20.44: war on a partner
        if self.status(other) == "peace":
            lasted = int(num(self.view.get("turn"))) - self.since(other)
            # 3.22: the die must come under the years of peace; above it costs popularity.
            p_war = max(0, min(6, lasted - 1)) / 6.0
            p_lose = max(0, 6 - lasted) / 6.0
            value = value * p_war - 0.5 * p_lose
        return value

    def _propose_peace(self, other: int) -> float:
        if not self.at_war_with(other):
            return -1.0
        mine, theirs = self.bloc_strength(self.seat), self.bloc_strength(other)
        if theirs >= PEACE_WHEN_WEAKER * mine:
            return 0.9
        if not self.neighbours(other) or self.border_worth(other) < 1.0:
            return 0.6  # nothing left to take: end a pointless war
        lasted = int(num(self.view.get("turn"))) - self.since(other)
        if lasted >= 2 and other != self.leader() and self._war(other) < 0:
            return 0.6  # a war no longer worth starting is no longer worth waging
        return -1.0

    def _accept_peace(self, other: int) -> bool:
        mine, theirs = self.bloc_strength(self.seat), self.bloc_strength(other)
        if not self.aggressive:
            return True
        return not (
            mine >= REFUSE_PEACE_EDGE * theirs
            and self.neighbours(other)
            and self.border_worth(other) >= 1.0
        )

    def _hegemony(self) -> float:
        if len(self.hegemons) >= MAX_HEGEMONS:
            return -1.0
        mine = self.strength(self.seat)
        rivals = [self.strength(s) for s in range(len(self.players)) if s != self.seat]
        if self.hegemons:  # a rival bloc: only against a hegemon we could stand up to
            rivals = [self.bloc_strength(h) for h in self.hegemons]
        if rivals and mine >= HEGEMONY_EDGE * self.mood.hegemony_edge * max(rivals):
            return 0.9
        return -1.0

    def threat(self) -> int | None:
        """The strongest power that is at war with us, or borders us and is stronger."""
        mine = self.strength(self.seat)
        worst: tuple[float, int] | None = None
        for s in range(len(self.players)):
            if s == self.seat or self.allied(s):
                continue
            theirs = self.bloc_strength(s)
            threatening = theirs > mine and (self.at_war_with(s) or self.neighbours(s))
            if threatening and (worst is None or theirs > worst[0]):
                worst = (theirs, s)
        return None if worst is None else worst[1]

    def _join(self, hegemon: int) -> float:
        if self.trust.breaker(hegemon) and self.trust.of(hegemon) < 0.6:
            return -1.0  # no shelter under a breaker
        threat = self.threat()
        if threat is None or threat == hegemon:
            return -1.0
        # A coalition against a breaker, or against the leader, is the better one.
        bonus = 0.1 * (self.trust.of(hegemon) - 1.0)
        if self.trust.breaker(threat) or threat == self.leader():
            bonus += 0.1
        if self.at_war_with(hegemon):
            return 0.7 + bonus  # 3.53: joining ends that war too
        return 0.8 + bonus

    def _accept_join(self, junior: int) -> bool:
        if junior == self.leader() and self.score(junior) > self.score(self.seat):
            return False  # never carry the leader
        if self.trust.breaker(junior) and self.trust.of(junior) < 0.6:
            return False  # nor a breaker we do not trust (sanctions)
        return self.strength(junior) > 0

    def _ask_asylum(self, host: int) -> float:
        if self.at_war_with(host):
            return -1.0
        return 0.6 + 0.01 * self.strength(host)

    def _accept_asylum(self, exile: int) -> bool:
        return not self.at_war_with(exile) and self.score(exile) <= self.score(self.seat)

    # -- parleys (20) --------------------------------------------------------------

    def vote_of(self, voter: int, caller: int, area: Any) -> str:
        """How ``voter`` would vote on ``caller``'s claim, by this bot's own rules."""
        if voter == caller or self._allied_pair(voter, caller):
            return "yes"
        if self._war_pair(voter, caller):
            return "no"
        if voter == self.seat and self.trust.breaker(caller) and self.trust.of(caller) < 0.6:
            return "no"  # sanctions: no claim for a breaker
        row = self.areas.get(area) if isinstance(area, str) else None
        if isinstance(row, dict) and voter in (row.get("claims") or []):
            return "no"  # a rival claim competes with ours
        scores = [self.score(s) for s in range(len(self.players))]
        if scores and self.score(caller) >= max(scores) and self.score(caller) > self.score(voter):
            return "no"  # against the leader
        if self.score(caller) < self.score(voter):
            return "yes"  # a claim to the trailing power costs us little
        return "abstain"

    def _allied_pair(self, a: int, b: int) -> bool:
        return self.head(a) == self.head(b)

    def _war_pair(self, a: int, b: int) -> bool:
        if a == b or self._allied_pair(a, b):
            return False
        ha, hb = self.head(a), self.head(b)
        for x, y in {(a, b), (ha, b), (a, hb), (ha, hb)}:
            if x == y:
                continue
            lo, hi = sorted((x, y))
            rel = self.relations.get(f"{lo}|{hi}")
            if isinstance(rel, dict) and rel.get("status") == "war":
                return True
        return False

    def score_vote(self, action: Action) -> float:
        parley = self.view.get("parley") or {}
        caller = parley.get("caller") if isinstance(parley, dict) else None
        if not isinstance(caller, int):
            return 0.0
        wanted = Grand(self).vote(parley) or self.vote_of(self.seat, caller, parley.get("area"))
        return 1.0 if action.get("choice") == wanted else 0.0

    def parley_carries(self, area: Any) -> bool:
        """20.41-20.42: yes carries on a majority or a tie of weighted votes."""
        yes = no = 0.0
        for s, p in enumerate(self.players):
            if p.get("accursed"):
                continue
            weight = num((p.get("emperor") or {}).get("statures", {}).get("diplomacy"))
            vote = self.vote_of(s, self.seat, area)
            if vote == "yes":
                yes += weight
            elif vote == "no":
                no += weight
        return yes >= no

    def score_call_parley(self, action: Action) -> float:
        if not self.parley_carries(action.get("area")):
            return -1.0
        _, pop, _ = area_map()
        return 0.6 + 0.2 * pop.get(str(action.get("area")), 1.0)

    # -- war aims and nomads -----------------------------------------------------------

    def target_bonus(self, area: Any) -> float:
        """Extra worth of taking an area from a power at war with us: its loss is our gain."""
        row = self.areas.get(area) if isinstance(area, str) else None
        owner = row.get("owner") if isinstance(row, dict) else None
        if not isinstance(owner, int) or owner == self.seat or not self.at_war_with(owner):
            return 0.0
        _, pop, _ = area_map()
        bonus = 0.5 * pop.get(str(area), 1.0) + (0.5 if owner == self.leader() else 0.0)
        left = len(self.held(owner))
        if left <= 2:
            bonus += 1.5  # finish a beaten power: its last areas send it into exile (21.1)
        if 0 <= owner < len(self.players) and self.players[owner].get("court") == area:
            bonus += 1.0  # a court taken moves or ends its government (7.52)
        return bonus

    def hordes(self) -> list[dict[str, Any]]:
        """24: the hordes and their threats, public in the view's ``world``."""
        world = self.view.get("world") or {}
        rows = world.get("hordes") if isinstance(world, dict) else None
        return [h for h in rows or [] if isinstance(h, dict)]

    def frontier(self) -> list[str]:
        """24.11: our areas in some horde's reach (its homeland or next to it by land)."""
        mine = set(self.held(self.seat))
        out: set[str] = set()
        for h in self.hordes():
            home = [a for a in h.get("homeland") or [] if isinstance(a, str)]
            reach = set(home)
            for a in home:
                reach |= _land(a)
            out |= mine & reach
        return sorted(out)

    def threats(self) -> list[dict[str, Any]]:
        """24.12: the hordes that have picked one of our areas and not yet ridden."""
        return [
            h
            for h in self.hordes()
            if h.get("owner") == self.seat and h.get("target") and not h.get("rode")
        ]

    def tribute_price(self) -> int:
        """24.2: the tribute's price, from the public threats and the pack's knobs."""

        k = knobs("nomads")["tribute"]
        strength = sum(num(h.get("strength")) for h in self.threats())
        per = Fraction(str(k.get("per_strength", 0.5)))
        return max(int(k.get("min", 1)), math.ceil(per * Fraction(str(strength))))

    def raid_harm(self, area: str, odds: dict[str, Any]) -> float:
        """What a raid with these odds (24.13: raid, sack) costs us in ``area``."""
        hit = num(odds.get("raid")) + num(odds.get("sack"))
        return hit * self.social_level_value(area) + num(odds.get("sack")) * UNREST_VALUE

    def raid_loss(self) -> float:
        """The expected loss to the hordes threatening us this game turn (24.12-24.13),
        plus a Fate raid now and then on any frontier (24.15)."""
        loss = sum(self.raid_harm(str(h["target"]), h.get("odds") or {}) for h in self.threats())
        frontier = self.frontier()
        if frontier:
            per_raid = sum(self.social_level_value(a) for a in frontier) / len(frontier)
            loss += FATE_RAID_CHANCE * per_raid
        return loss

    def social_level_value(self, area: str) -> float:
        """What losing one social level of ``area`` costs: an area yields at most its
        social state in tax (16.11), so a level above 0 is about a talent each round it
        is taxed (about every other round) for the rest of the game."""
        social = num((self.areas.get(area) or {}).get("social"))
        if social <= -3:
            return 0.0  # already at the bottom (24.1)
        if social <= 0:
            return 0.1 * SOCIAL_LEVEL_VALUE  # untaxable already: only plunder suffers
        rounds = num(self.view.get("rounds"), 4.0)
        left = self.turns_left() * rounds + max(1.0, rounds - num(self.view.get("round")) + 1)
        return SOCIAL_LEVEL_VALUE * 0.22 * 0.5 * left


def barred_powers(view: Any) -> set[Any]:
    """The powers a new offer of ours may not go to now (20.14): those that refused one
    this game turn (``trust.refused_now``); none while we answer an offer (a counter goes
    to its maker). The Standard bot scores such an offer below anything else
    (``Grand.compose``); the Strong bot does not search it."""
    pol = Politics(view)
    if Grand(pol).countering():
        return set()
    players = view.get("players") or []
    return {
        p.get("power")
        for i, p in enumerate(players)
        if isinstance(p, dict) and pol.trust.refused_now(i)
    }


def finish(view: Any, action: Action, temperament: str | None = None) -> Action:
    """The concrete offer the standard bot makes for a listed template it chose (20.14)."""
    if action.get("type") != "offer" or "template" not in action:
        return action
    grand = Grand(Politics(view, temperament=temperament))
    offer, value = grand.counter(action) if grand.countering() else grand.compose(action)
    return offer if value > 0 else action
