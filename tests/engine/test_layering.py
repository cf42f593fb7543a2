"""The engine's modules form layers: a phase calls down into shared mechanisms,
never back up. Read from the source with `ast`, every import counts, at the top
of a module or inside a function (a late import hides a cycle, it does not
remove it); the graph of `app.engine` modules must have no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.graphs import find_cycle

ENGINE = Path(__file__).resolve().parents[2] / "app" / "engine"
PACKAGE = "app.engine"


def engine_imports(source: str, modules: set[str]) -> set[str]:
    """The engine modules one module's source imports, anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    out.add(alias.name.split(".")[2])
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x / from .x import y
                base = node.module.split(".")[0] if node.module else None
                names = [base] if base else [a.name for a in node.names]
            elif node.module == PACKAGE:
                names = [a.name for a in node.names]
            elif node.module and node.module.startswith(PACKAGE + "."):
                names = [node.module.split(".")[2]]
            else:
                continue
            out.update(n for n in names if n in modules)
    return out


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """Module name -> the engine modules it imports (the package's `__init__`,
    which only re-exports, is left out: `from app.engine import rng` reaches `rng`)."""
    modules = set(sources)
    return {m: engine_imports(src, modules) - {m} for m, src in sources.items()}


def engine_sources() -> dict[str, str]:
    return {
        p.stem: p.read_text(encoding="utf-8")
        for p in sorted(ENGINE.glob("*.py"))
        if p.stem != "__init__"
    }


def test_the_engine_import_graph_has_no_cycle() -> None:
    graph = import_graph(engine_sources())
    assert {"flow", "endeavours", "economy", "fate", "core"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "engine modules import each other in a circle: " + " -> ".join(cycle)


def test_mechanisms_never_import_a_phase() -> None:
    """The shared mechanisms sit below every phase module and the dispatch."""
    graph = import_graph(engine_sources())
    phases = {
        "flow",
        "setup",
        "sequence",
        "diplomacy_phase",
        "turn_actions",
        "prompts",
        "legality",
        "gate",
        "grand_actions",
    }
    mechanisms = (
        "core",
        "deck",
        "market",
        "world",
        "exile",
        "usurper_records",
        "ownership",
        "grand",
        "grand_offers",
        "defense",
        "nomads",
        "economy",
        "usurpers",
        "fate",
        "parleys",
        "endeavours",
        "endeavour_results",
        "scoring",
    )
    for mechanism in mechanisms:
        reached = _reach(graph, mechanism)
        assert not reached & phases, f"{mechanism} reaches {sorted(reached & phases)}"


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for n in graph.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


@pytest.mark.parametrize(
    "late_import",
    [
        "from app.engine.flow import apply",
        "from app.engine import flow",
        "import app.engine.flow",
        "from app.engine.endeavours import change_owner",
    ],
)
def test_a_late_import_back_up_is_caught(late_import: str) -> None:
    """The check sees an import inside a function: one put back into `economy`
    (the circle this layering broke) makes a cycle it reports."""
    sources = engine_sources()
    sources["economy"] += f"\n\ndef _back_up() -> None:\n    {late_import}\n"
    cycle = find_cycle(import_graph(sources))
    assert cycle is not None and "economy" in cycle


def test_find_cycle_on_small_graphs() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"c": {"c"}}) == ["c", "c"]
