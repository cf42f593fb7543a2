"""The numbers of the rules: endeavour costs, targets and result tables
(docs/rules.md 9-15, 16-17). Tables are data so that `explain` can show the
odds of every result from the same source the resolution uses."""

from __future__ import annotations

from typing import Any

YEARS_PER_ROUND = 5  # 4.2
ROUNDS_PER_TURN = 4  # 4.1
MAX_EXTRA_TALENTS = 5  # 9.33
MARKET_SIZE = 6  # 6.5
OVEREXPANSION_BASE = 4  # 5.7: areas allowed = 4 + 2 x Administration
MAX_DIPLO_MOVES = 2  # 3.3

# Endeavour specs (9.1):
#   cost     talents paid before the counter is drawn (build/science: the item's cost)
#   where    "foreign": rated on the base area's social state, pays sea cost (9.17)
#            "domestic": rated on the target area's social state (own area)
#            "court": rated on the court's social state, no sea cost
#   target   what `target` names: area_adjacent | any_area | own_area | own_unrest |
#            burden | rival | rival_area | innovation | court | tie_area
#   culture  language and religion differences apply (9.34, 9.35)
SPECS: dict[str, dict[str, Any]] = {
    "conquest": {
        "cost": 2,
        "where": "foreign",
        "target": "area_adjacent",
        "culture": True,
        "rule": "10",
    },
    "pillage": {
        "cost": 0,
        "where": "foreign",
        "target": "area_adjacent",
        "culture": True,
        "rule": "11",
    },
    "suppress": {
        "cost": 1,
        "where": "domestic",
        "target": "own_unrest",
        "culture": False,
        "rule": "10.5",
    },
    "ruling": {"cost": 0, "where": "domestic", "target": "own_area", "culture": True, "rule": "15"},
    "reform": {"cost": 1, "where": "court", "target": "burden", "culture": False, "rule": "5.8"},
    "census": {
        "cost": 0,
        "where": "domestic",
        "target": "own_area",
        "culture": False,
        "rule": "16.3",
    },
    # 12.1, 12.11: a foreign endeavour launched from the court (no sea cost, 12.2).
    "diplomacy": {
        "cost": 1,
        "where": "court",
        "based_in_court": True,
        "target": "any_area",
        "culture": True,
        "rule": "12",
    },
    "claim": {"cost": 1, "where": "court", "target": "claim_area", "culture": True, "rule": "18.4"},
    "tribute": {"cost": 2, "where": "court", "target": "court", "culture": False, "rule": "24.2"},
    "fortify": {
        "cost": 2,
        "where": "domestic",
        "target": "own_area",
        "culture": False,
        "rule": "14",
    },
    "build": {
        "cost": 0,
        "where": "domestic",
        "target": "own_area",
        "culture": False,
        "rule": "8.1",
    },
    "festival": {"cost": 2, "where": "court", "target": "court", "culture": False, "rule": "8.3"},
    "patronage": {"cost": 1, "where": "court", "target": "court", "culture": False, "rule": "8.4"},
    "assimilate": {
        "cost": 1,
        "where": "domestic",
        "target": "own_foreign_tongue",
        "culture": True,
        "rule": "8.5",
    },
    "science": {
        "cost": 0,
        "where": "court",
        "target": "innovation",
        "culture": False,
        "rule": "8.6",
    },
    "convert": {
        "cost": 1,
        "where": "domestic",
        "target": "own_foreign_faith",
        "culture": True,
        "rule": "22.2",
    },
    "purge": {"cost": 1, "where": "court", "target": "burden", "culture": False, "rule": "5.8"},
    "plot_coup": {
        "cost": 1,
        "where": "court",
        "target": "tie_area",
        "culture": False,
        "rule": "8.7",
    },
    "plot_bribe": {
        "cost": 2,
        "where": "court",
        "target": "rival_area",
        "culture": False,
        "rule": "8.8",
    },
    "plot_assassinate": {
        "cost": 2,
        "where": "court",
        "target": "rival",
        "culture": False,
        "rule": "8.9",
    },
    "spy": {"cost": 0, "where": "court", "target": "rival", "culture": False, "rule": "8.10"},
}

