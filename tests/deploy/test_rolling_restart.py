"""A rolling restart behind nginx (deploy/nginx.conf, two instances over one PostgreSQL):
one instance is stopped with SIGTERM and started again mid-game, under load, with the
game's pages open in Chromium.

Load: a four-empires game of two people and two bots, and a teaching game of a person
against a bot, every person played by a script through nginx's HTTP API (a move
with no answer, a transport error or a balancer's 502, is sent again with its
idempotency key until it is answered); the two people of the four-empires game also
have its page open. The instance restarted is that game's: its sockets close with 1012
and the pages reconnect through nginx to the other instance.

Checked: every game's log holds exactly the moves its script was told were applied,
each once (and none it was refused), and replays to its stored state; every page is
connected again and shows the server's version within 5 s of the SIGTERM (the time is
printed); nobody is shown gone or handed to a stand-in. Screenshots: the page while it
reconnects and once it is back (test-artifacts/)."""

from __future__ import annotations

import random
import threading
import time
import uuid
from typing import Any

import httpx
import pytest

from tests.browser.chromium import BROWSER_MARKS, artifact
from tests.browser.conftest import browser  # noqa: F401 (the fixture)
from tests.platform.test_play_http import assert_log_is_sound
from tests.realtime.conftest import make_table

from .conftest import INSTANCE_HEADER, NEEDS_NGINX, Balanced

pytestmark = [*BROWSER_MARKS, pytest.mark.postgres, NEEDS_NGINX]

GRACE_S = 6.0
#: every page must be back, at the server's version, this long after the SIGTERM
BACK_WITHIN_S = 5.0
#: seconds of play before the restart, and after the restarted instance is back
BEFORE_S, AFTER_S = 3.0, 3.0
#: a scripted person's pause between two moves (seconds)
THINK_S = (0.1, 0.4)
#: answers that mean "no answer": the request may or may not have been applied
NO_ANSWER = (502, 503, 504)

#: records, with the page's clock, every change of its connection chip and of the
#: version it shows
WATCH = """() => {
  const conn = document.getElementById("conn");
  const body = document.body;
  window.__conn = [[conn.dataset.state, performance.now()]];
  window.__ver = [[Number(body.dataset.version), performance.now()]];
  new MutationObserver(() => window.__conn.push([conn.dataset.state, performance.now()]))
    .observe(conn, { attributes: true, attributeFilter: ["data-state"] });
  new MutationObserver(() => window.__ver.push([Number(body.dataset.version), performance.now()]))
    .observe(body, { attributes: true, attributeFilter: ["data-version"] });
}"""
RECORD = "() => [performance.now(), window.__conn, window.__ver]"
SHOWN = "() => Number(document.body.dataset.version)"


def reconnected_at(record: list[Any], clock: tuple[float, float]) -> float | None:
    """When (time.monotonic()) a page was connected again after reconnecting, or None.
    `clock` pairs one reading of the page's clock with time.monotonic() taken at once."""
    states = [state for state, _t in record[1]]
    if "reconnecting" not in states:
        return None
    after = states.index("reconnecting")
    connected = [t for state, t in record[1][after:] if state == "connected"]
    return clock[1] + (connected[0] - clock[0]) / 1000 if connected else None


def caught_up_at(
    record: list[Any], clock: tuple[float, float], since: float, version: int
) -> float | None:
    """When (time.monotonic()), from `since` on, the page first showed `version` or later."""
    for shown, t in record[2]:
        at = clock[1] + (t - clock[0]) / 1000
        if shown >= version:
            return max(at, since)
    return None


class Versions(threading.Thread):
    """The server's version of a game, read through nginx every 50 ms: (when the read
    began, version), so that what a page shows can be compared with what there was."""

    def __init__(self, url: str, game_id: int) -> None:
        super().__init__(name="versions", daemon=True)
        self.url = f"{url}/api/games/{game_id}/view"
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=5) as http:
            while not self.stop.is_set():
                began = time.monotonic()
                try:
                    r = http.get(self.url)
                except httpx.TransportError:
                    continue
                if r.status_code == 200:
                    self.samples.append((began, int(r.json()["version"])))
                time.sleep(0.05)

    def at(self, moment: float) -> int:
        """The version the last read begun by `moment` found."""
        return max(v for t, v in self.samples if t <= moment)


