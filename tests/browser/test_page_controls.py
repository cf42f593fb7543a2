"""The game page's seat controls, in headless Chromium against a real server
(``live_server``: uvicorn on an SQLite file): Undo, the standing-orders link, the
stand-in banner ("A bot is playing for you — I'm back").

The games are set up over the JSON API (two people from ``new_player``); the decisions
under test are clicks on the page. Whether an undo is allowed is the server's call
(app/services/play.py ``_undo_check``, told ahead as the view's ``can_undo``): choosing a turn-order slot right after diplomacy reveals
nothing and asks nobody else, so it can be taken back; a diplomatic move that hands the
decision to the other player cannot, and the page says so in the server's words.

Screenshots go to test-artifacts/ (undo.png, standin.png).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js

pytestmark = BROWSER_MARKS

playwright_api = pytest.importorskip("playwright.sync_api")


def two_people(live_server: Any, new_player: Any, pace: str = "live") -> tuple[int, list[Any]]:
    """Alice hosts a two-seat teaching game, Bob joins, Alice starts it."""
    alice, bob = new_player(live_server), new_player(live_server)
    game = alice.create_game(
        scenario="teaching", pace=pace, seats=[{"kind": "human"}, {"kind": "human"}]
    )
    assert bob.join(game["id"]).status_code == 200
    r = alice.start(game["id"])
    assert r.status_code == 200, r.text
    return int(game["id"]), [alice, bob]


def by_seat(game_id: int, people: list[Any]) -> dict[int, Any]:
    return {int(p.view(game_id)["seat"]): p for p in people}


def open_page(
    browser: Any,
    live_server: Any,
    player: Any,
    game_id: int,
    before: Callable[[Any], None] | None = None,
) -> tuple[Any, Any, list[str]]:
    """`player`'s game page, drawn; `before(page)` runs before it is loaded (routes)."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1400, "height": 900})
    context.add_cookies(
        [{"name": "ig_session", "value": player.session_cookie, "url": live_server.url}]
    )
    page = context.new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if before is not None:
        before(page)
    page.goto(f"/games/{game_id}")
    wait_js(page, "(document.body.dataset.version || '') !== ''")  # the view is drawn
    return context, page, errors


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(artifact(name)))


def miss_deadlines(live_server: Any, game_id: int) -> int | None:
    """Run the real deadline service on the server's database with the clock moved on,
    until a bot stands in for a seat (its index) or the game is over (None)."""
    from app.services import deadlines
    from app.store.db import make_engine, make_sessionmaker
    from app.store.models import Game

    sql = make_engine(live_server.database_url)
    factory = make_sessionmaker(sql)
    try:
        now = datetime.now(UTC) + timedelta(days=2)
        for _ in range(40):
            # Nothing due may only mean the server's bot worker has not answered yet.
            waited = time.monotonic() + 30
            while not deadlines.run_once(factory, now):
                with factory() as db:
                    row = db.get(Game, game_id)
                    if row is None or row.status != "active" or time.monotonic() > waited:
                        return None
                time.sleep(0.1)
            now += timedelta(days=2)
            with factory() as db:
                game = db.get(Game, game_id)
                assert game is not None
                stood = [s for s in game.seats if s.standin]
                if stood and game.status == "active":
                    return int(stood[0].index)
                if game.status != "active":
                    return None
    finally:
        sql.dispose()
    return None


def play_out_absent(live_server: Any, player: Any, game_id: int) -> None:
    """The player misses deadlines until a stand-in takes the seat; the server's bot
    worker then plays every seat to the end, after each commit."""
    miss_deadlines(live_server, game_id)
    deadline = time.monotonic() + 180
    while player.view(game_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)


