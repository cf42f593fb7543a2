"""A bot seat's temperament: how it weighs its diplomatic choices.

Every bot seat gets one of four temperaments, drawn from the game's seed and the
seat (``temperament_for``), so the same seed gives the same table and the same
game. The temperament is not secret from the rules but is kept from the table
while the game runs (it would tell the others how to play the bot): the result
shows it once the game is over.

The weights, each 1.0 for a neutral bot (``NEUTRAL``, what the strong bot's
rollouts and an unknown seat use):

- ``war_edge``: multiplies the edge in strength a war needs (lower: readier);
- ``hegemony_edge``: multiplies the edge over the strongest rival a hegemony claim needs;
- ``greed``: the share of a bundle's surplus it keeps for itself when it sizes an
  offer or a counter (the rest is left to the other side, to be accepted);
- ``faith``: multiplies the price it puts on being accursed (keeping its word);
- ``grudge``: multiplies how much a breach or a refusal lowers its trust;
- ``leader``: multiplies how much it plays against the power closest to victory;
- ``peace``: multiplies the worth it sees in peace and non-aggression.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Temperament:
    name: str
    label: str
    war_edge: float = 1.0
    hegemony_edge: float = 1.0
    greed: float = 0.8
    faith: float = 1.0
    grudge: float = 1.0
    leader: float = 1.0
    peace: float = 1.0


TEMPERAMENTS: dict[str, Temperament] = {
    t.name: t
    for t in (
        # Wants the first place: claims the hegemony early, fights for borders, asks much.
        Temperament(
            "ambitious", "Ambitious", war_edge=0.85, hegemony_edge=0.85, greed=0.9, peace=0.8
        ),
        # Avoids risk: wants a clear edge before a war, values treaties, asks little.
        Temperament(
            "cautious",
            "Cautious",
            war_edge=1.3,
            hegemony_edge=1.15,
            greed=0.7,
            faith=1.3,
            peace=1.3,
        ),
        # Takes what the moment offers: turns on the leader and on the weak, keeps its
        # word only while it pays.
        Temperament(
            "opportunist",
            "Opportunist",
            war_edge=0.9,
            greed=0.85,
            faith=0.75,
            grudge=0.8,
            leader=1.6,
        ),
        # Keeps faith with its partners and punishes those who do not.
        Temperament("loyal", "Loyal", war_edge=1.15, greed=0.75, faith=1.5, grudge=1.6, leader=1.2),
    )
}

NEUTRAL = Temperament("neutral", "Neutral")


def temperament_for(seed: int | str | None, seat: int) -> str:
    """The temperament of the bot at ``seat`` in the game of ``seed`` (a pure function:
    the same seed and seat always give the same temperament)."""
    digest = hashlib.sha256(f"temperament:{seed}:{seat}".encode()).digest()
    names = sorted(TEMPERAMENTS)
    return names[digest[0] % len(names)]


def get(name: str | None) -> Temperament:
    """The temperament called ``name`` (``NEUTRAL`` for None or an unknown name)."""
    return TEMPERAMENTS.get(name or "", NEUTRAL)


def label(name: str | None) -> str:
    return get(name).label
