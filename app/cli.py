"""The `imperial-glory` console script.

Each subcommand lives in the module that owns it and exposes ``main(argv) -> int``;
this file only dispatches, so adding a command never touches another part's code.
"""

from __future__ import annotations

import importlib
import sys

# name -> (module, help). Nested groups ("db upgrade") dispatch on the first word.
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("app.web.serve", "run the web server (uvicorn)"),
    "db": ("app.store.cli", "database: upgrade | downgrade | current"),
    "content": ("app.content.cli", "content: check [--json]"),
    "simulate": ("app.bots.simulate", "play bot games and print statistics"),
    "balance": ("app.balance.cli", "seat-rotated bot games and the report docs/balance.md"),
    "tournament": ("app.bots.tournament", "bot levels against each other, seat-swapped"),
    "admin": ("app.services.admin_cli", "operate: games, moderation (admin --help)"),
    "verify": ("app.services.verify_cli", "replay an exported game record and check its hash"),
}


def usage() -> str:
    lines = ["usage: imperial-glory <command> [args]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"imperial-glory: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    result: int = module.main(rest)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
