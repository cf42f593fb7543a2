"""static/js/live.js's patches in headless Chromium: its ``applyPatch`` and
``unpackActions`` give what the server's reference client (``app/realtime/patch.py``)
gives, for every kind of op, and a page kept by patches over a real game holds what
``GET /view`` serves after every move (docs/realtime.md, "Patches")."""

from __future__ import annotations

import os
import random
from typing import Any

import orjson
import pytest

from app import engine
from app.realtime import patch
from app.realtime.render import Rendered
from tests.browser.chromium import wait_js as wait_page

from .conftest import make_table
from .test_patches import POWERS, _fields, _frame

CHROMIUM = "/usr/bin/chromium"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no Chromium at /usr/bin/chromium"),
]

playwright_api = pytest.importorskip("playwright.sync_api")

#: the page's module, and every raw message its socket receives
CONNECT = """
async (gameId) => {
  const Raw = window.WebSocket;
  window.__raw = [];
  window.WebSocket = class extends Raw {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => window.__raw.push(e.data));
    }
  };
  const live = await import("/static/js/live.js");
  window.__module = live;
  const log = { updates: [] };
  window.__log = log;
  if (gameId !== null) {
    window.__live = live.connectGame(gameId, { onUpdate: (m) => log.updates.push(m) });
  }
  return true;
}
"""

APPLY = """
([held, ops]) => JSON.stringify(window.__module.applyPatch(held, ops))
"""


def _open(p: Any, server: Any, cookie: str | None) -> Any:
    browser = p.chromium.launch(
        executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
    )
    context = browser.new_context(base_url=server.url)
    if cookie is not None:
        context.add_cookies([{"name": "ig_session", "value": cookie, "url": server.url}])
    page = context.new_page()
    page.goto("/healthz")
    return browser, page


def _same(got: Any, want: Any) -> None:
    """Equal, and every object's keys in the same order but for keys that look like
    array indices, which any JavaScript object (a whole message's too) puts first."""
    assert got == want
    if isinstance(want, dict):
        named = [k for k in want if not (isinstance(k, str) and k.isdigit())]
        assert [k for k in got if k in named] == named
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, list):
        for a, b in zip(got, want, strict=True):
            _same(a, b)


def test_apply_patch_in_the_page_is_the_servers_apply(sqlite_url: str, start_server: Any) -> None:
    """Along a six-power game, each seat's patch from memory (merges, splices, packed
    legal actions, the prompts said once) applied by the page's module to what it held
    gives the whole update's fields, as ``patch.apply`` does."""
    server = start_server(sqlite_url)
    state = engine.new_game("four_empires", POWERS, 5)
    rng = random.Random(5)
    cases: list[tuple[dict[str, Any], list[Any], dict[str, Any]]] = []
    held: dict[int | None, dict[str, Any]] = {}
    base = None
    clock: dict[str, Any] = {"seats": {str(i): {"deadline": None} for i in range(6)}}
    for version in range(1, 90):
        seat = engine.pending(state)[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        now = engine.pending(state)[0]["seat"]
        clock = {
            "seats": {str(i): {"deadline": f"d{version}" if i == now else None} for i in range(6)}
        }
        frame = _frame(state, version, clock=clock)
        frame.deadlines = {str(now): f"d{version}"}
        rendered = Rendered(frame, [], None)
        for who in (None, *range(6)):
            want = _fields(orjson.loads(rendered.text(who, 0)[0]))
            if base is not None:
                message = orjson.loads(rendered.text(who, 0, base)[0])
                if "patch" in message:
                    cases.append((held[who], message["patch"], want))
            held[who] = want
        base = rendered.base({None, *range(6)})
    kinds = {
        op[2] if len(op) > 2 and isinstance(op[2], str) else len(op) for c in cases for op in c[1]
    }
    assert {"merge", "actions", "prompts", 3, 2} <= kinds, kinds
    with playwright_api.sync_playwright() as p:
        browser, page = _open(p, server, None)
        try:
            page.evaluate(CONNECT, None)
            for was, ops, want in cases:
                got = orjson.loads(page.evaluate(APPLY, [was, ops]))
                _same({**got, "version": want["version"]}, want)
                _same(patch.apply(was, ops) | {"version": want["version"]}, want)
        finally:
            browser.close()


def test_a_page_kept_by_patches_holds_what_the_server_serves(
    sqlite_url: str, start_server: Any, new_player: Any
) -> None:
    """A real game played at random by two people, one of them through the page: after
    every move the page's fields, kept by patches from the first move on, are the seat's
    ``GET /view``, and the page was sent packed legal actions."""
    server = start_server(sqlite_url)
    table = make_table(server, new_player)
    me = table.players[0]
    rng = random.Random(7)
    with playwright_api.sync_playwright() as p:
        browser, page = _open(p, server, me.session_cookie)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.evaluate(CONNECT, table.game_id)
            wait_page(page, "window.__live.status === 'connected'", timeout=15000)
            for _ in range(40):
                view = me.view(table.game_id)
                if view["status"] != "active":
                    break
                actor = table.player_of_seat(int(view["prompts"][0]["seat"]))
                legal = actor.view(table.game_id)["legal_actions"]
                r = actor.act(table.game_id, rng.choice(legal), view["version"])
                assert r.status_code == 200, r.text
                version = int(r.json()["version"])
                wait_page(page, f"window.__live.version >= {version}", timeout=15000)
                seen = page.evaluate(
                    "() => JSON.stringify(window.__log.updates[window.__log.updates.length - 1])"
                )
                served = me.view(table.game_id)
                if served["version"] != version:
                    continue  # a bot or a deadline moved on meanwhile
                got = orjson.loads(seen)
                for key in served:
                    if key in got and key != "last_seq":
                        assert got[key] == served[key], key
            patched = page.evaluate("() => window.__live.patched")
            raw = page.evaluate("() => window.__raw")
            assert patched >= 30, patched
            assert any('"actions"]' in text for text in raw)
            assert not errors, errors
        finally:
            browser.close()
