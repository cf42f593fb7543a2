"""One unit of work for every change to a game (issue 39; app/services/unit.py), held
by reading the source with ``ast``: whatever changes a game — a move from any source,
undo, a clock, a vote, the lobby, an account deleted — it is committed and published in
one place, and its version is moved in one place.

- ``publish`` is called only by the unit of work (app/services/unit.py), the publisher
  itself (app/services/publisher.py) and the realtime layer that implements it;
- a game's ``version`` is written only by the unit (``unit.bump``) and by the log's
  writer as it appends an action (``gamelog.record``: each action is a version);
- in the services, a session is committed only by the unit, by the mail runner and by
  the presence registry, which change no game (app/services/notifications.py,
  presence.py: a game's change there goes through the unit); the realtime layer
  commits nothing of its own.
"""

from __future__ import annotations

import ast

from tests.test_layering import app_sources

#: modules that may call ``publish``: the unit, the publisher, and what implements it
PUBLISHERS = {"app.services.unit", "app.services.publisher", "app.realtime"}
#: modules that may write a game's version
VERSION_WRITERS = {"app.services.unit", "app.services.gamelog"}
#: service modules that may commit a session: the unit; the mail runner and the
#: presence registry (rows of their own: no game's row, no version)
COMMITTERS = {"app.services.unit", "app.services.notifications", "app.services.presence"}


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    """Every call of a function or method named `name` in `tree`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else None
            )
            if called == name:
                out.append(node)
    return out


def _version_writes(tree: ast.AST) -> list[int]:
    """Lines that assign to ``<game>.version`` (a socket's own ``conn.version`` aside)."""
    out = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            parts = target.elts if isinstance(target, ast.Tuple) else [target]
            for part in parts:
                if (
                    isinstance(part, ast.Attribute)
                    and part.attr == "version"
                    and not (isinstance(part.value, ast.Name) and part.value.id == "conn")
                ):
                    out.append(node.lineno)
    return out


def _within(module: str, allowed: set[str]) -> bool:
    return any(module == a or module.startswith(a + ".") for a in allowed)


def test_only_the_unit_of_work_publishes() -> None:
    found = {
        module: [call.lineno for call in calls]
        for module, (source, _) in app_sources().items()
        if not _within(module, PUBLISHERS) and (calls := _calls(ast.parse(source), "publish"))
    }
    assert found == {}, f"publish through app/services/unit.py instead: {found}"


def test_only_the_unit_of_work_moves_a_games_version() -> None:
    found = {
        module: lines
        for module, (source, _) in app_sources().items()
        if not _within(module, VERSION_WRITERS) and (lines := _version_writes(ast.parse(source)))
    }
    assert found == {}, f"move the version through unit.bump / Work.changed: {found}"


def test_services_and_realtime_commit_only_through_the_unit_of_work() -> None:
    found = {}
    for module, (source, _) in app_sources().items():
        inside = module.startswith("app.services.") or module.startswith("app.realtime")
        if not inside or _within(module, COMMITTERS):
            continue
        lines = [
            call.lineno
            for call in _calls(ast.parse(source), "commit")
            # a unit of work's own commit (``work.commit()``) is the unit's
            if not (
                isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == "work"
            )
        ]
        if lines:
            found[module] = lines
    assert found == {}, f"commit through app/services/unit.py instead: {found}"


def test_the_rules_see_what_they_forbid() -> None:
    """The checks find a publish, a version write and a commit where they are."""
    tree = ast.parse(
        "def f(db, game, conn):\n"
        "    game.version += 1\n"
        "    conn.version = 3\n"
        "    seen[game.version] = 1\n"
        "    db.commit()\n"
        "    publisher.publish(game.id, game.version)\n"
    )
    assert _version_writes(tree) == [2]
    assert [c.lineno for c in _calls(tree, "commit")] == [5]
    assert [c.lineno for c in _calls(tree, "publish")] == [6]
