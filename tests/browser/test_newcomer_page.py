"""What a newcomer met on the game page (issue 13, items 4-6), each pinned down in
headless Chromium against a fixed seat view (fixture_app.py: the real template, CSS
and JavaScript). Each test is the check that would have caught its defect."""

from __future__ import annotations

import copy
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from .chromium import NEEDS_CHROMIUM, artifact
from .fixture_app import build_app, fixture_state

pytestmark = [pytest.mark.browser, NEEDS_CHROMIUM]
playwright_api = pytest.importorskip("playwright.sync_api")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any]]:
    import uvicorn

    app = build_app()
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(timeout=5)


@pytest.fixture
def open_page(served: tuple[str, Any], browser: Any) -> Iterator[Callable[..., Any]]:
    """open_page(state, explain=None) -> the page, drawn from that seat view."""
    url, app = served
    contexts: list[Any] = []
    errors: list[str] = []

    def go(state: dict[str, Any], explain: Callable[[dict[str, Any]], Any] | None = None) -> Any:
        app.state.game = state
        app.state.explain = explain
        app.state.sent.clear()
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.set_default_timeout(10000)
        pg.goto(f"{url}/games/1")
        pg.wait_for_function(f"document.body.dataset.version === '{state['version']}'")
        return pg

    yield go
    for c in contexts:
        c.close()
    assert not errors, errors


def state_with(**changes: Any) -> dict[str, Any]:
    s = copy.deepcopy(fixture_state())
    for k, v in changes.items():
        s[k] = v
    return s


# --------------------------------------------------------------------------- 4. wording


def test_the_defense_dialog_speaks_from_the_defenders_side(open_page: Callable[..., Any]) -> None:
    s = state_with(
        legal_actions=[{"type": "defend", "talents": t} for t in range(4)] + [{"type": "decline"}],
        prompts=[{"seat": 0, "kind": "defend", "label": "Han attacks Bactria: defend?"}],
    )
    s["view"]["interrupt"] = {
        "attacker": 1,
        "defender": 0,
        "target": "bactria",
        "kind": "conquest",
        "rating": 3,
    }

    def explain(a: dict[str, Any]) -> Any:
        if a["type"] != "defend":
            return None
        t = a["talents"]
        t = min(t, 2)  # from two talents on they cannot harm you
        odds = {"-1B": 0.25 + 0.25 * t, "none": 0.25, "C": max(0.0, 0.5 - 0.25 * t)}
        return {
            "type": "defend",
            "rating": 3 - t,
            "cost": 1,
            "odds": odds,
            "results": {
                "-1B": "your base area loses a social level",
                "none": "no effect",
                "C": "conquest",
            },
        }

    pg = open_page(s, explain)
    dialog = pg.locator("#decision-dialog")
    dialog.wait_for(state="visible")
    pg.wait_for_function(
        "[...document.querySelectorAll('#decision-dialog .chip-odds')].every(s => s.textContent.includes('unharmed'))"
    )
    assert "75% chance you are unharmed" in pg.locator("button[data-talents='1']").inner_text()
    pg.hover("button[data-talents='1']")
    pg.wait_for_function(
        "(document.querySelector('.defense-explain') || {}).textContent?.includes('after your defense: 2')"
    )
    text = pg.locator(".defense-explain").inner_text()
    assert "their own base area loses a social level; yours is untouched" in text
    assert "your base area loses" not in text.replace("their own base area", "")
    assert "It costs you: 2 talents — 1 to defend at all" in text  # "Cost: 1" explained
    assert "Their rating after your defense: 2" in text
    pg.screenshot(path=str(artifact("newcomer-defense.png")))


def _defense_state(amounts: int) -> dict[str, Any]:
    s = state_with(
        legal_actions=[{"type": "defend", "talents": t} for t in range(amounts)]
        + [{"type": "decline"}],
        prompts=[{"seat": 0, "kind": "defend", "label": "Han attacks Bactria: defend?"}],
    )
    s["view"]["interrupt"] = {
        "attacker": 1,
        "defender": 0,
        "target": "bactria",
        "kind": "conquest",
        "rating": 1,
    }
    return s


