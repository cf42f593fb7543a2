"""Import graphs for the layering tests (tests/test_layering.py for the whole package,
tests/engine/test_layering.py for the engine's own layers)."""

from __future__ import annotations


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path that returns to its start, or None."""
    colour: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        colour[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if colour.get(n) == 1:
                return path[path.index(n) :] + [n]
            if n not in colour:
                found = visit(n)
                if found:
                    return found
        path.pop()
        colour[m] = 2
        return None

    for m in sorted(graph):
        if m not in colour:
            found = visit(m)
            if found:
                return found
    return None
