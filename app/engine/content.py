"""The content pack, read once.

The pack (`app/content/data/*.json`) is immutable package data, so reading it is
no more I/O than an import: the engine stays deterministic. Everything the rules
need about the map, rulers and cards comes from here; the state records
`content_hash` so a saved game is never replayed against another pack.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "content" / "data"


class Content:
    """All data files of the pack, keyed by file stem (``areas``, ``rulers`` …)."""

    def __init__(self, files: dict[str, Any], digest: str) -> None:
        self.files = files
        self.hash = digest

    def get(self, name: str, default: Any = None) -> Any:
        return self.files.get(name, default)

    def __getitem__(self, name: str) -> Any:
        return self.files[name]


def load_content(data_dir: Path | None = None) -> Content:
    """Read every ``*.json`` of the pack and hash them in a stable order."""
    directory = data_dir or DATA_DIR
    files: dict[str, Any] = {}
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*.json")):
        raw = path.read_bytes()
        digest.update(path.name.encode() + b"\0" + raw + b"\0")
        files[path.stem] = json.loads(raw)
    return Content(files, digest.hexdigest()[:16])


@lru_cache(maxsize=1)
def content() -> Content:
    """The installed pack, cached for the life of the process."""
    return load_content()


# Tests (and tools) may run the engine against another pack without changing the
# engine's signatures: ``with using(load_content(tmp_dir)): ...``.
_OVERRIDE: list[Content] = []


def active() -> Content:
    """The pack the engine plays with: the innermost override, else the installed one."""
    return _OVERRIDE[-1] if _OVERRIDE else content()


@contextmanager
def using(pack: Content) -> Iterator[Content]:
    _OVERRIDE.append(pack)
    try:
        yield pack
    finally:
        _OVERRIDE.pop()


def set_active(pack: Content | None) -> None:
    """Install (or with ``None`` clear) a process-wide override, e.g. in a conftest."""
    _OVERRIDE.clear()
    if pack is not None:
        _OVERRIDE.append(pack)