def _shown_defenses(pg: Any) -> list[str]:
    buttons = pg.locator("#decision-dialog button[data-action=defend]")
    return [
        str(buttons.nth(i).get_attribute("data-talents"))
        for i in range(buttons.count())
        if buttons.nth(i).is_visible()
    ]


def test_the_defense_dialog_offers_only_amounts_that_change_the_odds(
    open_page: Callable[..., Any],
) -> None:
    """Issue 26: 1-5 talents were offered when every one said "100% chance you are
    unharmed", and "Defend with 0 talents" sat above "It costs you: 1 talent"."""

    def certain(a: dict[str, Any]) -> Any:
        if a["type"] != "defend":
            return None
        t = a["talents"]
        return {"type": "defend", "rating": -1 - t, "cost": 1, "odds": {"none": 1.0}}

    pg = open_page(_defense_state(5), certain)
    hint = pg.locator("#decision-dialog .hint.sure")
    hint.wait_for()
    assert _shown_defenses(pg) == ["0"]
    assert hint.get_attribute("data-sure") == "0"
    assert "cannot harm you" in hint.inner_text()
    cheapest = pg.locator("#decision-dialog button[data-talents='0']")
    assert cheapest.inner_text().startswith("Defend")
    assert "0 talents" not in cheapest.inner_text()
    assert "costs 1 talent → their rating -1 · 100% chance you are unharmed" in (
        cheapest.inner_text()
    )
    pg.hover("#decision-dialog button[data-talents='0']")
    pg.wait_for_function(
        "(document.querySelector('.defense-explain') || {}).textContent?.includes('It costs you: 1 talent')"
    )
    pg.screenshot(path=str(artifact("defense-only-useful.png")))

    def floor(a: dict[str, Any]) -> Any:
        """One talent helps; past it their rating is at its floor and nothing changes."""
        if a["type"] != "defend":
            return None
        t = min(a["talents"], 1)
        return {
            "type": "defend",
            "rating": 2 - t,
            "cost": 1,
            "odds": {"none": 0.4 + 0.2 * t, "C": 0.6 - 0.2 * t},
        }

    pg = open_page(_defense_state(4), floor)
    hint = pg.locator("#decision-dialog .hint.sure")
    hint.wait_for()
    assert _shown_defenses(pg) == ["0", "1"]
    assert "would not change the odds" in hint.inner_text()
    assert (
        pg.locator("#decision-dialog button[data-talents='1']")
        .inner_text()
        .startswith("Defend, adding 1 talent")
    )
    assert "costs 2 talents" in pg.locator("#decision-dialog button[data-talents='1']").inner_text()


def test_the_chronicle_reads_as_plain_english(open_page: Callable[..., Any]) -> None:
    s = state_with(
        events=[
            {
                "seq": 1,
                "text": "Han: plot_coup against Ferghana — rating 2.",
                "rule": "8.7",
                "to": None,
            },
            {
                "seq": 2,
                "text": "Kujula Kadphises draws a administration advisor.",
                "rule": None,
                "to": None,
            },
            {
                "seq": 3,
                "text": "Han pays 1 talents; Kushan pays 11 talents.",
                "rule": None,
                "to": None,
            },
        ]
    )
    pg = open_page(s)
    log = pg.locator("#log-list")
    pg.wait_for_function("document.querySelectorAll('#log-list li').length >= 3")
    text = log.inner_text()
    assert "plot coup against Ferghana" in text and "plot_coup" not in text
    assert "an administration advisor" in text
    assert "pays 1 talent;" in text and "11 talents" in text


# --------------------------------------------------------------------------- 5. wrong or missing


