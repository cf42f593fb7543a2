"""Malformed and illegal actions, made from the legal ones.

Two sources: ``mutate`` (seeded, cheap: used at every step of whole games) and
the hypothesis strategy ``actions_near`` (shrinkable: used on sampled states).
Whatever they make that is not listed by ``legal_actions`` must be refused.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import strategies as st

from app.engine.content import content

ACTION_TYPES = [
    "draw",
    "petition",
    "endeavour",
    "dismiss",
    "tax",
    "plunder",
    "recruit",
    "end_turn",
    "defend",
    "decline",
    "vote",
    "waive_tie",
    "diplo",
    "cheat",
    "",
]


def _area_ids() -> list[str]:
    return [a["id"] for a in content().get("areas", [])][:40] or ["nowhere"]


ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    -1,
    0,
    1,
    2,
    3,
    99,
    10**9,
    -(10**9),
    0.5,
    "",
    "1",
    "talents",
    "influence",
    "nowhere",
    [],
    {},
    [1],
    float("inf"),
]


def mutate(action: dict[str, Any], rng: random.Random) -> Any:
    """One random corruption of a legal action."""
    choice = rng.randrange(8)
    bad = copy.deepcopy(action)
    keys = [k for k in bad if k != "type"]
    if choice == 0:
        bad["type"] = rng.choice(ACTION_TYPES)
    elif choice == 1 and keys:
        del bad[rng.choice(keys)]
    elif choice == 2:
        bad[rng.choice(["extra", "seat", "talents", "amount", "area"])] = rng.choice(ODD_VALUES)
    elif choice == 3 and keys:
        bad[rng.choice(keys)] = rng.choice(ODD_VALUES + _area_ids()[:5])
    elif choice == 4 and keys:
        key = rng.choice(keys)
        if isinstance(bad[key], int) and not isinstance(bad[key], bool):
            bad[key] = bad[key] + rng.choice([-1000, -1, 1, 1000])
        else:
            bad[key] = rng.choice(ODD_VALUES)
    elif choice == 5:
        return rng.choice([None, "draw", ["draw"], 7, {"kind": "conquest"}, {}])
    elif choice == 6:
        bad = {"type": rng.choice(ACTION_TYPES)}
        for key in rng.sample(
            [
                "kind",
                "base",
                "target",
                "talents",
                "area",
                "amount",
                "slot",
                "pay",
                "choice",
                "move",
                "power",
                "waive",
            ],
            k=rng.randrange(4),
        ):
            bad[key] = rng.choice(ODD_VALUES + _area_ids()[:5])
    else:
        bad["type"] = str(bad.get("type", "")).upper()
    return bad


@st.composite
def actions_near(draw: st.DrawFn, legal: list[dict[str, Any]]) -> Any:
    """An action close to a legal one (or arbitrary JSON), for hypothesis to shrink."""
    values = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-3, max_value=60),
        st.text(max_size=12),
        st.sampled_from(_area_ids()),
        st.lists(st.integers(-1, 3), max_size=2),
    )
    if not legal or draw(st.integers(0, 4)) == 0:
        return draw(
            st.one_of(
                values,
                st.dictionaries(
                    st.sampled_from(
                        [
                            "type",
                            "kind",
                            "base",
                            "target",
                            "talents",
                            "area",
                            "amount",
                            "slot",
                            "pay",
                            "choice",
                            "move",
                            "power",
                        ]
                    ),
                    st.one_of(values, st.sampled_from(ACTION_TYPES)),
                    max_size=5,
                ),
            )
        )
    base = copy.deepcopy(draw(st.sampled_from(legal)))
    keys = sorted(base)
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.integers(0, 2))
        if how == 0 and keys:
            key = draw(st.sampled_from(keys))
            base[key] = draw(st.one_of(values, st.sampled_from(ACTION_TYPES)))
        elif how == 1 and keys:
            base.pop(draw(st.sampled_from(keys)), None)
        else:
            base[draw(st.sampled_from(["extra", "talents", "seat", "area"]))] = draw(values)
    return base
