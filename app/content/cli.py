"""``imperial-glory content check [--json] [--data DIR]``.

Prints the pack's counts and every error; exits 1 when there is any error, 0
otherwise (2 for a usage mistake). ``--json`` prints one JSON object instead:
the counts (``land_areas``, ``sea_zones``, ``scenarios``, ``rulers``,
``rulers_main_scenario``, ``notables``, ``fate_cards``, ``innovations`` …),
``ok``, ``errors`` and ``warnings``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.content.validate import validate


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="imperial-glory content", description="Work with the content pack."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate the content pack and print its counts")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument(
        "--data", type=Path, default=None, help="pack directory (default: the installed pack)"
    )
    return parser


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse exits on -h (0) and on usage errors (2)
        return int(exc.code or 0)
    report = validate(args.data)
    if args.json:
        print(json.dumps(report.to_dict(), sort_keys=True))
    else:
        width = max((len(k) for k in report.counts), default=0)
        for key, value in sorted(report.counts.items()):
            print(f"{key:<{width}}  {value}")
        for warning in report.warnings:
            print(f"warning: {warning}")
        for error in report.errors:
            print(f"error: {error}", file=sys.stderr)
        verdict = "ok" if report.ok else f"{len(report.errors)} error(s)"
        print(f"content check: {verdict}")
    return 0 if report.ok else 1
