"""While you were away, in the browser (issue 26, item 3): she opens the game, leaves, the
table plays on into the next game turn, and on her return the page shows the catch-up
panel by game turn with the changed areas outlined on the map; the chronicle reads newest
first and filters to her lines or to wars and pacts."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer, Player
from tests.platform.test_catchup import play_until, two_people_game

from .chromium import BROWSER_MARKS, wait_js

pytestmark = BROWSER_MARKS
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp"))


def log_in(page: Any, name: str) -> None:
    page.goto("/login")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", "correct horse 1")
    page.click("form button[type=submit]")
    page.wait_for_url("**/")


def test_she_comes_back_to_what_happened(
    browser: Any,
    start_server: Callable[..., LiveServer],
    sqlite_url: str,
    new_player: Callable[..., Player],
) -> None:
    expect = pytest.importorskip("playwright.sync_api").expect
    server = start_server(sqlite_url)
    gid, alice, bob = two_people_game(server, new_player)
    context = browser.new_context(base_url=server.url, viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        log_in(page, alice.username)
        page.goto(f"/games/{gid}")
        wait_js(page, "document.body.dataset.version !== ''")
        assert page.locator("#catchup").is_hidden(), "nothing to catch up on at a first look"
        page.goto("/")  # she leaves the game

        play_until(gid, [alice, bob], lambda v: v["view"]["turn"] >= 2 and v["view"]["round"] >= 1)

        page.goto(f"/games/{gid}")
        panel = page.locator("#catchup")
        expect(panel).to_be_visible()
        expect(panel.locator("h2")).to_have_text("While you were away")
        turns = panel.locator(".catchup-turn").evaluate_all("ts => ts.map(t => t.dataset.turn)")
        assert {"1", "2"} <= set(turns), turns
        meta = page.evaluate("window.imperialGlory.meta.catchup")
        changed = [c["area"] for c in meta["areas"]]
        assert changed, "the random game changed some areas"
        wait_js(page, "document.querySelectorAll('.map-svg .area.since').length > 0")
        outlined = page.evaluate(
            "[...document.querySelectorAll('.map-svg .area.since')].map(p => p.dataset.areaId)"
        )
        assert sorted(outlined) == sorted(changed)
        assert panel.locator(".catchup-area").count() == len(changed)
        drawn = page.locator(".outline-layer .since-outline")
        assert drawn.count() == len(changed), "outlined above the owners' patterns"
        panel.locator(".catchup-area").first.hover()
        first = panel.locator(".catchup-area").first.get_attribute("data-area")
        expect(page.locator(".outline-layer .since-outline.pulse")).to_have_count(1)
        assert page.locator(".since-outline.pulse").get_attribute("data-area") == first
        page.mouse.move(1000, 900)
        page.wait_for_timeout(600)  # the map settles its zoom
        page.screenshot(path=str(SHOTS / "catchup-panel.png"))

        # the chronicle: newest first, and filtered
        log = page.locator("#log-list")
        page.click("#log-order")
        seqs = log.locator("li[data-seq]").evaluate_all("ls => ls.map(l => +l.dataset.seq)")
        assert seqs == sorted(seqs, reverse=True) and len(seqs) > 50
        page.select_option("#log-filter", "pacts")
        kinds = log.locator("li:not([hidden])").evaluate_all("ls => ls.map(l => l.dataset.kind)")
        assert kinds and set(kinds) <= {
            "diplomacy",
            "agreement",
            "breach",
            "parley",
            "accursed",
            "tribute",
            "exile",
            "offer",
        }
        shown = log.locator("li:not([hidden])").all_inner_texts()
        assert not [t for t in shown if " passes." in t or "diplomatic phase ends" in t], shown
        page.select_option("#log-filter", "mine")
        shown = log.locator("li:not([hidden])").all_inner_texts()
        power = page.evaluate(
            "window.imperialGlory.state.view.players[window.imperialGlory.state.seat].name"
        )
        assert shown and len(shown) < len(seqs)
        hidden = log.locator("li[hidden]").all_inner_texts()
        assert all(power not in text for text in hidden if "only you" not in text)
        page.locator("#log-list").screenshot(path=str(SHOTS / "catchup-chronicle-mine.png"))
        page.select_option("#log-filter", "all")
        page.click("#log-order")  # back to oldest first: the choice is remembered

        # "Got it": the panel and the outlines go
        page.click("[data-control=catchup-close]")
        expect(panel).to_be_hidden()
        assert page.locator(".map-svg .area.since").count() == 0
        assert page.locator(".outline-layer .since-outline").count() == 0
        assert not errors, errors
    finally:
        context.close()
