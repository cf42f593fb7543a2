"""The seeded random number generator kept in the state (``state["rng"]``).

SplitMix64: one 64-bit integer of state, so it serialises as a plain JSON
number and every draw is reproducible from the seed and the action log. The
engine never touches Python's global ``random``.
"""

from __future__ import annotations

from typing import Any

MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK


def _next(state: dict[str, Any]) -> int:
    x = (int(state["rng"]) + 0x9E3779B97F4A7C15) & MASK
    state["rng"] = x
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def below(state: dict[str, Any], n: int) -> int:
    """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        r = _next(state)
        if r < limit:
            return r % n


def die(state: dict[str, Any], sides: int = 6) -> int:
    return below(state, sides) + 1


def shuffle(state: dict[str, Any], items: list[Any]) -> None:
    """Fisher–Yates in place."""
    for i in range(len(items) - 1, 0, -1):
        j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
