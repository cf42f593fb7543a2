"""`imperial-glory verify FILE` — replay an exported game record and check its hash.

Exit status 0 when the replay reproduces the record's final state hash, 1 when it
does not, 2 when the file is not a readable record.
"""

from __future__ import annotations

import argparse
import json
import sys

from app.engine.errors import EngineError
from app.services.records import verify_record


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="imperial-glory verify", description=__doc__)
    parser.add_argument("file", help="a record from GET /api/games/{id}/record or `admin export`")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as handle:
            record = json.load(handle)
        ok, computed = verify_record(record)
    except EngineError as exc:
        print(f"MISMATCH: the record's log does not replay: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"verify: cannot check {args.file}: {exc}", file=sys.stderr)
        return 2
    actions = len(record["actions"])
    if ok:
        print(f"OK: {actions} actions replayed from seed {record['seed']}; state hash {computed}")
        return 0
    print(
        f"MISMATCH: {actions} actions replayed give {computed}, the record says {record['state_hash']}",
        file=sys.stderr,
    )
    return 1