class Script(threading.Thread):
    """The people of one game, moving through nginx as fast as a brisk person does."""

    def __init__(self, game_id: int, players: list[Any], stop: threading.Event) -> None:
        super().__init__(name=f"script-{game_id}", daemon=True)
        self.game_id = game_id
        self.players = players
        self.stop = stop
        self.rng = random.Random(game_id)
        self.acked: list[str] = []
        self.refused: list[str] = []
        self.resent = 0
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            turn = self._prompted()
            if turn is None:
                time.sleep(0.1)  # a bot is thinking, or the server is away
                continue
            player, view = turn
            action = self.rng.choice(view["legal_actions"])
            self._submit(player, action, int(view["version"]), uuid.uuid4().hex)
            time.sleep(self.rng.uniform(*THINK_S))

    def _prompted(self) -> tuple[Any, dict[str, Any]] | None:
        for player in self.players:
            try:
                r = player.http.get(f"/api/games/{self.game_id}/view")
            except httpx.TransportError:
                return None
            if r.status_code in NO_ANSWER:
                return None
            assert r.status_code == 200, r.text
            view = r.json()
            if view["status"] != "active":
                self.stop.set()
                return None
            if view["legal_actions"]:
                return player, view
        return None

    def _submit(self, player: Any, action: dict[str, Any], version: int, key: str) -> None:
        for _ in range(200):
            try:
                r = player.act(self.game_id, action, version, key)
            except httpx.TransportError:
                r = None
            if r is None or r.status_code in NO_ANSWER:
                self.resent += 1
                time.sleep(0.1)
                continue
            if r.status_code == 200:
                self.acked.append(key)
            elif r.status_code == 409:  # a bot moved first: refused, nothing applied
                self.refused.append(key)
            else:
                self.errors.append(f"{r.status_code} {r.text[:300]}")
            return
        self.errors.append(f"no answer to {key} after 200 tries")


def logged_keys(database_url: str, game_id: int) -> list[str]:
    from sqlalchemy import select

    from app.store.db import make_engine, make_sessionmaker
    from app.store.models import Action

    eng = make_engine(database_url)
    try:
        with make_sessionmaker(eng)() as db:
            return list(
                db.scalars(
                    select(Action.idempotency_key).where(
                        Action.game_id == game_id, Action.idempotency_key.is_not(None)
                    )
                )
            )
    finally:
        eng.dispose()


