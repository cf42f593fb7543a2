"""The lobby pages in headless Chromium: a host creates a game for two people, a
newcomer follows the invite link, signs up and joins, the host's page notices, the
host starts and both land on the game page."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no Chromium at /usr/bin/chromium"),
]
playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Any:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


def sign_up(page: Any, name: str) -> None:
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", "correct horse 1")
    page.click("form button[type=submit]")


def test_invite_join_and_start_in_two_browsers(browser: Any, live_server: Any) -> None:
    expect = playwright_api.expect
    host_name, guest_name = f"h{uuid.uuid4().hex[:8]}", f"g{uuid.uuid4().hex[:8]}"
    host_ctx = browser.new_context(base_url=live_server.url)
    guest_ctx = browser.new_context(
        base_url=live_server.url, viewport={"width": 375, "height": 812}
    )
    try:
        host = host_ctx.new_page()
        host.goto("/signup")
        sign_up(host, host_name)
        expect(host).to_have_url(re.compile(r"/games/new$"))
        expect(host.locator(".flash")).to_contain_text(f"Welcome, {host_name}")
        host.select_option("select[name=seat_1]", "human")
        host.click("form#new-game button[type=submit]")
        expect(host).to_have_url(re.compile(r"/games/\d+/lobby$"))
        game_id = int(re.search(r"/games/(\d+)/lobby", host.url).group(1))  # type: ignore[union-attr]
        expect(host.locator("button", has_text="Start the game")).to_be_disabled()
        invite = host.locator("#invite-link").input_value()
        assert "/join/" in invite

        guest = guest_ctx.new_page()
        guest.goto(invite)
        expect(guest).to_have_url(re.compile(r"/login\?next=/join/"))
        guest.click("main a:has-text('Sign up')")
        sign_up(guest, guest_name)
        expect(guest).to_have_url(re.compile(rf"/games/{game_id}/lobby\?code="))
        guest.click("#join-form button[type=submit]")
        expect(guest.locator(".flash")).to_contain_text("You have a seat.")
        expect(guest.locator(".seats-table")).to_contain_text(guest_name)
        ARTIFACTS.mkdir(exist_ok=True)
        guest.screenshot(path=str(ARTIFACTS / "lobby-phone.png"), full_page=True)

        # The host's page refreshes by itself once the guest has joined.
        expect(host.locator(".seats-table")).to_contain_text(guest_name, timeout=15_000)
        host.screenshot(path=str(ARTIFACTS / "lobby-game.png"), full_page=True)
        host.click("button:has-text('Start the game')")
        expect(host).to_have_url(re.compile(rf"/games/{game_id}$"))
        # ... and the guest's page follows the game to its page.
        expect(guest).to_have_url(re.compile(rf"/games/{game_id}$"), timeout=15_000)

        host.goto("/")
        expect(host.locator("#my-games")).to_contain_text(f"#{game_id}")
    finally:
        host_ctx.close()
        guest_ctx.close()
