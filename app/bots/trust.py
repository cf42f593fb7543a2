"""Trust and memory per opponent, from the public history only (DipBlue's trust ratio).

A bot keeps nothing between decisions: everything it remembers is in its seat's
view, which holds every signed agreement and how it ended (``agreements``, 20.3),
and the offers refused or countered and the verdicts defied
(``diplomatic_record``, app/engine/grand_record.py). From them:

- **trust** in another power starts at 1. Each agreement it kept (fulfilled, expired,
  or in force since an earlier game turn) raises it; each it broke lowers it (more
  when it broke one with us), each verdict it defied and each of our offers it
  refused lowers it; being accursed now lowers it more. A breach or a defiance
  weighs whole in its game turn and fades after (1 / (1 + game turns since)): the
  table forgives, slowly. The temperament's ``grudge`` scales the falls.
- a **breaker** is a power that broke an agreement or defied a verdict in this game:
  the bot sanctions it (votes against it in breach and readmission parleys, refuses
  its offers, prefers coalitions against it).
- a **refusal this game turn**: the bot never makes a new offer to a power that
  refused one of its offers in the same game turn.
"""

from __future__ import annotations

from typing import Any

KEPT = 0.15
BROKE = 0.6
BROKE_US = 0.5  # more when the breach was against us
DEFIED = 0.4
REFUSED = 0.08
ACCURSED = 0.4
LOW, HIGH = 0.0, 2.0


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class Trust:
    """Trust of ``seat`` in every other seat, read from ``view``."""

    def __init__(self, view: Any, seat: int, grudge: float = 1.0) -> None:
        self.seat = seat
        self.turn = _int(view.get("turn")) or 0
        players = view.get("players") or []
        self._n = len(players)
        self._trust = [1.0] * self._n
        self._breaker = [False] * self._n
        self._refused_now: set[int] = set()
        for ag in view.get("agreements") or []:
            if not isinstance(ag, dict):
                continue
            parties = [p for p in ag.get("parties") or [] if _int(p) is not None]
            status, breaker = ag.get("status"), _int(ag.get("breaker"))
            for p in parties:
                if not 0 <= p < self._n:
                    continue
                if status == "broken" and breaker == p:
                    self._breaker[p] = True
                    fall = BROKE + (BROKE_US if seat in parties else 0.0)
                    self._trust[p] -= grudge * fall * self._fading(ag.get("ended"))
                elif status in ("fulfilled", "expired") or (
                    status == "in_force" and (_int(ag.get("signed")) or 0) < self.turn
                ):
                    self._trust[p] += KEPT
        for fact in view.get("diplomatic_record") or []:
            if not isinstance(fact, dict):
                continue
            kind = fact.get("fact")
            if kind == "defied":
                who = _int(fact.get("seat"))
                if who is not None and 0 <= who < self._n:
                    self._breaker[who] = True
                    self._trust[who] -= grudge * DEFIED * self._fading(fact.get("turn"))
            elif kind == "refused" and fact.get("from") == seat:
                who = _int(fact.get("to"))
                if who is not None and 0 <= who < self._n:
                    self._trust[who] -= grudge * REFUSED
                    if fact.get("turn") == self.turn:
                        self._refused_now.add(who)
        for i, p in enumerate(players):
            if isinstance(p, dict) and p.get("accursed"):
                self._trust[i] -= grudge * ACCURSED
        self._trust = [min(HIGH, max(LOW, t)) for t in self._trust]

    def _fading(self, when: Any) -> float:
        """A wrong weighs less as game turns pass: whole in its game turn, then 1/(1+age)."""
        age = self.turn - (_int(when) or self.turn)
        return 1.0 / (1.0 + max(0, age))

    def of(self, other: int) -> float:
        return self._trust[other] if 0 <= other < self._n else 1.0

    def breaker(self, other: int) -> bool:
        """Broke an agreement or defied a verdict in this game."""
        return 0 <= other < self._n and self._breaker[other]

    def refused_now(self, other: int) -> bool:
        """Refused one of our offers in this game turn (20.14): no new offer to it now."""
        return other in self._refused_now
