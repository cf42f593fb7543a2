"""Two people play the teaching scenario through the game page, in headless Chromium.

Real everything: a uvicorn server on an SQLite file (``live_server``), Debian's
Chromium driven by Playwright, two browser contexts (two cookie jars). They sign up
through the forms, create and join a game, and play through the page only: every
decision is a click on what the page offers (the test reads the legal actions from the
JSON API only to choose *which* offered option to click, as a person would read the
board). Along the way: a petition, an endeavour with talents (after the breakdown is
shown), a defense interrupt answered in the other browser, taxation.

Screenshots go to test-artifacts/ (the map, a dialog, the phone layout).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")


class Person:
    """One player: a browser context (own cookies) with one page."""

    def __init__(self, browser: Any, base: str, name: str, viewport: dict[str, int]) -> None:
        self.name = name
        self.base = base
        self.context = browser.new_context(viewport=viewport, base_url=base)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.console: list[str] = []
        self.page.on(
            "console",
            lambda m: (
                self.console.append(f"{m.text} @ {m.location.get('url')}")
                if m.type == "error"
                else None
            ),
        )
        self.page.set_default_timeout(15000)

    def signup(self) -> None:
        self.page.goto("/signup")
        self.page.fill("input[name=username]", self.name)
        self.page.fill("input[name=password]", "correct horse 1")
        self.page.click("form[action='/signup'] button[type=submit]")
        self.page.wait_for_load_state()

    def api_view(self, game_id: int) -> dict[str, Any]:
        r = self.page.request.get(f"/api/games/{game_id}/view")
        assert r.ok, r.text()
        data: dict[str, Any] = r.json()
        return data

    def shot(self, name: str, full_page: bool = False) -> Path:
        path = artifact(name)
        self.page.screenshot(path=str(path), full_page=full_page)
        return path


def attr(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def css_value(value: Any) -> str:
    return attr(value).replace("\\", "\\\\").replace('"', '\\"')


def wait_version_after(person: Person, game_id: int, version: int, timeout: float = 15.0) -> None:
    """Wait until the page shows a newer version than `version` (pushed or polled)."""
    wait_js(
        person.page,
        f"Number(document.body.dataset.version || -1) > {version}",
        timeout=timeout * 1000,
    )


def choose_field(page: Any, scope: str, field: str, value: Any) -> None:
    """Click the chip for `field`=`value` if the step offers a choice (a single value is
    chosen by the page itself and shown as text)."""
    chip = page.locator(
        f'{scope} button.chip[data-field="{field}"][data-value="{css_value(value)}"]'
    )
    if chip.count():
        if field == "talents":
            click_or_the_sure_amount(page, chip.first, f"{scope} .hint.sure")
        else:
            chip.first.click()
        return
    select = page.locator(f'{scope} select[data-field="{field}"]')
    if select.count():  # a long list is a list box
        select.select_option(value=json.dumps(value))


def click_or_the_sure_amount(page: Any, button: Any, sure: str) -> None:
    """Click a talents choice; when the page has hidden it because a smaller amount
    already makes the result certain (more would be wasted, issue 13), click the page's
    sure amount instead, as a person would."""
    try:
        button.click(timeout=3000)
    except playwright_api.Error:
        amount = page.locator(sure).first.get_attribute("data-sure")
        scope = sure.rsplit(" ", 1)[0]
        page.locator(
            f'{scope} button[data-talents="{amount}"], {scope} button.chip[data-field="talents"][data-value="{amount}"]'
        ).first.click()


def key_index(page: Any, action: dict[str, Any]) -> int:
    """The index, among the decide panel's buttons with a `data-key`, of the one whose
    key is `action` (compared as JSON values, so key order does not matter)."""
    wait_js(page, "document.querySelector('#decide-body button[data-key]') !== null")
    index = page.evaluate(
        """(want) => {
          const norm = (v) => Array.isArray(v) ? v.map(norm) : v && typeof v === "object"
            ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, norm(v[k])])) : v;
          const target = JSON.stringify(norm(want));
          const keys = [...document.querySelectorAll("#decide-body button[data-key]")]
            .map((b) => { try { return JSON.stringify(norm(JSON.parse(b.dataset.key))); }
                          catch { return b.dataset.key; } });
          return keys.indexOf(target);
        }""",
        action,
    )
    assert index >= 0, f"no button on the page for {action}"
    return int(index)


class Table:
    """Drives both people through the game and records what was exercised."""

    def __init__(self, people: list[Person], game_id: int) -> None:
        self.people = people
        self.game_id = game_id
        self.done: dict[str, bool] = {
            "petition": False,
            "endeavour_talents": False,
            "defense": False,
            "taxation": False,
            "recruit": False,
        }
        self.dialog_shot = False
        self.breakdown_shot = False
        self.refusal_seen = False
        self.kinds: dict[str, int] = {}  # how many of each kind of decision were made

    def seat_of(self, person: Person) -> int:
        return int(person.api_view(self.game_id)["seat"])

    def step(self, wait_s: float = 30.0) -> bool:
        """One decision by whoever has one. False when the game is over, or nobody has
        had anything to decide for `wait_s` (bots answer after the person's commit, from
        the bot worker: while one is thinking, poll until its move lands)."""
        deadline = time.monotonic() + wait_s
        while True:
            for person in self.people:
                data = person.api_view(self.game_id)
                legal = data["legal_actions"]
                if not legal:
                    continue
                action = self.choose(data, legal)
                self.perform(person, data, action)
                return True
            if data["status"] != "active" or time.monotonic() > deadline:
                return False
            time.sleep(0.05)

    # --- what a sensible person would pick, aiming to see every kind of decision ---
    def choose(self, data: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        """A plain strategy: declare war, attack the rival where a border allows (so the
        rival is asked to defend), petition once, pay talents into one endeavour, tax
        every area, keep a year and some talents for defending."""
        me = data["seat"]
        view = data["view"] or {}
        areas = view.get("areas", {})
        mine = (view.get("players") or [{}] * (me + 1))[me]
        by: dict[str, list[dict[str, Any]]] = {}
        for a in legal:
            by.setdefault(a["type"], []).append(a)
        if "defend" in by:
            return max(by["defend"], key=lambda a: a.get("talents", 0))
        if "vote" in by:
            return by["vote"][0]
        if "waive_tie" in by:
            return by["waive_tie"][0]
        if "answer_offer" in by:  # a newcomer signs what a bot offers
            accept = [a for a in by["answer_offer"] if a.get("answer") == "accept"]
            return (accept or by["answer_offer"])[0]
        if "verdict" in by:  # a parley's verdict is obeyed (20.41)
            return next((a for a in by["verdict"] if a.get("comply")), by["verdict"][0])
        if "diplo" in by:
            war = [a for a in by["diplo"] if a.get("move") == "declare_war"]
            if war:
                return war[0]
            return next((a for a in by["diplo"] if a.get("move") == "pass"), by["diplo"][0])
        if "petition" in by and not self.done["petition"]:
            return by["petition"][0]
        if "endeavour" in by:
            ends = by["endeavour"]
            rival = [
                a
                for a in ends
                if a["kind"] in ("conquest", "pillage")
                and areas.get(a["target"], {}).get("owner") not in (None, me)
            ]
            if rival and not self.done["defense"]:
                return max(rival, key=lambda a: a.get("talents", 0))
            paid = [a for a in ends if a.get("talents", 0) > 0]
            if paid and not self.done["endeavour_talents"]:
                return min(paid, key=lambda a: a["talents"])
            if mine.get("talents", 0) < 6 and "dismiss" in by:
                return by["dismiss"][0]
            free = [a for a in ends if a.get("talents", 0) == 0]
            return free[0] if free else ends[0]
        if "tax" in by:
            return min(by["tax"], key=lambda a: a.get("amount", 0))
        if "recruit" in by and not self.done["recruit"]:
            return by["recruit"][0]
        if "end_turn" in by and "draw" in by and mine.get("years_left", 0) <= 1:
            return by["end_turn"][0]  # a year kept to defend with (13.13)
        for kind in ("choose_slot", "draw", "dismiss", "end_turn"):
            if kind in by:
                return by[kind][0]
        return legal[0]

    # --- doing it through the page ---
    def perform(self, person: Person, data: dict[str, Any], action: dict[str, Any]) -> None:
        page = person.page
        version = data["version"]
        wait_js(page, f"Number(document.body.dataset.version || -1) >= {version}")
        kind = action["type"]
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if kind in ("defend", "decline") and (data["view"] or {}).get("interrupt"):
            dialog = page.locator("#decision-dialog")
            dialog.wait_for(state="visible")
            if kind == "defend":
                # every amount says at once what it buys: their rating after it, and odds
                wait_js(
                    page,
                    "[...document.querySelectorAll('#decision-dialog button[data-action=defend]"
                    " .chip-odds')].every(s => s.textContent.includes('their rating'))",
                )
            if not self.dialog_shot:
                person.shot("dialog-defense.png")
                self.dialog_shot = True
            if kind == "defend":
                btn = dialog.locator(
                    f'button[data-action="defend"][data-talents="{action.get("talents", 0)}"]'
                )
                click_or_the_sure_amount(page, btn, "#decision-dialog .hint.sure")
            else:
                dialog.locator('button[data-action="decline"]').click()
            self.done["defense"] = True
        elif kind == "vote":
            dialog = page.locator("#decision-dialog")
            dialog.wait_for(state="visible")
            dialog.locator(
                f'button[data-action="vote"][data-choice="{css_value(action["choice"])}"]'
            ).click()
        elif kind == "endeavour":
            scope = "#decide-body .wizard"
            page.locator(scope).wait_for()
            for field in [
                "kind",
                "base",
                "target",
                *[k for k in action if k not in ("type", "kind", "base", "target", "talents")],
                "talents",
            ]:
                if field in action:
                    choose_field(page, scope, field, action[field])
            commit = page.locator(f"{scope} .commit button[data-action=endeavour]")
            commit.wait_for()
            # the breakdown is on screen before the player commits
            page.locator(f"{scope} .explain-box .explain").wait_for()
            assert page.locator(f"{scope} .explain-box table.terms tr").count() >= 2
            if not self.breakdown_shot:
                person.shot("endeavour-breakdown.png")
                self.breakdown_shot = True
            commit.click()
            if action.get("talents", 0) > 0:
                self.done["endeavour_talents"] = True
        elif kind in ("tax", "plunder"):
            scope = "#decide-body .taxation"
            page.locator(f'{scope} button.chip[data-area="{action["area"]}"]').click()
            label = "plunder" if kind == "plunder" else str(action["amount"])
            page.locator(f'{scope} button.chip[data-tax="{label}"]').click()
            page.locator(f"{scope} .explain-box .explain").wait_for()
            if not self.done["taxation"]:
                page.locator(f"{scope} .chip-odds").first.wait_for()
                person.shot("taxation.png")
            page.locator(f"{scope} .commit button.act").click()
            self.done["taxation"] = True
        else:
            sel = f'#decide-body button.act[data-action="{kind}"]'
            for k, v in action.items():
                if k != "type":
                    sel += f'[data-{re.sub(r"_", "-", k)}="{css_value(v)}"]'
            if kind == "recruit":
                sel = sel.replace("#decide-body ", "")
            button = page.locator(sel).first
            if not page.locator(sel).count():
                # buttons that carry their whole action as data-key (grand diplomacy)
                button = page.locator("#decide-body button[data-key]").nth(key_index(page, action))
            button.click()
            if kind in ("petition", "recruit"):
                self.done[kind] = True
        try:
            wait_version_after(person, self.game_id, version)
        except playwright_api.Error as exc:
            notice = page.locator("#notice").inner_text() if page.locator("#notice").count() else ""
            raise AssertionError(
                f"{person.name}: {action} did not move the game past version {version}; "
                f"page notice {notice!r}; page version "
                f"{page.evaluate('document.body.dataset.version')}; busy "
                f"{page.evaluate('window.imperialGlory.decisions.busy')}; server "
                f"{person.api_view(self.game_id)['version']}; console {person.console[-5:]}"
            ) from exc


def open_table(
    browser: Any, base: str, scenario: str, powers: tuple[str, str] | None = None
) -> tuple[Person, Person, int]:
    """Two people sign up, Alice creates a two-seat game, Bob joins by the invite link,
    Alice starts; both end on the game page with the map drawn."""
    suffix = uuid.uuid4().hex[:6]
    alice = Person(browser, base, f"alice{suffix}", {"width": 1400, "height": 900})
    bob = Person(browser, base, f"bob{suffix}", {"width": 1280, "height": 860})
    alice.signup()
    bob.signup()

    page = alice.page
    page.goto("/games/new")
    page.select_option("#scenario", value=scenario)
    if powers:
        page.select_option("#power", value=powers[0])
    page.select_option("select[name=seat_1]", value="human")
    for extra in range(2, 6):  # a two-seat game (the form may already hide these)
        seat_select = page.locator(f"select[name=seat_{extra}]")
        if seat_select.count() and seat_select.is_visible():
            seat_select.select_option(value="none")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/games/\d+/lobby"))
    found = re.search(r"/games/(\d+)/", page.url)
    assert found, page.url
    game_id = int(found.group(1))
    invite = page.input_value("#invite-link")

    bob.page.goto(invite)
    if powers:
        bob.page.select_option("#join-form select[name=power]", value=powers[1])
    bob.page.click("#join-form button[type=submit]")
    bob.page.wait_for_load_state()

    page.goto(f"/games/{game_id}/lobby")
    page.click("form[action$='/start'] button[type=submit]")
    page.wait_for_url(re.compile(rf"/games/{game_id}$"))
    bob.page.goto(f"/games/{game_id}")
    for person in (alice, bob):
        person.page.locator("#map svg .area").first.wait_for()
        wait_js(person.page, "document.body.dataset.version !== ''")
    return alice, bob, game_id


def play(
    table: Table, people: list[Person], goals: list[str], min_rounds: int, budget_s: float
) -> set[tuple[int, int]]:
    start = time.monotonic()
    rounds_seen: set[tuple[int, int]] = set()
    while time.monotonic() - start < budget_s:
        if not table.step():
            break  # nobody has a decision: the game is over
        v = people[0].api_view(table.game_id)["view"] or {}
        rounds_seen.add((v.get("turn", 0), v.get("round", 0)))
        if all(table.done[g] for g in goals) and len(rounds_seen) >= min_rounds:
            break
    return rounds_seen


def test_two_people_play_the_teaching_scenario_in_the_browser(
    browser: Any, live_server: Any
) -> None:
    alice, bob, game_id = open_table(browser, live_server.url, "teaching")
    try:
        alice.shot("map-desktop.png")
        # Both pages are live over the websocket (static/js/live.js), not polling.
        for person in (alice, bob):
            person.page.locator("#conn[data-state=connected]").wait_for()
        # The page's own status line names who must decide.
        assert alice.page.locator("#status .waiting-for").inner_text().strip() != ""

        # A refusal is shown in words: send an action the server must refuse.
        alice.page.evaluate("window.imperialGlory.send({type: 'no_such_move'})")
        notice = alice.page.locator("#notice")
        notice.wait_for(state="visible")
        assert len(notice.inner_text().strip()) > 10

        table = Table([alice, bob], game_id)
        goals = ["petition", "endeavour_talents", "taxation", "recruit"]
        rounds_seen = play(table, [alice, bob], goals, min_rounds=3, budget_s=300)
        assert all(table.done[g] for g in goals), f"not every decision came up: {table.done}"
        assert len(rounds_seen) >= 3, rounds_seen
        alice.shot("map-after-play.png")

        # The log links rule numbers to the rulebook.
        links = alice.page.locator("#log-list a.rule")
        assert links.count() > 0
        href = links.first.get_attribute("href") or ""
        assert re.fullmatch(r"/rules#r\d+(\.\d+)*[a-z]?", href), href

        # Table talk: Alice writes, Bob reads it on his page.
        alice.page.fill("#chat input[name=chat]", "Greetings from Chang'an")
        alice.page.click("#chat button[type=submit]")
        bob.page.locator("#chat .chat-list li", has_text="Greetings from Chang'an").wait_for(
            timeout=15000
        )

        # A visitor (not logged in) watches the public game: no hand, no decisions.
        visitor = Person(browser, live_server.url, "visitor", {"width": 1280, "height": 800})
        visitor.page.goto(f"/games/{game_id}")
        visitor.page.locator("#map svg .area").first.wait_for()
        wait_js(visitor.page, "document.body.dataset.version !== ''")
        assert visitor.page.locator("#decide-h").inner_text() == "At the table"
        assert "watching" in visitor.page.locator("#mine").inner_text()
        assert visitor.page.locator("#decide-body button.act").count() == 0
        visitor.context.close()

        # The phone layout (375 x 812), Alice's seat in a third context.
        phone = Person(browser, live_server.url, "phone", {"width": 375, "height": 812})
        phone.context.add_cookies(alice.context.cookies())
        phone.page.goto(f"/games/{game_id}")
        phone.page.locator("#map svg .area").first.wait_for()
        wait_js(phone.page, "document.body.dataset.version !== ''")
        phone.shot("phone.png")
        phone.shot("phone-full.png", full_page=True)
        width = phone.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 380, f"the phone layout scrolls sideways ({width}px)"
        phone.context.close()

        assert not alice.errors and not bob.errors, alice.errors + bob.errors
        # no failed request or script error on the game page (the site's pages lack a favicon)
        noise = [c for c in alice.console + bob.console if "favicon.ico" not in c]
        assert not noise, noise
    finally:
        alice.context.close()
        bob.context.close()


def test_a_defense_interrupt_is_answered_in_the_other_browser(
    browser: Any, live_server: Any
) -> None:
    """The teaching scenario's two empires start with no common border, so an attack on
    the other player needs a border: the two-player Successors game (Ptolemaic Egypt and
    the Seleucids meet in Syria) brings one at once."""
    alice, bob, game_id = open_table(
        browser, live_server.url, "successors", powers=("ptolemaic", "seleucid")
    )
    try:
        table = Table([alice, bob], game_id)
        play(table, [alice, bob], ["defense"], min_rounds=1, budget_s=240)
        assert table.done["defense"], f"no defense interrupt came up: {table.done}"
        assert table.dialog_shot
        # the outcome of the defended endeavour reaches both chronicles
        for person in (alice, bob):
            wait_js(
                person.page,
                "[...document.querySelectorAll('#log-list li')].some(li => /defen/i.test(li.textContent))",
            )
        assert not alice.errors and not bob.errors, alice.errors + bob.errors
    finally:
        alice.context.close()
        bob.context.close()


def test_a_newcomer_plays_the_teaching_game_to_its_end_against_a_bot(
    browser: Any, live_server: Any
) -> None:
    """Sign up, take the default new game (the teaching scenario against a heuristic bot,
    which starts at once), and click through to the final scores."""
    newcomer = Person(
        browser, live_server.url, f"new{uuid.uuid4().hex[:6]}", {"width": 1366, "height": 768}
    )
    try:
        newcomer.signup()  # lands on the new-game form
        page = newcomer.page
        page.select_option("#scenario", value="teaching")
        page.click("#new-game button[type=submit]")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        found = re.search(r"/games/(\d+)$", page.url)
        assert found, page.url
        game_id = int(found.group(1))
        page.locator("#map svg .area").first.wait_for()
        wait_js(page, "document.body.dataset.version !== ''")

        table = Table([newcomer], game_id)
        start = time.monotonic()
        while time.monotonic() - start < 400 and table.step():
            pass
        data = newcomer.api_view(game_id)
        assert data["status"] == "finished" or (data["view"] or {}).get("over"), (
            data["status"],
            table.kinds,
        )
        outcome = page.locator("#decide-body .outcome")
        outcome.wait_for()
        text = outcome.inner_text()
        assert "VP" in text and ("wins" in text or "over" in text), text
        newcomer.shot("game-over.png")
        assert not newcomer.errors, newcomer.errors
    finally:
        newcomer.context.close()
