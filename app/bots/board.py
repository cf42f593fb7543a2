"""What every bot module reads the same way: the public map (adjacency, population
and terrain of every area, from the content pack) and numbers out of a view,
which may hold anything a client could send."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from app.engine.core import geo


@lru_cache(maxsize=1)
def area_map() -> tuple[dict[str, frozenset[str]], dict[str, float], dict[str, str]]:
    """Adjacency (land and sea), population and terrain of every area (public content)."""
    g = geo()
    near = {a: frozenset(g.land.get(a, set()) | g.sea_near.get(a, set())) for a in g.areas}
    pop = {a: float(x.get("population", 1)) for a, x in g.areas.items()}
    terrain = {a: str(x.get("terrain", "")) for a, x in g.areas.items()}
    return near, pop, terrain


def num(value: Any, default: float = 0.0) -> float:
    """`value` as a float when it is a number (a bool counts as 0 or 1), else `default`."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    return default