def test_an_instance_restarted_mid_game_loses_and_doubles_no_move(
    browser: Any,  # noqa: F811
    start_balanced: Any,
    new_player: Any,
    capsys: Any,
) -> None:
    balanced: Balanced = start_balanced(env={"SHUTDOWN_GRACE_S": str(GRACE_S)})
    main = make_table(balanced.url, new_player, humans=2, bots=2, scenario="four_empires")
    side = [make_table(balanced.url, new_player, humans=1, bots=1)]
    home = httpx.get(f"{balanced.url}/api/games/{main.game_id}").headers[INSTANCE_HEADER]
    restarted = balanced.instances[home]

    pages = []
    for person in main.players:
        context = browser.new_context(
            viewport={"width": 1280, "height": 860}, base_url=balanced.url
        )
        context.add_cookies(
            [{"name": "ig_session", "value": person.session_cookie, "url": balanced.url}]
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.goto(f"/games/{main.game_id}")
        page.locator("#conn[data-state=connected]").wait_for(timeout=15000)
        page.evaluate(WATCH)
        pages.append((page, errors))

    stop = threading.Event()
    scripts = [Script(main.game_id, main.players, stop)]
    scripts += [Script(t.game_id, t.players, stop) for t in side]
    for script in scripts:
        script.start()
    time.sleep(BEFORE_S)

    # The restart: SIGTERM, wait for the exit, start again on the same address and port.
    stopped: dict[str, float] = {}
    pages_back = threading.Event()

    def restart() -> None:
        began = time.monotonic()
        restarted.stop()
        stopped["exit_s"] = time.monotonic() - began
        # Started again once the pages are back: its start (seconds of CPU) would otherwise
        # compete with them on this one machine, which two machines do not.
        pages_back.wait(BACK_WITHIN_S + 15)
        restarted.start()
        stopped["up_s"] = time.monotonic() - began

    versions = Versions(balanced.url, main.game_id)
    versions.start()
    # Each page's clock read against ours, to date what the pages recorded.
    clocks = [(page.evaluate("performance.now()"), time.monotonic()) for page, _ in pages]
    time.sleep(0.2)
    t0 = time.monotonic()
    restarter = threading.Thread(target=restart)
    restarter.start()

    reconnected: dict[int, float] = {}
    shots = {"during": False}
    while len(reconnected) < len(pages) and time.monotonic() - t0 < 20:
        for i, (page, _errors) in enumerate(pages):
            record = page.evaluate(RECORD)
            if record[1][-1][0] != "connected" and not shots["during"]:
                page.screenshot(path=str(artifact("rolling-restart-reconnecting.png")))
                shots["during"] = True
            if i not in reconnected and (at := reconnected_at(record, clocks[i])):
                reconnected[i] = at
        time.sleep(0.05)
    # A page is back once connected again and showing at least the version the server
    # had when it reconnected: everything it missed while away.
    back: dict[int, float] = {}
    for i, (page, _errors) in enumerate(pages):
        if i in reconnected:
            missed = versions.at(reconnected[i])
            deadline = time.monotonic() + 5
            while (
                at := caught_up_at(page.evaluate(RECORD), clocks[i], reconnected[i], missed)
            ) is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if at is not None:
                back[i] = at - t0
    pages_back.set()
    restarter.join(60)
    every_page_back_s = max(back.values()) if len(back) == len(pages) else float("inf")
    pages[0][0].screenshot(path=str(artifact("rolling-restart-back.png")))

    time.sleep(AFTER_S)  # the game goes on, on the instances as they are now
    stop.set()
    versions.stop.set()
    for script in scripts:
        script.join(30)

    # Every page shows what the server holds, and nobody is gone or stood in for. The
    # people have stopped, but the bots may still be playing out their turns: the game
    # is read once it stands still (a second without a new version).
    final = main.players[0].view(main.game_id)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        time.sleep(1.0)
        again = main.players[0].view(main.game_id)
        if again["version"] == final["version"]:
            break
        final = again
    for page, errors in pages:
        deadline = time.monotonic() + 5
        while page.evaluate(SHOWN) < final["version"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert page.evaluate(SHOWN) == final["version"]
        assert not errors, errors
    clock = final.get("clock") or {}
    assert not clock.get("gone") and not clock.get("away"), clock

    lost = doubled = 0
    for script in scripts:
        assert not script.errors, script.errors
        logged = logged_keys(balanced.database_url, script.game_id)
        lost += len(set(script.acked) - set(logged))
        doubled += len(logged) - len(set(logged))
        assert sorted(logged) == sorted(script.acked), f"game {script.game_id}"
        assert not set(script.refused) & set(logged)
        assert_log_is_sound(balanced.database_url, script.game_id)
    moves = sum(len(s.acked) for s in scripts)
    resent = sum(s.resent for s in scripts)
    capsys.readouterr()
    with capsys.disabled():
        print(
            f"\nrolling restart of instance {home} behind nginx: {moves} moves by people "
            f"(+ the bots'), {resent} sent again, lost {lost}, doubled {doubled}; "
            f"instance exited {stopped.get('exit_s', -1):.2f}s after SIGTERM, up again "
            f"after {stopped.get('up_s', -1):.2f}s; every page back and up to date "
            f"{every_page_back_s:.2f}s after SIGTERM "
            f"({', '.join(f'{s:.2f}s' for s in sorted(back.values()))})"
        )
    assert stopped["exit_s"] < GRACE_S + 2
    timeline = [page.evaluate("() => window.__conn") for page, _ in pages]
    assert every_page_back_s <= BACK_WITHIN_S, (back, timeline)
    assert shots["during"], "no page was seen reconnecting"
    assert moves > 10
