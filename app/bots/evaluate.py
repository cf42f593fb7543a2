"""A simple evaluation of one legal action from what a seat can see.

Scores are rough "victory points gained" figures; only their order matters.
Everything read here is in the seat's view (or the public content pack), or
comes from ``explain`` bound to the seat (docs/engine-contract.md, Explain):
for an endeavour, the exact odds of each result code over the counters still in
the pool; for a tax, the odds of unrest and rebellion; for a draw or petition,
the odds of a strike and of a bust.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.bots import consent
from app.bots.board import num
from app.bots.grand import Grand
from app.bots.politics import Politics
from app.engine.content import content
from app.engine.nomads import raid_odds

Action = dict[str, Any]

# What one talent / one influence point is worth, in victory points.
TALENT_VALUE = 0.22
INFLUENCE_VALUE = 0.3
# A failed petition (5.6): a popularity point (P-) and a failure on the turn's outcome (5.10).
BUST_VALUE = -0.6

# What each endeavour result is worth (docs/rules.md 9.5 tables; codes from
# app/engine/rules.py RESULT_TEXT). An area is worth its population in VP (26.1).
RESULT_VALUE: dict[str, float] = {
    "C": 1.1,  # one conquest result (an area falls on `population` of them)
    "T/C": 1.4,  # tie and diplomatic conquest
    "T": 0.45,  # diplomatic tie
    "K": 1.2,  # claim recognised: +2 VP once the area is ours
    "G": 0.6,  # gold
    "-1T+G": 0.8,
    "S": 1.0,  # unrest suppressed / rebels brought back
    "+1": 0.5,  # a social level: more tax
    "R": 1.0,  # a burden removed from the deck
    "TR": 0.4,  # no nomad raids
    "F": 0.4,  # fortifications
    "B": 0.9,  # a building (monuments score)
    "P+2": 1.0,  # popularity: half a VP a point, and fewer rebellions
    "P+1": 0.5,
    "I+2": 0.6,
    "I+1": 0.3,
    "A": 0.3,  # assimilation
    "N": 1.2,  # an innovation
    "CV": 0.8,  # a conversion result
    "X": 0.5,  # a rival's tie broken
    "$": 0.6,  # up to 3 talents taken
    "M": 0.4,  # a rival's mortality check
    "I": 0.05,  # intelligence a bot does not use
    "none": 0.0,
    "-1B": -0.6,
    "-1T": -0.5,
    "P-": -0.5,
    "I-": -0.3,
    "U": -0.7,
    "-1TU": -1.2,
    "EXP": -0.3,
}

# Without explain: a rough value of success by endeavour kind.
ENDEAVOUR_WEIGHT: dict[str, float] = {
    "conquest": 1.0,  # 10: the area is ours (VP)
    "diplomacy": 0.9,  # 12: tie, or the area without a fight
    "claim": 0.8,  # 18.4
    "pillage": 0.35,  # 11: gold, a rival weakened
    "suppress": 0.8,  # 10.5: unrest or rebels put down
    "ruling": 0.45,  # 15: a social level
    "reform": 0.9,  # 5.8: a burden out of the deck
    "purge": 0.9,  # 5.8
    "census": 0.5,  # 16.3: gold without a rebellion check
    "tribute": 0.3,  # 24.2: no nomad raid
    "fortify": 0.35,  # 14
    "build": 0.7,  # 8.1
    "festival": 0.6,  # 8.3: popularity
    "patronage": 0.45,  # 8.4: influence
    "assimilate": 0.3,  # 8.5
    "science": 0.9,  # 8.6: a lasting innovation
    "convert": 0.6,  # 22.2: conversions score
    "plot_coup": 0.4,  # 8.7
    "plot_bribe": 0.4,  # 8.8
    "plot_assassinate": 0.2,  # 8.9
    "spy": 0.05,  # 8.10: information a bot does not use
}

# Result codes that hurt the actor.
NEGATIVE_RESULTS = frozenset(code for code, value in RESULT_VALUE.items() if value < 0)


# Taking a partner's area is a breach (20.13) when the endeavour succeeds: about this often.
BREACH_ODDS = 0.7


def success_probability(explained: dict[str, Any]) -> float | None:
    """The chance an endeavour succeeds, from an ``explain`` answer.

    Understands ``p_success`` directly, or a distribution of results
    (``odds``/``results``: ``{code: p}`` or ``[{result, p}]``) in which anything
    but no effect and the harmful codes counts as success.
    """
    for key in ("p_success", "success", "success_odds", "chance"):
        if key in explained and isinstance(explained[key], int | float):
            return max(0.0, min(1.0, float(explained[key])))
    dist = result_distribution(explained)
    if not dist:
        return None
    total = sum(dist.values()) or 1.0
    return sum(p for code, p in dist.items() if not _is_failure(code)) / total


def result_distribution(explained: dict[str, Any]) -> dict[str, float]:
    for key in ("odds", "results", "outcomes"):
        dist = explained.get(key)
        items: dict[str, float] = {}
        if isinstance(dist, dict):
            for code, p in dist.items():
                if isinstance(p, int | float) and not isinstance(p, bool):
                    items[str(code)] = float(p)
        elif isinstance(dist, list):
            for row in dist:
                if isinstance(row, dict):
                    name = str(row.get("result", row.get("name", row.get("outcome", ""))))
                    items[name] = num(row.get("p", row.get("probability", 0.0)))
        if items:
            return items
    return {}


def _is_failure(name: str) -> bool:
    if name in NEGATIVE_RESULTS:
        return True
    lowered = name.lower()
    return any(
        word in lowered for word in ("fail", "none", "repuls", "no_effect", "lost", "disaster")
    )


class Evaluator:
    """Scores legal actions for the seat whose view this is."""

    def __init__(
        self,
        view: dict[str, Any],
        explain: Callable[[Action], dict[str, Any]] | None = None,
        aggressive: bool = True,
        temperament: str | None = None,
    ) -> None:
        self.view = view
        self.explain = explain
        self.aggressive = aggressive
        self.temperament = temperament
        self._politics: Politics | None = None
        self._grand: Grand | None = None
        me = view.get("me") or {}
        self.me: dict[str, Any] = me
        self.seat: int | None = me.get("seat")
        players = view.get("players") or []
        self.player: dict[str, Any] = (
            players[self.seat]
            if isinstance(self.seat, int) and 0 <= self.seat < len(players)
            else {}
        )
        self.talents = num(self.player.get("talents"))
        self.influence = num(self.player.get("influence"))
        self.areas: dict[str, Any] = view.get("areas") or {}
        self._worth: dict[str | None, float] = {}

    @property
    def politics(self) -> Politics:
        if self._politics is None:
            self._politics = Politics(self.view, self.aggressive, self.temperament)
        return self._politics

    # -- what things are worth -------------------------------------------------

    def area_worth(self, area_id: Any) -> float:
        """What an area is worth: its population (26.1), more with our claim or court."""
        key = area_id if isinstance(area_id, str) else None
        cached = self._worth.get(key)
        if cached is None:
            cached = self._worth[key] = self._area_worth(area_id)
        return cached

    def _area_worth(self, area_id: Any) -> float:
        worth = _population(area_id)
        area = self.areas.get(area_id) if isinstance(area_id, str) else None
        if isinstance(area, dict):
            if isinstance(area.get("population"), int | float):
                worth = float(area["population"])
            if self.seat in (area.get("claims") or []):
                worth += 2.0
        if area_id == self.player.get("court"):
            worth += 3.0
        return worth

    def owns(self, area_id: Any) -> bool:
        area = self.areas.get(area_id) if isinstance(area_id, str) else None
        return isinstance(area, dict) and area.get("owner") == self.seat

    def talent_cost(self, talents: float) -> float:
        # Talents are dearer when few are left.
        scarcity = 1.0 + 2.0 / (1.0 + max(0.0, self.talents - talents))
        return TALENT_VALUE * talents * scarcity

    def explained(self, action: Action) -> dict[str, Any] | None:
        if self.explain is None:
            return None
        try:
            answer = self.explain(action)
        except Exception:  # explain is advisory; never let it stop a bot
            return None
        return answer if isinstance(answer, dict) else None

    def years_left(self) -> float:
        return num(self.player.get("years_left"))

    # -- scores ---------------------------------------------------------------

    def score(self, action: Action) -> float:
        kind = str(action.get("type", ""))
        method = getattr(self, f"_score_{kind}", None)
        if method is None:
            return 0.0
        result: float = method(action)
        return result

    def _score_draw(self, action: Action) -> float:
        return 1.0

    def _score_end_turn(self, action: Action) -> float:
        # Keep the last year back for defense (13) when a rival is at war with us, or in
        # the game turn's last round when a horde is coming for us (24.13).
        threatened = bool(self.politics.threats()) and num(self.view.get("round")) >= num(
            self.view.get("rounds"), 4.0
        )
        return 1.2 if (self._at_war() or threatened) and self.years_left() <= 1 else 0.0

    def _score_choose_slot(self, action: Action) -> float:
        return -num(action.get("slot"))  # acting early leaves more choice

    def _score_endeavour(self, action: Action) -> float:
        value = self._endeavour(action)
        target = action.get("target")
        if action.get("kind") in ("conquest", "diplomacy") and isinstance(target, str):
            row = self.areas.get(target)  # 20.13: taking a partner's area is a breach
            owner = row.get("owner") if isinstance(row, dict) else None
            if isinstance(owner, int) and owner != self.seat:
                value -= BREACH_ODDS * self.grand.breach_cost(owner)
        return value

    def _endeavour(self, action: Action) -> float:
        kind = str(action.get("kind", ""))
        target = action.get("target")
        extra = num(action.get("talents"))
        explained = self.explained(action)
        dist = result_distribution(explained) if explained else {}
        if kind == "tribute":
            return self._score_tribute(extra, explained, dist)
        if dist:
            value = self._expected(kind, target, dist)
            defended = explained.get("if_defended") if explained else None
            if isinstance(defended, dict) and num(defended.get("defender_years")) > 0:
                other = result_distribution(defended)
                if other:
                    value = 0.5 * value + 0.5 * self._expected(kind, target, other)
            cost = num(explained.get("cost"), extra) if explained else extra
            return value - self.talent_cost(cost) + 0.2
        # Without odds: success more likely with talents, with diminishing returns.
        weight = ENDEAVOUR_WEIGHT.get(kind, 0.3)
        worth = self.area_worth(target) if isinstance(target, str) and target in self.areas else 1.2
        if kind in ("conquest", "diplomacy", "pillage"):
            worth += self.politics.target_bonus(target)
        p = 0.35 + 0.5 * (1.0 - 0.75**extra)
        return weight * worth * p - self.talent_cost(extra) + 0.2

    def _score_tribute(
        self, extra: float, explained: dict[str, Any] | None, dist: dict[str, float]
    ) -> float:
        """24.2: tribute is worth paying when the expected raid loss is larger than its cost."""
        p = success_probability(explained) if explained else None
        if p is None:
            p = self._rough_court_odds("diplomacy", 3, extra)
        price = self.politics.tribute_price()
        cost = num(explained.get("cost"), price + extra) if explained else price + extra
        return p * self.politics.raid_loss() - self.talent_cost(cost) + 0.2

    def _rough_court_odds(self, stature: str, threshold: int, extra: float) -> float:
        """Without explain: the chance a court endeavour reaches ``threshold`` (9.3: the
        stature, the court's social state and the extra talents, plus a counter from the
        public pool, 9.4)."""
        statures = (self.player.get("emperor") or {}).get("statures") or {}
        court = self.areas.get(str(self.player.get("court"))) or {}
        rating = num(statures.get(stature)) + num(court.get("social")) + extra
        pool = (self.view.get("counters") or {}).get("pool") or {}
        total = sum(num(n) for n in pool.values()) if isinstance(pool, dict) else 0.0
        if not total:
            return 0.35 + 0.5 * (1.0 - 0.75**extra)
        hits = sum(num(n) for v, n in pool.items() if rating + int(v) >= threshold)
        return hits / total

    def _expected(self, kind: str, target: Any, dist: dict[str, float]) -> float:
        scale = 1.0
        if kind in ("conquest", "diplomacy", "claim") and isinstance(target, str):
            # An area is worth its population; a C result is a share of it. Taken
            # from a power at war with us, its loss is our gain too.
            worth = self.area_worth(target) + self.politics.target_bonus(target)
            scale = 0.6 + 0.4 * worth / 2.0
        total = sum(dist.values()) or 1.0
        return sum(RESULT_VALUE.get(code, 0.2) * p for code, p in dist.items()) * scale / total

    def _score_petition(self, action: Action) -> float:
        # Since one strike fails a petition (5.6) the odds of a strike are the odds of a
        # bust: the advisor never comes, the year is gone, popularity drops and the turn
        # records a failure (5.10). Without explain, burdens are the strikes we can see.
        explained = self.explained(action)
        odds = self.me.get("draw_odds") or {}
        bust = num(odds.get("burden"), 0.3) if isinstance(odds, dict) else 0.3
        cost = num(self.me.get("petition_cost"), 1.0)
        if explained is not None:
            bust = num(explained.get("bust_odds"), bust)
            cost = num(explained.get("cost"), cost)
        if cost > self.influence:
            return -10.0
        # A fresh advisor is worth about a good endeavour.
        return 0.75 * (1.0 - bust) - INFLUENCE_VALUE * cost + BUST_VALUE * bust

    def _score_dismiss(self, action: Action) -> float:
        return 0.05

    def _score_tax(self, action: Action) -> float:
        amount = num(action.get("amount"))
        area_id = action.get("area")
        area = self.areas.get(area_id) if isinstance(area_id, str) else None
        unrest = num(area.get("unrest")) if isinstance(area, dict) else 0.0
        explained = self.explained(action)
        p_unrest = 0.0
        p_rebel: float | None = None
        if explained is not None and isinstance(explained.get("odds"), dict):
            p_rebel = num(explained["odds"].get("rebellion"))
            p_unrest = num(explained["odds"].get("unrest"))
        if p_rebel is None:
            p_rebel = min(1.0, max(0.0, 0.1 * (amount - 1) + (0.15 * unrest if amount else 0.0)))
        worth = self.area_worth(area_id)
        net = amount * TALENT_VALUE * 1.5 - p_rebel * worth * 1.5 - p_unrest * 0.6
        return self._segment_first(net)

    def _score_plunder(self, action: Action) -> float:
        # 16.2: about 1.5 talents (11.3), but a social level lost and unrest (or a check).
        area_id = action.get("area")
        area = self.areas.get(area_id) if isinstance(area_id, str) else None
        restless = isinstance(area, dict) and num(area.get("unrest")) > 0
        explained = self.explained(action)
        p_rebel = 0.3 if restless else 0.0
        if explained is not None and isinstance(explained.get("odds"), dict):
            p_rebel = num(explained["odds"].get("rebellion"), p_rebel)
        net = 1.5 * TALENT_VALUE * 1.5 - 0.5 - (0.0 if restless else 0.7)
        net -= p_rebel * self.area_worth(area_id) * 1.5
        return self._segment_first(net)

    @staticmethod
    def _segment_first(net: float) -> float:
        """Taxation is one segment at the start of the turn (16.14): a worthwhile tax
        goes before the first draw, which would close the segment."""
        return 1.0 + net if net > 0 else net

    def _score_recruit(self, action: Action) -> float:
        slot = action.get("slot")
        row = (self.view.get("market") or {}).get("row") or []
        entry: dict[str, Any] = {}
        if isinstance(slot, int) and 0 <= slot < len(row) and isinstance(row[slot], dict):
            entry = row[slot]
        notable = _notable(entry.get("card"))
        bonus = num(notable.get("bonus"), 1.0)
        price = num(notable.get("cost"), 3.0) - num(entry.get("coins"))
        mine = self.me.get("deck_list") or []
        # A notable of a type we already field often is worth more.
        same = sum(
            1 for card in mine if isinstance(card, dict) and card.get("type") == notable.get("type")
        )
        value = 0.5 + 0.25 * bonus + 0.1 * min(same, 4)
        if action.get("pay") == "influence":
            return value - INFLUENCE_VALUE * max(0.0, price)
        return value - self.talent_cost(max(0.0, price))

    def _score_play(self, action: Action) -> float:
        return 1.1  # holding cards are meant to be played (19.4), before the years run out

    def _score_call_parley(self, action: Action) -> float:
        return self.politics.score_call_parley(action)

    def _score_remove_tie(self, action: Action) -> float:
        return -0.3  # 12.43: giving up one's own tie helps nobody but a rival

    def _score_reduce_fort(self, action: Action) -> float:
        return 0.1

    def _raid(self) -> dict[str, Any] | None:
        """The horde's raid waiting for our answer (24.13), if that is the interrupt."""
        interrupt = self.view.get("interrupt") or {}
        if isinstance(interrupt, dict) and interrupt.get("kind") == "raid":
            return interrupt
        return None

    def _raid_loss_after(self, raid: dict[str, Any], lowered: float) -> float:
        rating = int(num(raid.get("rating")) - lowered)
        return self.politics.raid_harm(str(raid.get("target")), raid_odds(rating))

    def _score_raid_answer(self, raid: dict[str, Any], action: Action) -> float:
        """24.13: a defense lowers the horde's rating by our Military and the talents
        added; a raid thrown back also wins popularity (24.14). The year would be lost
        anyway: the round is over."""
        if action.get("type") != "defend":
            return -self._raid_loss_after(raid, 0.0)

        extra = num(action.get("talents"))
        military = num((self.player.get("emperor") or {}).get("statures", {}).get("military"))
        lowered = military + extra
        after = int(num(raid.get("rating")) - lowered)
        repulsed = raid_odds(after).get("none", 0.0)
        return (
            -self._raid_loss_after(raid, lowered) + 0.5 * repulsed - self.talent_cost(1.0 + extra)
        )

    def _score_buy_off(self, action: Action) -> float:
        """17.56 / 21.31: a usurper's areas for his price: worth it when the areas (and an
        exile's way home) are worth more than the talents."""
        world = self.view.get("world") or {}
        rows = world.get("usurpers") if isinstance(world, dict) else None
        u = next(
            (r for r in rows or [] if isinstance(r, dict) and r.get("id") == action.get("usurper")),
            None,
        )
        if u is None:
            return -1.0
        worth = sum(self.area_worth(a) for a in u.get("areas") or [])
        if self.player.get("exiled"):
            worth += 4.0  # 21.3: back from exile, a court again
        return 0.8 * worth - self.talent_cost(num(u.get("price")))

    def _score_defend(self, action: Action) -> float:
        raid = self._raid()
        if raid is not None:
            return self._score_raid_answer(raid, action)
        interrupt = self.view.get("interrupt") or {}
        target = (
            interrupt.get("target", interrupt.get("area")) if isinstance(interrupt, dict) else None
        )
        worth = self.area_worth(target)
        extra = num(action.get("talents"))
        p = 0.45 + 0.45 * (1.0 - 0.7 ** (1.0 + extra))
        return worth * p * 0.8 - self.talent_cost(extra)

    def _score_decline(self, action: Action) -> float:
        raid = self._raid()
        if raid is not None:
            return self._score_raid_answer(raid, action)
        interrupt = self.view.get("interrupt") or {}
        if isinstance(interrupt, dict) and interrupt:
            target = interrupt.get("target", interrupt.get("area"))
            return self.area_worth(target) * 0.4 * 0.8
        return 0.0

    def _score_vote(self, action: Action) -> float:
        return self.politics.score_vote(action)

    def _score_waive_tie(self, action: Action) -> float:
        return -0.5 if action.get("waive") else 0.0

    def _score_diplo(self, action: Action) -> float:
        return self.politics.score_diplo(action)

    # -- grand diplomacy (20) -------------------------------------------------------

    @property
    def grand(self) -> Grand:
        if self._grand is None:
            self._grand = Grand(self.politics)
        return self._grand

    def _score_offer(self, action: Action) -> float:
        return float(self.grand.score_offer(action))

    def _score_answer_offer(self, action: Action) -> float:
        off = self.me.get("offer")
        if isinstance(off, dict) and off.get("kind") == "cancel":  # 20.3
            return consent.score_cancel_answer(self.politics, action)
        return float(self.grand.score_answer(action))

    def _score_cancel(self, action: Action) -> float:
        return consent.score_cancel(self.politics, action)  # 20.3: when it serves both

    def _score_renounce(self, action: Action) -> float:
        return float(self.grand.score_renounce(action))

    def _score_verdict(self, action: Action) -> float:
        return float(self.grand.score_verdict(action))

    def _score_readmission(self, action: Action) -> float:
        return float(self.grand.score_readmission(action))

    def _at_war(self) -> bool:
        relations = self.view.get("relations") or {}
        if not isinstance(relations, dict) or self.seat is None:
            return False
        for key, value in relations.items():
            status = value.get("status", value.get("state")) if isinstance(value, dict) else value
            if status == "war" and str(self.seat) in str(key).replace("-", "|").split("|"):
                return True
        return False


_CONTENT: dict[str, dict[str, Any]] | None = None


def _pack() -> dict[str, dict[str, Any]]:
    """Public facts from the content pack: area populations, notables."""
    global _CONTENT
    if _CONTENT is None:
        try:
            pack = content()
            _CONTENT = {
                "population": {
                    a["id"]: float(a.get("population", 1)) for a in pack.get("areas", [])
                },
                "notables": {n["id"]: n for n in pack.get("notables", [])},
            }
        except Exception:
            _CONTENT = {"population": {}, "notables": {}}
    return _CONTENT


def _population(area_id: Any) -> float:
    """An area's population from the public content pack (1 when unknown)."""
    if not isinstance(area_id, str):
        return 1.0
    return float(_pack()["population"].get(area_id, 1.0))


def _notable(notable_id: Any) -> dict[str, Any]:
    if not isinstance(notable_id, str):
        return {}
    found: dict[str, Any] = _pack()["notables"].get(notable_id, {})
    return found
