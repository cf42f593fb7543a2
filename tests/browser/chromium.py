"""Where the browser tests find Chromium and put their screenshots.

Debian's ``chromium`` package, driven by Playwright's Python package (nothing here can
download a browser). The flags are the ones this project's machines need."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

NEEDS_CHROMIUM = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed at /usr/bin/chromium"
)
# The marks of a test module that plays on the real server in the browser.
BROWSER_MARKS = [pytest.mark.browser, pytest.mark.slow, NEEDS_CHROMIUM]


def artifact(name: str) -> Path:
    """The path a screenshot called `name` is written to (test-artifacts/, made here)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
