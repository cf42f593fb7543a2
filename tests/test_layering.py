"""The whole package forms layers (README, "Layers"): read from the source with `ast`,
every import counts, at the top of a module or inside a function alike (a late import
hides a circle, it does not remove it). Only an import under ``if TYPE_CHECKING:`` is
left out: it never runs, and names a type for the checker alone.

- no two modules of ``app`` import each other, directly or round a circle;
- imports run one way down the layers: engine (stdlib only) <- the engine's readers
  (content, bots, balance) <- store and config <- services <- realtime <- web <- cli;
- no module is over ``MAX_LINES`` lines (split it into modules named for what they hold);
- imports sit at the top of their module, but for an optional extra's (``LATE_OK``): a
  module's imports are then read in one place, and a circle cannot hide in a function.
- every SQL statement is built and run in ``app/store``, behind named functions (see
  ``test_every_sql_statement_lives_in_the_store`` for what the services keep of the ORM).

tests/engine/test_layering.py holds the finer layering inside the engine."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from tests.graphs import find_cycle

APP = Path(__file__).resolve().parents[1] / "app"
MAX_LINES = 900
#: the only packages imported inside a function: extras the server does not install
LATE_OK = {"matplotlib", "matplotlib.pyplot"}

#: the layers, lowest first: a module may import its own layer's modules and lower ones
LAYERS: list[set[str]] = [
    {"engine"},
    {"content", "bots", "balance"},
    {"store", "config"},
    {"services"},
    {"realtime"},
    {"web"},
    {"cli"},
]
RANK = {package: rank for rank, layer in enumerate(LAYERS) for package in layer}


def app_sources() -> dict[str, tuple[str, bool]]:
    """Dotted module name -> (its source, whether it is a package's ``__init__``)."""
    out: dict[str, tuple[str, bool]] = {}
    for path in sorted(APP.rglob("*.py")):
        parts = list(path.relative_to(APP.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path.read_text(encoding="utf-8"), is_package)
    return out


def _known(name: str, modules: set[str]) -> str | None:
    """The deepest module of ``app`` that `name` is or lies in (None: not ours)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _walk(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree`, inside functions and classes too, but not the body of an
    ``if TYPE_CHECKING:`` (its ``else`` runs, and counts)."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if _type_checking(node):
            todo.extend(node.orelse)  # type: ignore[attr-defined]
        else:
            todo.extend(ast.iter_child_nodes(node))
    return out


def imports_of(module: str, source: str, is_package: bool, modules: set[str]) -> set[str]:
    """The ``app`` modules `module`'s source imports, anywhere in it. ``from a.b import c``
    reaches ``a.b.c`` when that is a module, else ``a.b`` (a name defined there)."""
    out: set[str] = set()
    for node in _walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(m for a in node.names if (m := _known(a.name, modules)))
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            for alias in node.names:
                target = f"{full}.{alias.name}"
                found = target if target in modules else _known(full, modules)
                if found:
                    out.add(found)
    return out - {module}


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    modules = set(sources)
    return {m: imports_of(m, src, pkg, modules) for m, (src, pkg) in sources.items()}


def layer_of(module: str) -> int:
    """The rank of `module`'s top package in LAYERS (``app`` itself sits lowest)."""
    parts = module.split(".")
    return RANK[parts[1]] if len(parts) > 1 else 0


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{m} -> {n}" for m, deps in graph.items() for n in deps if layer_of(n) > layer_of(m)
    )


def test_every_package_has_a_layer() -> None:
    packages = {m.split(".")[1] for m in app_sources() if "." in m}
    assert packages <= set(RANK), sorted(packages - set(RANK))


def test_no_app_modules_import_each_other_in_a_circle() -> None:
    graph = import_graph(app_sources())
    assert {"app.services.play", "app.realtime.hub", "app.web.app"} <= set(graph)
    assert "app.engine.gate" in graph["app.engine.flow"]
    cycle = find_cycle(graph)
    assert cycle is None, "app modules import each other in a circle: " + " -> ".join(cycle)


def test_imports_run_down_the_layers() -> None:
    graph = import_graph(app_sources())
    assert "app.services.play" in graph["app.realtime.source"]  # the layers are read
    assert upward_imports(graph) == []


def test_the_engine_imports_the_standard_library_only() -> None:
    foreign: list[str] = []
    for module, (source, _) in app_sources().items():
        if not module.startswith("app.engine"):
            continue
        for node in ast.walk(ast.parse(source)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and not name.startswith("app.engine"):
                    foreign.append(f"{module}: {name}")
    assert foreign == []


def test_no_module_is_over_the_line_limit() -> None:
    long = {
        str(path.relative_to(APP.parent)): n
        for path in sorted(APP.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these into modules named for what they hold: {long}"


def late_imports(source: str) -> list[str]:
    """The imports inside `source`'s functions, but those of ``LATE_OK``."""
    late = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    names = [alias.name for alias in inner.names]
                elif isinstance(inner, ast.ImportFrom):
                    names = [inner.module or "."]
                else:
                    continue
                if not set(names) <= LATE_OK:
                    late.append(f"line {inner.lineno}: {ast.unparse(inner)}")
    return late


def test_imports_sit_at_the_top_of_their_module() -> None:
    late = {m: found for m, (source, _) in app_sources().items() if (found := late_imports(source))}
    assert late == {}, f"move these imports to the top of their module: {late}"


def test_a_late_import_is_found() -> None:
    source = "import os\n\ndef f():\n    import json\n    import matplotlib\n    return json\n"
    assert late_imports(source) == ["line 4: import json"]


@pytest.mark.parametrize(
    "module, late_import",
    [
        ("app.services.gamelog", "from app.realtime.pg import CHANNEL"),
        ("app.services.gamelog", "from app import realtime"),
        ("app.realtime.source", "from app.web.deps import SESSION_COOKIE"),
        ("app.store.models", "import app.services.play"),
        ("app.engine.core", "from app.store import models"),
    ],
)
def test_a_late_import_up_a_layer_is_caught(module: str, late_import: str) -> None:
    """The checks see an import inside a function: one of those this layering removed,
    put back, is an upward import (and most make a circle)."""
    sources = app_sources()
    source, is_package = sources[module]
    sources[module] = (f"{source}\n\ndef _late() -> None:\n    {late_import}\n", is_package)
    graph = import_graph(sources)
    assert any(edge.startswith(module + " -> ") for edge in upward_imports(graph))


def test_a_late_import_that_closes_a_circle_is_caught() -> None:
    sources = app_sources()
    source, is_package = sources["app.bots.board"]
    sources["app.bots.board"] = (f"{source}\n\ndef _late():\n    from . import politics\n", False)
    cycle = find_cycle(import_graph(sources))
    assert cycle is not None and "app.bots.board" in cycle


def test_only_type_checking_imports_are_left_out() -> None:
    modules = {"app.a", "app.b", "app.c"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from app.b import B\nelse:\n    import app.c\n"
        "def f():\n    if True:\n        from app import b\n"
    )
    assert imports_of("app.a", source, False, modules) == {"app.b", "app.c"}
    assert imports_of("app.a", source.replace("from app import b", "pass"), False, modules) == {
        "app.c"
    }


def test_relative_and_package_imports_resolve() -> None:
    modules = {"app.a", "app.a.b", "app.a.c", "app.d"}
    assert imports_of("app.a.b", "from . import c\nfrom .c import x", False, modules) == {"app.a.c"}
    assert imports_of("app.a", "from .b import y", True, modules) == {"app.a.b"}
    assert imports_of("app.d", "from app.a import thing\nimport app.a.c", False, modules) == {
        "app.a",
        "app.a.c",
    }
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


# --------------------------------------------------------------------------- SQL in app/store

#: what a module outside ``app/store`` may import of SQLAlchemy: sessions and their
#: factories, ORM events and instance helpers, errors; nothing that builds a statement
ORM_OK = {
    "sqlalchemy": {"event", "inspect"},
    "sqlalchemy.orm": {
        "Session",
        "sessionmaker",
        "object_session",
        "ORMExecuteState",
        "make_transient_to_detached",
    },
    "sqlalchemy.orm.util": {"identity_key"},
    "sqlalchemy.engine": {"make_url"},
}
#: methods that run SQL (a Session's, a Connection's, psycopg's), called outside app/store;
#: ``connection`` counts only when called bare, as on a Session (``db.connection()``)
RUNS_SQL = {"execute", "exec_driver_sql", "executemany", "scalar", "scalars", "query"}
#: a string that opens as an SQL statement does (a word of log or prose does not)
SQL_TEXT = re.compile(
    r"\s*(SELECT\s.*\b(FROM|pg_\w+)\b|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s"
    r"|WITH\s+\w+\s+AS\s*\(|LISTEN\s+\"|NOTIFY\s+\"|BEGIN(\s+IMMEDIATE)?\s*$|PRAGMA\s+\w+\s*=)",
    re.DOTALL,
)


def sql_outside_store(source: str) -> list[str]:
    """What in `source` builds or runs SQL: an import of SQLAlchemy beyond ``ORM_OK``
    (``select``, ``update``, ``insert``, ``delete``, ``text``, ``func`` …), a call of a
    ``RUNS_SQL`` method or a bare ``.connection()``, or a string of SQL text."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found += [
                f"{where}: import {a.name}" for a in node.names if a.name.startswith("sqlalchemy")
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            allowed = ORM_OK.get(node.module or "", set())
            found += [
                f"{where}: from {node.module} import {a.name}"
                for a in node.names
                if a.name not in allowed
            ]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            bare = not node.args and not node.keywords
            if name in RUNS_SQL or (name == "connection" and bare):
                found.append(f"{where}: .{name}(...)")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and SQL_TEXT.match(node.value)
        ):
            found.append(f"{where}: SQL text {node.value.strip()[:40]!r}")
    return found


def test_every_sql_statement_lives_in_the_store() -> None:
    """Every SQL statement is built and run in ``app/store``, behind a named function
    that takes the Session (issue 39): no module elsewhere imports SQLAlchemy's
    statement builders, calls ``execute``/``scalar``/``scalars``/``query`` or a Session's
    bare ``connection()``, or holds SQL text (psycopg's included: the held write, LISTEN
    and NOTIFY are app/store's too).

    What the rule leaves to the services, on purpose: the ORM's unit of work on mapped
    objects a store function (or ``db.get``) returned: reading and setting their
    attributes, ``db.get``, ``db.add``, ``db.delete``, ``db.flush``, ``db.merge``,
    ``db.expire``/``expunge``, and ``db.commit``/``rollback`` where the flow commits. Those
    write the rows the ORM already maps and build no statement of their own."""
    found = {
        module: hits
        for module, (source, _) in app_sources().items()
        if not module.startswith("app.store") and (hits := sql_outside_store(source))
    }
    assert found == {}, f"move these into a named function of app/store: {found}"


@pytest.mark.parametrize(
    "line",
    [
        "from sqlalchemy import select",
        "import sqlalchemy as sa",
        "from sqlalchemy.orm import selectinload",
        "rows = db.scalars(query).all()",
        "db.execute(statement)",
        "conn = db.connection()",
        'raw.execute("SELECT pg_notify(%s, %s)", args)',
        'SQL = """\n  UPDATE games SET status = 1"""',
        "conn.execute(f'LISTEN \"{channel}\"')",
    ],
)
def test_sql_outside_the_store_is_caught(line: str) -> None:
    assert sql_outside_store(line + "\n")
    assert not sql_outside_store("from sqlalchemy.orm import Session, sessionmaker\n")
    assert not sql_outside_store("hub.connection(game_id, user_id)\ndb.add(row)\n")
    assert not sql_outside_store('log.warning("LISTEN connection restored; resyncing")\n')
    assert not sql_outside_store('"""SELECT the seat, then UPDATE the view."""\n')