# Result tables (9.5): final = rating + counter; the first row whose threshold the
# final reaches gives the result; below every row, `FLOOR`.
RESULTS: dict[str, list[tuple[int, str]]] = {
    "conquest": [(5, "C"), (1, "none")],
    "pillage": [(6, "-1T+G"), (4, "G"), (1, "none")],
    "suppress": [(4, "S"), (1, "none")],
    "ruling": [(6, "+1"), (1, "none")],
    "reform": [(3, "R"), (1, "none")],
    "census": [(3, "G"), (-99, "none")],
    "diplomacy": [(9, "T/C"), (7, "C"), (3, "T"), (-99, "none")],
    "claim": [(5, "K"), (1, "none")],
    "tribute": [(3, "TR"), (-99, "none")],
    "fortify": [(4, "F"), (1, "none")],
    "build": [(3, "B"), (-99, "none")],
    "festival": [(7, "P+2"), (3, "P+1"), (1, "none")],
    "patronage": [(7, "I+2"), (3, "I+1"), (-99, "none")],
    "assimilate": [(6, "A"), (1, "none")],
    "science": [(5, "N"), (-99, "none")],
    "convert": [(5, "CV"), (1, "none")],
    "purge": [(4, "R"), (1, "none")],
    "plot_coup": [(6, "X"), (1, "none")],
    "plot_bribe": [(8, "$"), (1, "none")],
    "plot_assassinate": [(8, "M"), (1, "none")],
    "spy": [(2, "I"), (-99, "none")],
}

# What a final below every row means.
FLOOR: dict[str, str] = {
    "conquest": "-1B",
    "pillage": "-1B",
    "suppress": "-1T",
    "ruling": "-1T",
    "reform": "P-",
    "claim": "I-",
    "fortify": "-1T",
    "festival": "P-",
    "assimilate": "U",
    "convert": "-1TU",
    "purge": "P-",
    "plot_coup": "EXP",
    "plot_bribe": "EXP",
    "plot_assassinate": "EXP",
}

RESULT_TEXT: dict[str, str] = {
    "C": "conquest (one C result)",
    "none": "no effect",
    "-1B": "your base area loses a social level",
    "-1T": "the target area loses a social level",
    "-1T+G": "the target loses a social level and you take plunder",
    "G": "gold",
    "S": "unrest suppressed / rebels brought back",
    "+1": "the area gains a social level",
    "R": "the burden is removed",
    "P-": "popularity -1",
    "T/C": "tie and diplomatic conquest",
    "T": "diplomatic tie",
    "K": "claim recognised",
    "I-": "influence -1",
    "TR": "tribute paid: no nomad raids this game turn",
    "F": "fortifications built or raised",
    "B": "building completed",
    "P+2": "popularity +2",
    "P+1": "popularity +1",
    "I+2": "influence +2",
    "I+1": "influence +1",
    "A": "the area adopts your language",
    "U": "the area enters unrest",
    "N": "innovation adopted",
    "CV": "one conversion result",
    "-1TU": "the area loses a social level, enters unrest and checks for rebellion",
    "X": "the rival's tie is broken",
    "$": "the area's loyalty is bought: it rises against its owner",
    "M": "the rival emperor makes a mortality check at +2",
    "EXP": "the plot is exposed: influence -1",
    "I": "intelligence: the rival's holding cards (his hand) and treasury are revealed to you",
}

NEGATIVE = {"-1B", "-1T", "P-", "I-", "U", "-1TU", "EXP"}


def result_for(kind: str, final: int) -> str:
    for threshold, code in RESULTS[kind]:
        if final >= threshold:
            return code
    return FLOOR.get(kind, "none")


# 17.3: the Unrest & Rebellion table: 2d6 + rebellion value.
REBELLION_UNREST_AT = 11
REBELLION_REVOLT_AT = 14

# 11.3: the Pillage/Plunder table (one die).
PLUNDER_TABLE = {1: 0, 2: 1, 3: 1, 4: 2, 5: 2, 6: 3}

# 19.31: mortality check: 2d6 + modifier + age modifier >= 12 dies.
MORTALITY_AT = 12


def age_modifier(age: int) -> int:
    return max(0, (age - 40) // 10)


# 26.3: solitaire bands by victory points gained over the starting score.
SOLITAIRE_BANDS = [
    (12, "Excellent"),
    (8, "Very Good"),
    (4, "Good"),
    (1, "Fair"),
    (-2, "Poor"),
]


def solitaire_band(gain: int) -> str:
    for threshold, band in SOLITAIRE_BANDS:
        if gain >= threshold:
            return band
    return "Very Poor"