def test_the_vp_box_shows_the_final_score_and_the_result_names_the_stand_in(
    open_page: Callable[..., Any],
) -> None:
    s = state_with(
        status="finished",
        legal_actions=[],
        prompts=[],
        outcome={
            "winner": 0,
            "ranking": [0, 1],
            "scores": {"0": {"total": 18}, "1": {"total": 12}},
        },
        result_notes={"standin": {"1": 14}, "temperaments": {"1": "Opportunist"}},
    )
    s["view"]["over"] = True
    for p in s["view"]["players"]:
        p["vp"] = 0  # only the points banked in play: not the score
    pg = open_page(s)
    boxes = pg.locator("#rulers .stat", has_text="Victory points")
    assert boxes.nth(0).locator("dd").inner_text() == "18"
    assert boxes.nth(1).locator("dd").inner_text() == "12"
    outcome = pg.locator(".outcome").inner_text()
    assert "played by a bot for 14 decisions" in outcome
    assert "(temperament: Opportunist)" in pg.locator(".outcome li").nth(1).inner_text()
    assert "temperament" not in pg.locator(".outcome li").nth(0).inner_text()


def test_a_petition_out_of_reach_says_why(open_page: Callable[..., Any]) -> None:
    s = state_with(legal_actions=[{"type": "dismiss"}])
    s["view"]["players"][0]["influence"] = 0
    s["view"]["me"]["petition_cost"] = 1
    pg = open_page(s)
    button = pg.locator("#decide-body button[data-action=petition]")
    assert button.is_disabled()
    why = pg.locator("#petition-why").inner_text()
    assert "A petition costs 1 influence and you have 0" in why and "§5.5" in why


def test_the_prompt_never_offers_a_draw_that_is_not_there(open_page: Callable[..., Any]) -> None:
    s = state_with(
        legal_actions=[{"type": "end_turn"}],
        prompts=[
            {
                "seat": 0,
                "kind": "turn",
                "label": "Your turn: draw an advisor, tax, recruit or end your turn.",
            }
        ],
    )
    s["view"]["me"]["hand"] = []
    s["view"]["players"][0]["years_left"] = 0
    pg = open_page(s)
    assert pg.locator(".prompt-label").inner_text() == "Your turn: end your turn."


def test_no_talents_are_offered_past_a_certain_result(open_page: Callable[..., Any]) -> None:
    s = state_with(
        legal_actions=[
            {
                "type": "endeavour",
                "kind": "conquest",
                "base": "bactria",
                "target": "sogdiana",
                "talents": t,
            }
            for t in range(4)
        ]
    )

    def explain(a: dict[str, Any]) -> Any:
        if a["type"] != "endeavour":
            return None
        t = a["talents"]
        odds = {"C": 1.0} if t >= 1 else {"C": 0.6, "none": 0.4}
        return {"type": "endeavour", "rating": 4 + t, "terms": [], "odds": odds, "cost": 2 + t}

    pg = open_page(s, explain)
    pg.locator(".step-talents .hint.sure").wait_for()
    visible = [
        pg.locator(".step-talents button.chip").nth(i).get_attribute("data-value")
        for i in range(pg.locator(".step-talents button.chip").count())
        if pg.locator(".step-talents button.chip").nth(i).is_visible()
    ]
    assert visible == ["0", "1"]
    assert "already certain" in pg.locator(".step-talents .hint.sure").inner_text()


def test_recruit_buttons_show_the_price(open_page: Callable[..., Any]) -> None:
    s = state_with(legal_actions=[{"type": "recruit", "slot": 0, "pay": "talents"}])
    s["view"]["me"]["hand"] = []

    def explain(a: dict[str, Any]) -> Any:
        if a["type"] == "recruit":
            return {"type": "recruit", "slot": 0, "price": 3, "coins": 1, "name": "Ban Chao"}
        return None

    pg = open_page(s, explain)
    button = pg.locator(".recruiting button[data-action=recruit]")
    pg.wait_for_function(
        "document.querySelector('.recruiting .price').textContent.includes('take')"
    )
    text = button.inner_text()
    assert "Ban Chao" in text and "3 talents" in text and "you take the 1 talent" in text


def test_giving_up_a_tie_is_explained(open_page: Callable[..., Any]) -> None:
    s = state_with(legal_actions=[{"type": "remove_tie", "area": "sogdiana"}, {"type": "end_turn"}])
    s["view"]["me"]["hand"] = []
    pg = open_page(s)
    box = pg.locator(".remove-ties")
    box.locator("summary").click()  # folded away: a rare choice
    text = box.inner_text()
    assert "Remove your tie in Sogdiana" in text
    assert "lowers its rebellion value by 2" in text and "§12.43" in text


