from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.content import Content, load_content, using

from .pack import write_pack


@pytest.fixture(scope="session")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Content:
    return load_content(write_pack(Path(tmp_path_factory.mktemp("pack"))))


@pytest.fixture(autouse=True)
def synthetic(pack: Content) -> Iterator[Content]:
    with using(pack):
        yield pack
