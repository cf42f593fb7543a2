"""Where the browser tests find Chromium and put their screenshots.

Debian's ``chromium`` package, driven by Playwright's Python package (nothing here can
download a browser). The flags are the ones this project's machines need."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

NEEDS_CHROMIUM = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed at /usr/bin/chromium"
)
# The marks of a test module that plays on the real server in the browser.
BROWSER_MARKS = [pytest.mark.browser, pytest.mark.slow, NEEDS_CHROMIUM]


def wait_js(page: Any, expression: str, timeout: float = 15_000) -> None:
    """Like ``page.wait_for_function(expression, timeout=ms)``, polled from Python.

    Playwright's wait_for_function compiles its string with eval() inside the page,
    which the site's Content-Security-Policy (script-src 'self', no 'unsafe-eval')
    refuses; ``page.evaluate`` runs through the debugger protocol and is not subject
    to it. So the pages are tested under their real CSP."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise PlaywrightTimeout(f"timed out after {timeout} ms waiting for {expression}")
        time.sleep(0.05)


def artifact(name: str) -> Path:
    """The path a screenshot called `name` is written to (test-artifacts/, made here)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