# --------------------------------------------------------------------------- 6. small breakages


def test_a_connection_complaint_goes_when_the_connection_is_back(
    open_page: Callable[..., Any],
) -> None:
    pg = open_page(state_with())
    pg.route("**/api/**", lambda route: route.abort())
    pg.click("#decide-body button[data-action=dismiss]")
    notice = pg.locator("#notice")
    notice.wait_for(state="visible")
    assert "connection is down" in notice.inner_text()
    pg.unroute("**/api/**")
    notice.wait_for(state="hidden", timeout=15000)


def test_buttons_stay_put_when_a_bot_move_arrives(
    open_page: Callable[..., Any], served: tuple[str, Any]
) -> None:
    _, app = served
    legal = [
        {"type": "diplo", "move": "declare_war", "power": "han"},
        {"type": "diplo", "move": "pass"},
    ]
    pg = open_page(
        state_with(
            legal_actions=legal, prompts=[{"seat": 0, "kind": "diplomacy", "label": "Diplomacy"}]
        )
    )
    pg.evaluate(
        "window.__held = document.querySelector('button[data-action=diplo][data-move=pass]')"
    )
    pg.hover("button[data-action=diplo][data-move=pass]")
    new = copy.deepcopy(app.state.game)
    new["version"] += 1
    new["legal_actions"] = [*legal, {"type": "diplo", "move": "accept_peace", "power": "han"}]
    app.state.game = new
    pg.wait_for_function(f"document.body.dataset.version === '{new['version']}'", timeout=15000)
    assert pg.locator("button[data-move=accept_peace]").count() == 1
    assert pg.evaluate(
        "window.__held.isConnected && window.__held === document.querySelector('button[data-action=diplo][data-move=pass]')"
    )


def test_a_half_built_endeavour_survives_a_reload(open_page: Callable[..., Any]) -> None:
    pg = open_page(state_with())
    pg.click("button.chip[data-field=kind][data-value=conquest]")
    pg.click("button.chip[data-field=target][data-value=kashgar]")
    pg.reload()
    pg.wait_for_function("document.body.dataset.version === '7'")
    pg.locator("button.chip.on[data-field=target][data-value=kashgar]").wait_for()
    assert pg.locator("button.chip.on[data-field=kind][data-value=conquest]").count() == 1
    assert pg.locator(".step-talents button.chip").count() == 4  # the next step, as left


# --------------------------------------------------------------------------- the honest clock


def test_a_countdown_and_a_warning_before_the_deadline(open_page: Callable[..., Any]) -> None:
    soon = (datetime.now(UTC) + timedelta(seconds=50)).isoformat()
    later = (datetime.now(UTC) + timedelta(minutes=4)).isoformat()
    s = state_with(
        pace="live",
        status="active",
        prompts=[{"seat": 0, "kind": "advisor", "label": "Act", "deadline": later}],
    )
    pg = open_page(s)
    deadline = pg.locator("#status .deadline")
    pg.wait_for_function("document.querySelector('#status .deadline').textContent.includes('left')")
    assert "3:5" in deadline.inner_text() or "4:0" in deadline.inner_text()
    assert pg.locator("#clock-warning").is_hidden()
    s2 = copy.deepcopy(s)
    s2["prompts"][0]["deadline"] = soon
    pg2 = open_page(s2)
    warning = pg2.locator("#clock-warning")
    warning.wait_for(state="visible")
    text = warning.inner_text()
    assert "left to decide" in text and "a bot plays your seat" in text
    first = pg2.locator("#status .deadline").inner_text()
    pg2.wait_for_function(  # the countdown ticks
        "t => { const d = document.querySelector('#status .deadline');"
        " return d && d.textContent.includes('left') && d.textContent !== t; }",
        arg=first,
        timeout=5000,
    )
    pg2.screenshot(path=str(artifact("newcomer-clock.png")))


def test_a_game_with_no_clock_says_so(open_page: Callable[..., Any]) -> None:
    pg = open_page(state_with(pace="none", status="active"))
    assert pg.locator("#status .no-clock").inner_text() == "no clock"
    assert pg.locator("#status .deadline").count() == 0
