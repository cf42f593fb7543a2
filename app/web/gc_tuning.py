"""Garbage-collector settings for a long-running server process.

CPython collects its youngest generation every 700 net container allocations. One
action allocates thousands (the engine copies the state it applies to, and the view
and its JSON are built fresh), so a submit ran several young collections, and each
older one walked every cached game state (`gamelog.states`). At start-up the objects
that live as long as the process (modules, the content pack, compiled statements)
are frozen out of the collector's sight, and the young generation is collected every
`GEN0` allocations instead: cycles are rare in this code (plain JSON states), so the
memory held between collections stays small. `bench/api_actions.py` measures it.
"""

from __future__ import annotations

import gc

GEN0 = 20_000  # allocations between young collections (CPython's default: 700)
GEN1 = 20  # young collections per middle one (default 10)
GEN2 = 20  # middle collections per full one (default 10)


_tuned = False


def tune() -> None:
    """Freeze what exists now and space the collections out, once per process (a
    test process starts many apps; what the first froze stays frozen)."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0, GEN1, GEN2)