def test_undo_takes_a_decision_back_and_a_refusal_is_said_in_words(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    game_id, people = two_people(live_server, new_player)
    seats = by_seat(game_id, people)
    # Diplomacy first (each power in turn): everyone passes, over the API.
    mover: Any = None
    for _ in range(6):
        prompt = seats[0].view(game_id)["prompts"][0]
        player = seats[int(prompt["seat"])]
        data = player.view(game_id)
        legal = data["legal_actions"]
        if any(a["type"] == "choose_slot" for a in legal):
            mover = player
            break
        action = next((a for a in legal if a.get("move") == "pass"), legal[0])
        r = player.act(game_id, action, data["version"])
        assert r.status_code == 200, r.text
    assert mover is not None, "no turn-order choice came up after diplomacy"

    context, page, errors = open_page(browser, live_server, mover, game_id)
    try:
        # The standing-orders link is in the header, for a seated player.
        orders = page.locator("#orders-link")
        assert orders.is_visible()
        assert orders.get_attribute("href") == f"/games/{game_id}/orders"
        assert not page.locator("#standin").is_visible()

        before = mover.view(game_id)
        offered = before["legal_actions"]
        slot = next(a for a in offered if a["type"] == "choose_slot")
        page.locator(
            f'#decide-body button.act[data-action="choose_slot"][data-slot="{slot["slot"]}"]'
        ).first.click()
        wait_js(page, f"Number(document.body.dataset.version) > {before['version']}")
        chosen = mover.view(game_id)
        assert chosen["legal_actions"] != offered, "the choice was not taken"
        assert chosen["can_undo"] is True and before["can_undo"] is False

        undo = page.locator('#undo-box button[data-control="undo"]')
        undo.click()
        wait_js(page, f"Number(document.body.dataset.version) > {chosen['version']}")
        page.locator("#log-list li", has_text="takes back their last decision").first.wait_for()
        after = mover.view(game_id)
        assert after["legal_actions"] == offered, "the decision was not taken back"
        assert after["view"] == before["view"]
        # the page offers the same choice again
        page.locator(
            f'#decide-body button.act[data-action="choose_slot"][data-slot="{slot["slot"]}"]'
        ).first.wait_for()
        assert "taken back" in page.locator("#notice").inner_text()
        shot(page, "undo.png")

        # What is now last (a diplomatic pass, which rolled the initiative, or the rival's)
        # cannot be taken back: the seat view says so (`can_undo`) and Undo is not offered.
        assert after["can_undo"] is False
        page.locator("#undo-box").wait_for(state="hidden")
        # A client that asks anyway (a race with the game moving on) gets the server's
        # refusal, shown in words, and the button stays hidden.
        page.evaluate("window.imperialGlory.controls.undo()")
        notice = page.locator("#notice.error")
        notice.wait_for()
        words = notice.inner_text()
        refusals = ("not the last thing that happened", "revealed something", "Another player")
        assert any(r in words for r in refusals), words
        page.locator("#undo-box").wait_for(state="hidden")
        assert mover.view(game_id)["version"] == after["version"]

        # The orders link leads to the standing-orders page of this game.
        orders.click()
        page.wait_for_url(re.compile(rf"/games/{game_id}/orders$"))
        page.locator("#orders-form").wait_for()
        assert "Standing orders" in page.locator("h1").inner_text()
        assert not errors, errors
    finally:
        context.close()


def test_a_stood_in_player_has_her_seat_back_when_she_opens_the_game(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """A bank run out (the real deadline service, run with a clock moved forward) puts a
    stand-in in a seat, said to everyone in the chronicle (no silent stand-in, issue 13).
    Its player opens the game: the seat is hers again at once (issue 40: a stand-in she
    did not ask for steps aside for her first socket), and the table is told."""
    game_id, people = two_people(live_server, new_player, pace="24h")
    stood_in = miss_deadlines(live_server, game_id)
    assert stood_in is not None, "no stand-in after missed deadlines"
    player = by_seat(game_id, people)[stood_in]
    assert player.view(game_id)["seats"][stood_in]["standin"]

    context, page, errors = open_page(browser, live_server, player, game_id)
    try:
        page.locator("#log-list li", has_text="a Standard bot play for them").first.wait_for()
        page.locator("#log-list li", has_text="Time ran out for").first.wait_for()
        page.locator("#log-list li", has_text="takes the seat back from the bot").first.wait_for()
        wait_js(
            page,
            "(() => { const s = window.imperialGlory.state;"
            " return !s.seats.find((x) => x.index === s.seat).standin; })()",
        )
        assert not page.locator("#standin").is_visible()
        assert page.locator(".ruler .badge.standin").count() == 0
        shot(page, "standin-back.png")
        view = player.view(game_id)
        assert not view["seats"][stood_in]["standin"]
        # the bot's moves are not the player's to take back
        assert view["can_undo"] is False
        assert not page.locator("#undo-box").is_visible()
        assert not errors, errors
    finally:
        context.close()


def test_a_finished_game_offers_a_rematch_and_its_record(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """Alice against a bot runs out of time; the stand-in and the bot then play the
    teaching game to its end. Her page offers the record and a rematch."""
    alice = new_player(live_server)
    game = alice.create_game(
        scenario="teaching",
        pace="24h",
        seats=[{"kind": "human"}, {"kind": "bot", "bot_level": "heuristic"}],
    )
    game_id = int(game["id"])
    assert alice.start(game_id).status_code == 200
    play_out_absent(live_server, alice, game_id)

    context, page, errors = open_page(browser, live_server, alice, game_id)
    try:
        over = page.locator("#game-over")
        over.wait_for()
        assert not page.locator("#undo-box").is_visible()
        assert not page.locator("#standin").is_visible()
        assert not page.locator("#orders-link").is_visible()  # nothing left to order
        record = over.locator('a[data-control="record"]')
        href = record.get_attribute("href") or ""
        assert href == f"/api/games/{game_id}/record"
        got = page.request.get(href)
        assert got.ok, got.text()
        assert got.json()["state_hash"] and got.json()["actions"]
        shot(page, "game-over.png")
        assert over.locator('a[data-control="replay"]').get_attribute("href") == (
            f"/games/{game_id}/replay"
        )
        over.get_by_role("button", name="Rematch").click()
        page.wait_for_url(re.compile(r"/games/(\d+)/lobby$"))
        found = re.search(r"/games/(\d+)/lobby$", page.url)
        assert found and int(found.group(1)) != game_id
        assert not errors, errors
    finally:
        context.close()


def test_a_finished_game_is_stepped_through_with_every_hand_shown(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """The replay page: the setup first, then one decision at a time (buttons and keys),
    the end, and any seat's hand; the board matches the API's step each time."""
    alice = new_player(live_server)
    game = alice.create_game(
        scenario="teaching",
        pace="24h",
        seats=[{"kind": "human"}, {"kind": "bot", "bot_level": "heuristic"}],
    )
    game_id = int(game["id"])
    assert alice.start(game_id).status_code == 200
    # Before the end there is no replay: the page sends you to the game.
    early = alice.http.get(f"/games/{game_id}/replay", follow_redirects=False)
    assert early.status_code == 303 and early.headers["location"] == f"/games/{game_id}"
    assert alice.http.get(f"/api/games/{game_id}/replay").status_code == 409
    play_out_absent(live_server, alice, game_id)
    steps = int(alice.http.get(f"/api/games/{game_id}/replay").json()["replay"]["steps"])
    assert steps > 20

    context = browser.new_context(base_url=live_server.url, viewport={"width": 1400, "height": 900})
    context.add_cookies(
        [{"name": "ig_session", "value": alice.session_cookie, "url": live_server.url}]
    )
    page = context.new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"/games/{game_id}/replay")
        bar = page.locator("#replay-bar")
        wait_js(page, "document.body.dataset.step === '0'")
        assert f"Step 0 of {steps}" in bar.inner_text()
        assert "The setup" in bar.locator(".replay-what").inner_text()
        assert bar.locator('[data-replay="back"]').is_disabled()
        page.locator("#map svg .area").first.wait_for()

        bar.locator('[data-replay="forward"]').click()
        wait_js(page, "document.body.dataset.step === '1'")
        first = alice.http.get(f"/api/games/{game_id}/replay", params={"step": 1}).json()
        who = bar.locator(".replay-what").inner_text()
        assert who.split(":")[0].strip() != "" and "setup" not in who
        assert first["replay"]["action"]["action"]["type"].replace("_", " ") in who.lower()
        page.keyboard.press("ArrowRight")
        wait_js(page, "document.body.dataset.step === '2'")
        page.keyboard.press("ArrowLeft")
        wait_js(page, "document.body.dataset.step === '1'")
        page.keyboard.press("End")
        wait_js(page, f"document.body.dataset.step === '{steps}'")
        assert bar.locator('[data-replay="forward"]').is_disabled()
        assert page.url.endswith(f"#step={steps}")
        # the log as it stood at the end, with the final scores' lines
        assert page.locator("#log-list li").count() > 5
        # The rival bot's hand, shown now that the game is over.
        bar.locator("select.replay-seat").select_option("1")
        wait_js(page, f"document.body.dataset.step === '{steps}'")
        page.locator("#mine", has_text="Draw pile").wait_for()
        theirs = alice.http.get(
            f"/api/games/{game_id}/replay", params={"step": steps, "seat": 1}
        ).json()
        assert theirs["seat"] == 1 and theirs["view"] != first["view"]
        shot(page, "replay.png")
        # A shared link opens at its step.
        page.goto(f"/games/{game_id}/replay#step=5")
        wait_js(page, "document.body.dataset.step === '5'")
        assert not errors, errors
    finally:
        context.close()


def hold_acks_until_the_push(page: Any, order: list[str]) -> None:
    """Route the page's game socket through the test, forwarding each server message
    except an ``ack``, which is held until the next message has gone through: the push
    of the new position then always beats the ack (as it may on a busy server). The
    kinds forwarded are appended to `order`."""

    def handler(ws: Any) -> None:
        server = ws.connect_to_server()
        held: list[str | bytes] = []

        def from_server(message: str | bytes) -> None:
            kind = ""
            if isinstance(message, str) and message.startswith("{"):
                kind = str(json.loads(message).get("type", ""))
            if kind == "ack":
                held.append(message)
                return
            ws.send(message)
            if kind in ("update", "state", "sync"):
                order.append(kind)
            while held:
                ws.send(held.pop(0))
                order.append("ack")

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/games/\d+"), handler)


def test_the_next_position_shows_its_odds_when_the_push_beats_the_ack(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """Taxing one area and then choosing another: the second area's odds appear even
    when the new position arrives before the server's ack of the first tax. (The page
    once marked the new position as already spent, and its breakdown never came.)"""
    game_id, people = two_people(live_server, new_player)
    seats = by_seat(game_id, people)
    for _ in range(20):  # diplomacy and the initiative, answered over the API
        views = {s: p.view(game_id) for s, p in seats.items()}
        seat, view = next((s, v) for s, v in views.items() if v["legal_actions"])
        taxes = [a for a in view["legal_actions"] if a["type"] == "tax"]
        if len({a["area"] for a in taxes}) >= 2:
            break
        r = seats[seat].act(game_id, view["legal_actions"][0], view["version"])
        assert r.status_code == 200, r.text
    else:
        pytest.fail("no turn with two areas to tax")
    first, second = taxes[0], next(a for a in taxes if a["area"] != taxes[0]["area"])

    order: list[str] = []
    context, page, errors = open_page(
        browser, live_server, seats[seat], game_id, lambda p: hold_acks_until_the_push(p, order)
    )
    try:
        wait_js(page, f"Number(document.body.dataset.version || -1) >= {view['version']}")
        # Over the socket: before it is up the page sends by HTTP, and there is no ack.
        wait_js(page, "window.imperialGlory.live?.status === 'connected'")
        scope = "#decide-body .taxation"
        for action in (first, second):
            page.locator(f'{scope} button.chip[data-area="{action["area"]}"]').click()
            page.locator(f'{scope} button.chip[data-tax="{action["amount"]}"]').click()
            page.locator(f"{scope} .explain-box .explain").wait_for()
            if action is first:
                page.locator(f"{scope} .commit button.act").click()
                wait_js(page, f"Number(document.body.dataset.version || -1) > {view['version']}")
                wait_js(page, "!document.querySelector('#decide-body.busy')")
        assert order[-2:] == ["update", "ack"], order  # the push did come first
        shot(page, "odds-after-early-push.png")
        assert not errors, errors
    finally:
        context.close()


def test_the_court_is_taxed_in_full_in_one_click(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """16.17: the court pays without a rebellion check, so the taxation panel offers its
    whole yield as one button; one click raises it."""
    game_id, people = two_people(live_server, new_player)
    seats = by_seat(game_id, people)
    for _ in range(20):  # diplomacy and the initiative, answered over the API
        views = {s: p.view(game_id) for s, p in seats.items()}
        seat, view = next((s, v) for s, v in views.items() if v["legal_actions"])
        court = view["view"]["players"][seat]["court"]
        full = [a for a in view["legal_actions"] if a["type"] == "tax" and a["area"] == court]
        if full:
            break
        r = seats[seat].act(game_id, view["legal_actions"][0], view["version"])
        assert r.status_code == 200, r.text
    else:
        pytest.fail("no turn with the court to tax")
    most = max(a["amount"] for a in full)
    talents = view["view"]["players"][seat]["talents"]
    context, page, errors = open_page(browser, live_server, seats[seat], game_id)
    try:
        wait_js(page, f"Number(document.body.dataset.version || -1) >= {view['version']}")
        button = page.locator("#decide-body .taxation .court-tax button.act")
        assert button.get_attribute("data-court-tax") == str(most)
        assert "no check" in button.inner_text()
        assert "16.14" in (button.get_attribute("title") or "")  # taxing opens the segment
        shot(page, "court-tax.png")
        button.click()
        wait_js(page, f"Number(document.body.dataset.version || -1) > {view['version']}")
        after = seats[seat].view(game_id)["view"]["players"][seat]
        assert after["talents"] == talents + most  # no demesne or reform pays in this game
        assert not errors, errors
    finally:
        context.close()


def test_a_late_answer_to_a_poll_does_not_take_the_page_back(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """The page's slow poll of the view is answered at version V; before that answer
    arrives, the socket pushes V+1. The page stays at V+1: it once went back to V, and
    since the server had pushed V+1 already, it waited on a stale board until the next
    poll (a browser test's intermittent 'did not move past version' failure)."""
    game_id, people = two_people(live_server, new_player)
    seats = by_seat(game_id, people)
    context, page, errors = open_page(browser, live_server, seats[0], game_id)
    held: list[tuple[Any, Any]] = []

    asked: list[Any] = []

    def hold(route: Any) -> None:
        if asked:  # only the poll under test is held
            route.continue_()
            return
        asked.append(route)
        held.append((route, route.fetch()))  # answered now, delivered later

    try:
        wait_js(page, "window.imperialGlory.live?.status === 'connected'")  # pushes flow
        version = int(page.evaluate("Number(document.body.dataset.version)"))
        page.route(re.compile(r"/api/games/\d+/view$"), hold)
        page.evaluate("() => { window.__poll = window.imperialGlory.refresh(); }")
        deadline = time.monotonic() + 15
        while not held:
            assert time.monotonic() < deadline, "the page did not ask for the view"
            page.wait_for_timeout(50)
        view = next(v for v in (p.view(game_id) for p in people) if v["legal_actions"])
        assert view["version"] == version
        mover = seats[view["seat"]]
        r = mover.act(game_id, view["legal_actions"][0], version)
        assert r.status_code == 200, r.text
        wait_js(page, f"Number(document.body.dataset.version) === {version + 1}")  # pushed
        route, response = held.pop()
        route.fulfill(response=response)  # the older answer arrives last
        after = page.evaluate(
            "async () => { await window.__poll; return document.body.dataset.version; }"
        )
        assert int(after) == version + 1
        assert not errors, errors
    finally:
        context.close()


def _place(action: dict[str, Any]) -> tuple[Any, Any]:
    return action.get("base"), action.get("target")


#: what the other moves over the API take, so the game walks on without endeavours
_WALK = ("choose_slot", "draw", "end_turn", "dismiss", "decline", "abstain")


def test_the_next_endeavour_starts_where_the_last_one_acted(
    browser: Any, live_server: Any, new_player: Any
) -> None:
    """After an endeavour made on the page, the next endeavour's wizard keeps its base and
    target while an endeavour open then acts there: the person chooses the kind and the
    talents, without two more picks on the map (app/balance/pace.py charges it so)."""
    from .test_play_in_browser import choose_field

    game_id, people = two_people(live_server, new_player)
    seats = by_seat(game_id, people)
    mover: Any = None
    context: Any = None
    place: tuple[Any, Any] | None = None
    scope = "#decide-body .wizard"
    try:
        for _ in range(600):
            prompt = seats[0].view(game_id)["prompts"][0]
            player = seats[int(prompt["seat"])]
            data = player.view(game_id)
            legal = data["legal_actions"]
            ends = [a for a in legal if a["type"] == "endeavour"]
            if ends and mover is None:
                # The first endeavour: made on this person's page, at the place most of
                # the endeavours open can act on (an area of their own, usually).
                mover = player
                context, page, errors = open_page(browser, live_server, mover, game_id)
                counts: dict[tuple[Any, Any], int] = {}
                for a in ends:
                    counts[_place(a)] = counts.get(_place(a), 0) + 1
                place = max(counts, key=lambda p: counts[p])
                first = min(
                    (a for a in ends if _place(a) == place), key=lambda a: a.get("talents", 0)
                )
                page.locator(scope).wait_for()
                assert not page.locator(f"{scope} .hint.carried").count()  # nothing yet
                for field in ["kind", "base", "target", "talents"]:
                    if field in first:
                        choose_field(page, scope, field, first[field])
                page.locator(f"{scope} .commit button[data-action=endeavour]").click()
                wait_js(page, f"Number(document.body.dataset.version) > {data['version']}")
                continue
            if ends and player is mover and any(_place(a) == place for a in ends):
                break  # the page's turn again, with the place open
            walk = next((a for k in _WALK for a in legal if a["type"] == k), None)
            pass_ = next((a for a in legal if a.get("move") == "pass"), None)
            action = pass_ or walk or legal[0]
            r = player.act(game_id, action, data["version"])
            assert r.status_code == 200, r.text
        else:
            raise AssertionError("the endeavour's place never came up again")
        assert place is not None
        base, target = place
        wait_js(page, f"Number(document.body.dataset.version) >= {data['version']}")
        hint = page.locator(f"{scope} .hint.carried")
        hint.wait_for()
        assert hint.get_attribute("data-area") == str(target)
        kind = next(a["kind"] for a in ends if _place(a) == place)
        page.locator(f'{scope} button.chip[data-field="kind"][data-value="{kind}"]').click()
        # base and target are chosen already: the next step is the talents (or the commit)
        for field, value in (("base", base), ("target", target)):
            if value is None:
                continue
            step = page.locator(f"{scope} .step-{field}")
            step.wait_for()
            on = step.locator(f'button.chip.on[data-value="{value}"], span.chosen')
            picked = step.locator("select")
            assert on.count() or (picked.count() and json.loads(picked.input_value()) == value)
        page.locator(f"{scope} .step-talents, {scope} .commit").first.wait_for()
        assert not page.locator(f"{scope} .hint.carried").count()
        shot(page, "endeavour-again.png")
        assert not errors, errors
    finally:
        if context is not None:
            context.close()
