"""static/js/live.js in headless Chromium against a real server: state, updates, actions
(ack and 409), status events, and reconnection with resync after the server is killed."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from tests.browser.chromium import wait_js as wait_page

from .conftest import make_table
from .test_ws_protocol import pick

CHROMIUM = "/usr/bin/chromium"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no Chromium at /usr/bin/chromium"),
]

playwright_api = pytest.importorskip("playwright.sync_api")

CONNECT = """
async (gameId) => {
  const { connectGame } = await import("/static/js/live.js");
  const log = { statuses: [], states: [], updates: [], errors: [] };
  window.__log = log;
  window.__live = connectGame(gameId, {
    onState: (m) => log.states.push(m),
    onUpdate: (m) => log.updates.push(m),
    onError: (e) => log.errors.push(e),
    onStatus: (s) => log.statuses.push(s),
  });
  return true;
}
"""


def js_log(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """() => ({
            statuses: window.__log.statuses,
            states: window.__log.states.map((m) => ({version: m.version, seat: m.seat,
                                                   last_seq: m.last_seq})),
            updates: window.__log.updates.map((m) => ({version: m.version, resync: !!m.resync,
                                                     seqs: m.events.map((e) => e.seq)})),
            errors: window.__log.errors,
            version: window.__live.version,
            lastSeq: window.__live.lastSeq,
            status: window.__live.status,
        })"""
    )
    return result


def wait_js(page: Any, predicate: str, timeout: float = 15.0) -> None:
    wait_page(page, predicate, timeout=timeout * 1000)


def test_live_js_plays_and_reconnects_after_a_server_kill(
    sqlite_url: str, start_server: Any, new_player: Any
) -> None:
    server = start_server(sqlite_url)
    table = make_table(server, new_player)
    me, other = table.players
    my_seat = table.seats[0]
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            context = browser.new_context(base_url=server.url)
            context.add_cookies(
                [{"name": "ig_session", "value": me.session_cookie, "url": server.url}]
            )
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto("/healthz")
            page.evaluate(CONNECT, table.game_id)
            wait_js(page, "window.__log.states.length > 0")
            first = js_log(page)
            assert first["states"][0]["seat"] == my_seat
            assert "connected" in first["statuses"]

            def play_one() -> int:
                view = me.view(table.game_id)
                actor = table.player_of_seat(int(view["prompts"][0]["seat"]))
                if actor is me:  # through the page's module
                    action = pick(view)
                    got = page.evaluate(
                        "async ([a, v]) => await window.__live.send(a, v)",
                        [action, view["version"]],
                    )
                    return int(got["version"])
                r = actor.act(table.game_id, pick(actor.view(table.game_id)), view["version"])
                assert r.status_code == 200, r.text
                return int(r.json()["version"])

            for _ in range(4):
                version = play_one()
                wait_js(page, f"window.__live.version >= {version}")
            # The updates came as patches, and the module's fields after them are the
            # server's own view of the seat (app/realtime/patch.py).
            seen = page.evaluate(
                """() => { const m = window.__log.updates[window.__log.updates.length - 1];
                           return {patched: window.__live.patched, version: m.version,
                                   view: m.view, legal_actions: m.legal_actions,
                                   prompts: m.prompts}; }"""
            )
            served = me.view(table.game_id)
            assert seen["patched"] >= 2 and seen["version"] == served["version"]
            for key in ("view", "legal_actions", "prompts"):
                assert seen[key] == served[key], key
            # A stale send is refused with 409 and the current version.
            stale = page.evaluate(
                """async (v) => { try { await window.__live.send({type: "draw"}, v);
                                        return null; } catch (e) { return e; } }""",
                0,
            )
            assert stale["status"] == 409 and stale["current_version"] >= 1

            # Kill the server; the module goes "reconnecting", then comes back and resyncs.
            before = js_log(page)
            server.stop(kill=True)
            wait_js(page, "window.__live.status === 'reconnecting'")
            server.start()
            missed = play_one()  # very likely before the browser is back: it must resync
            wait_js(page, f"window.__live.version >= {missed}", timeout=30)
            wait_js(page, "window.__live.status === 'connected'", timeout=30)
            after = js_log(page)
            assert after["statuses"][-1] == "connected"
            assert "reconnecting" in after["statuses"][len(before["statuses"]) :]
            # Resynced with the last seq it had: no state from scratch, no event twice.
            assert len(after["states"]) == 1
            assert any(u["resync"] for u in after["updates"])
            seqs = [s for u in after["updates"] for s in u["seqs"]]
            assert len(seqs) == len(set(seqs)), "an event was delivered twice"
            server_last = me.view(table.game_id)["last_seq"]
            assert after["lastSeq"] == server_last
            # ... and play goes on.
            version = play_one()
            wait_js(page, f"window.__live.version >= {version}")
            page.evaluate("() => window.__live.close()")
            time.sleep(0.2)
            assert js_log(page)["status"] == "offline"
            assert not errors, errors
        finally:
            browser.close()
