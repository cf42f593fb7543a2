"""A table switches on its notices in the browser, on a real server with the
development mail sink: the game's Discord/Slack hook saved and tested (a real local
HTTP receiver gets the post), a person's test mail read back from /dev/mail, and a
stranger kept off the table's hook. Screenshots: test-artifacts/notices-*.png."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from .chromium import BROWSER_MARKS, artifact

pytestmark = BROWSER_MARKS
playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture
def receiver() -> Iterator[tuple[list[dict[str, Any]], str]]:
    received: list[dict[str, Any]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers["Content-Length"])
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield received, f"http://127.0.0.1:{server.server_port}/api/webhooks/1/abc"
    server.shutdown()


def test_a_table_sets_up_its_notices(
    browser: Any, start_server: Any, new_player: Any, receiver: Any, tmp_path: Path
) -> None:
    expect = playwright_api.expect
    hooks, hook_url = receiver
    sink = tmp_path / "mail"
    server = start_server(
        f"sqlite:///{tmp_path / 'notices.sqlite3'}",
        env={"MAIL_SINK": str(sink), "WEBHOOK_ALLOW_PRIVATE": "true", "SMTP_HOST": ""},
    )
    host = new_player(server)
    game = host.create_game(scenario="teaching")
    assert host.start(game["id"]).status_code == 200
    gid = game["id"]
    view = host.view(gid)
    power = view["seats"][view["seat"]]["power_name"]

    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server.url)
    context.add_cookies([{"name": "ig_session", "value": host.session_cookie, "url": server.url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(15000)
    try:
        # The game page links the table's notices for the people seated.
        page.goto(f"/games/{gid}")
        page.click("#notices-link")
        expect(page).to_have_url(re.compile(rf"/games/{gid}/notices$"))
        page.fill("input[name=webhook_url]", "http://127.0.0.1:1/hook?")
        page.fill("input[name=webhook_url]", hook_url)
        page.click("#table-hook-form button[type=submit]")
        expect(page.locator(".flash, [role=status]").first).to_contain_text("webhook is saved")
        page.click("#table-hook-test button")
        expect(page.locator("body")).to_contain_text("A test message went to the channel")
        assert len(hooks) == 1
        assert hooks[0]["content"] == hooks[0]["text"]
        assert f"#{gid}: a test from {host.username}" in hooks[0]["text"]
        assert hooks[0]["url"].endswith(f"/games/{gid}")
        # the example is the host's own: her power at this table, and its pace
        example = page.locator("main q").first.inner_text()
        assert example.startswith(f"{power} ({host.username}) to move"), example
        assert f'("{example}")' in hooks[0]["text"]
        page.locator("details.primer summary").click()
        page.screenshot(path=str(artifact("notices-table.png")), full_page=True)

        # A bad URL is answered with the reason, and the saved one stays.
        page.fill("input[name=webhook_url]", "gopher://example.org/x")
        page.click("#table-hook-form button[type=submit]")
        expect(page.locator("#form-error")).to_contain_text("http")
        page.goto(f"/games/{gid}/notices")
        expect(page.locator("input[name=webhook_url]")).to_have_value(hook_url)

        # A person's own test mail, read back from the development sink.
        page.goto("/account")
        expect(page.locator("#mail-sink-note")).to_be_visible()
        page.fill("input[name=email]", "livia@example.org")
        page.click("#account-form button[type=submit]")
        page.click("#test-notice-form button[value=email]")
        expect(page.locator("body")).to_contain_text("A test notice went to livia@example.org")
        page.screenshot(path=str(artifact("notices-account.png")), full_page=True)
        page.click("#mail-sink-note a")
        expect(page).to_have_url(re.compile(r"/dev/mail$"))
        mail = page.locator(".sunk-mail").first
        expect(mail.locator(".sunk-to")).to_have_text("livia@example.org")
        expect(mail.locator(".sunk-subject")).to_have_text("Imperial Glory: a test notice")
        expect(mail.locator(".sunk-body")).to_contain_text("this is a test notice")
        page.screenshot(path=str(artifact("notices-mail-sink.png")), full_page=True)
        assert len(list(sink.glob("*.eml"))) == 1
        assert errors == []
    finally:
        context.close()

    # Someone not seated neither sees nor changes the table's hook.
    stranger = new_player(server)
    assert stranger.http.get(f"/games/{gid}/notices").status_code == 403
    r = stranger.http.post(
        f"/games/{gid}/notices",
        data={"webhook_url": "https://evil.example/x", "csrf_token": stranger.csrf},
    )
    assert r.status_code == 403
    page_text = host.http.get(f"/games/{gid}/notices").text
    assert hook_url in page_text


def test_no_mail_sink_page_without_the_sink(live_server: Any) -> None:
    r = httpx.get(f"{live_server.url}/dev/mail")
    assert r.status_code == 404 and "no mail sink" in r.text
