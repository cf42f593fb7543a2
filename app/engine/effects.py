"""The effect vocabulary: every ``op`` the engine interprets.

Fate cards, notables' abilities, innovations and buildings carry an ``effect``
``{op, ...}``; the content validator refuses any ``op`` not listed here, so a
card can never carry an effect the rules do not implement (docs/rules.md 19.x).
"""

from __future__ import annotations

# Notables' abilities (docs/engine-contract.md, docs/rules.md 6.4).
NOTABLE_OPS = frozenset(
    {
        "rating_bonus",  # {endeavour, amount}: + amount to that endeavour's rating
        "free_petition",  # the first petition of each year costs no influence
        "ignore_sea_cost",  # no sea costs (9.17) on your endeavours
        "counter_plus",  # {amount}: draw 1 + amount result counters, keep the best
        "tax_bonus",  # {amount}: + amount talents once per taxation segment
        "popularity_per_turn",  # {amount}: at the end of each of your player turns
        "influence_per_turn",  # {amount}: at the end of each of your player turns
        "defense_bonus",  # {amount}: + amount to your defense (13.21)
        "parley_votes",  # {amount}: extra votes in parleys (20.5)
        "rebellion_modifier",  # {amount}: added to rebellion values of your areas (17.2)
        "cheaper_market",  # {amount}: Court market prices reduced (never below 0)
        "extra_year",  # one more year each round (4.2)
        "burden_shield",  # the first burden drawn each year is not a strike (5.6)
    }
)

# Fate events resolved when drawn (19.2).
EVENT_OPS = frozenset(
    {
        "mortality",  # {modifier}: the emperor's mortality check (19.31)
        "death",  # {min_age}: the emperor dies if at least that old, else a check
        "plague",  # {areas}: areas lose a social level; a plague burden
        "barbarian_raid",  # {amount}: a frontier area is raided unless tribute is paid
        "popularity",  # {amount}
        "influence",  # {amount}
        "talents",  # {amount}
        "add_burden",  # {burden}: the burden card enters the deck
        "unrest",  # {areas}: areas enter unrest
        "social",  # {amount, areas}: areas gain or lose social levels
        "refill_counters",  # the result-counter pool is refilled now
        "heirless",  # the emperor dies heirless (19.33)
        "market_shift",  # the Court market's leftmost notable leaves
    }
)

# Holding cards kept secret until played (19.4).
HOLDING_OPS = frozenset(
    {
        "recognition_of_claim",  # 18 P2.3 / P3.1
        "dynastic_inheritance",  # 18 P4
        "diplomatic_coup",  # 12.43: break a rival's tie
        "military_innovation",  # {amount}: + to conquest, pillage and defense (19.41)
        "demesne",  # {amount}: + talents in every taxation segment (19.42)
        "missionary_fervor",  # conversion differential halved (22.23)
        "redraw_counter",  # set aside the counter just drawn and draw again (19.45)
        "designated_heir",  # the next death is never heirless (19.46)
        "treasure",  # {amount}: talents when played
        "extra_year_now",  # one more year this round
    }
)

# Innovations and buildings (6.7, 8.x).
LASTING_OPS = frozenset(
    {
        "vp",  # {amount}: victory points at the end (26.1)
        "monument",  # {vp, popularity}
        "yield_bonus",  # {amount}: this area may be taxed for social + amount (16.11)
        "road",  # this area is on the line of communications without sea cost (9.17)
        "fort_bonus",  # {amount}: + to fortification endeavours
        "conversion_bonus",  # {amount}: - to conversion differentials (22.2)
    }
)

KNOWN_OPS: frozenset[str] = NOTABLE_OPS | EVENT_OPS | HOLDING_OPS | LASTING_OPS
