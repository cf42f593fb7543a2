"""The headless Chromium the browser tests share, one per test module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .chromium import CHROMIUM, FLAGS


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield b
        finally:
            b.close()
