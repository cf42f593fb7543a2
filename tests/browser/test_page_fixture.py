"""The game page's own logic, in headless Chromium, against one fixed seat view.

The real template, CSS and JavaScript are served by a small app (fixture_app.py) that
answers /view, /explain and /actions from a fixed seat view. This pins down what the
page must do whatever the engine's state: show exactly what legal_actions offers and
nothing else, walk an endeavour through kind -> base -> target -> talents with the
breakdown on screen before the commit, send exactly the chosen action with the
version it was built on, and show a refusal in words. The whole game, on the real
server and engine, is test_play_in_browser.py.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .chromium import NEEDS_CHROMIUM, artifact
from .fixture_app import build_app

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
def page(served: tuple[str, Any], browser: Any) -> Iterator[Any]:
    url, app = served
    from .fixture_app import fixture_state

    app.state.game = fixture_state()
    app.state.sent.clear()
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(10000)
    pg.goto(f"{url}/games/1")
    pg.locator("#map svg .area").first.wait_for()
    pg.wait_for_function("document.body.dataset.version === '7'")
    yield pg
    context.close()
    assert not errors, errors


def test_only_the_offered_decisions_are_shown(page: Any) -> None:
    acts = page.locator("#decide-body button.act")
    offered = sorted({acts.nth(i).get_attribute("data-action") for i in range(acts.count())})
    assert offered == ["dismiss", "petition"]  # no draw, no end of turn: not offered
    assert "1 influence" in page.locator("button[data-action=petition]").inner_text()
    kinds = page.locator("button.chip[data-field=kind]")
    assert sorted(kinds.nth(i).get_attribute("data-value") for i in range(kinds.count())) == [
        "conquest",
        "pillage",
    ]
    # the odds of the next draw are on screen before petitioning
    odds = page.locator(".draw-odds").inner_text()
    assert "30%" in odds and "burden" in odds
    page.locator(".petition-odds .explain-line").wait_for()
    assert "10% that the petition fails (a burden)" in page.locator(".petition-odds").inner_text()


def test_the_petition_names_the_types_sent_away_in_plain_english(
    page: Any, served: tuple[str, Any]
) -> None:
    """5.6: "a Architect" read wrong; more than one type is "those types"."""
    _, app = served
    odds = {"type": "petition", "cost": 1, "bust_odds": 0.2, "strike_odds": 0.2, "pile": 12}
    try:
        for types, said in (
            (["architect"], "(a burden, or an Architect: you sent that type away this turn)"),
            (
                ["military", "architect"],
                "(a burden, or a General or Architect: you sent those types away this turn)",
            ),
        ):
            app.state.explain = lambda a, t=types: (
                {**odds, "strike_types": t} if a["type"] == "petition" else None
            )
            page.reload()
            page.locator(".petition-odds .explain-line").wait_for()
            assert said in page.locator(".petition-odds").inner_text()
    finally:
        app.state.explain = None


def test_the_header_shows_no_round_0_nor_over_game_over(page: Any, served: tuple[str, Any]) -> None:
    """A game turn opens with its diplomatic phase, before round 1: the engine's round
    counter is 0 there, which the header said as "Round 0"."""
    _, app = served
    assert "Round 1" in page.locator("#status").inner_text()
    assert page.locator("#status .phase").inner_text().lower() == "player turns"  # not "Turn"
    app.state.game["view"] = {**app.state.game["view"], "round": 0, "phase": "diplomacy"}
    page.reload()
    page.locator("#status .phase").wait_for()
    status = page.locator("#status").inner_text()
    assert "Diplomacy" in status and "Round" not in status
    # at the end the phase is "over": "Game over" alone, not "Over Game over"
    app.state.game["view"] = {**app.state.game["view"], "round": 4, "phase": "over", "over": True}
    page.reload()
    page.locator("#status .waiting-for").wait_for()
    status = page.locator("#status").inner_text()
    assert "Game over" in status and "Over" not in status.replace("Game over", "")


def test_a_clock_reads_as_the_server_words_it(page: Any) -> None:
    """A fresh daily bank read "24 h 0 min" on the page and "24 h" in the lobby."""
    from app.services.clocks import words

    spans = [59, 600, 3600, 86400, 86400 + 20 * 60, 3 * 86400, 2 * 86400 + 3 * 3600]
    shown = page.evaluate(
        "async (spans) => { const m = await import('/static/js/game/clock.js');"
        " return spans.map((s) => m.left(s * 1000)); }",
        spans,
    )
    assert shown == [words(s) for s in spans]


def test_an_endeavour_shows_its_breakdown_before_the_commit(
    page: Any, served: tuple[str, Any]
) -> None:
    _, app = served
    page.click("button.chip[data-field=kind][data-value=conquest]")
    # one base: chosen by the page and shown as text; two targets, also pickable on the map
    assert page.locator(".step-base .chosen").inner_text() == "Bactria"
    targets = page.locator("button.chip[data-field=target]")
    assert sorted(targets.nth(i).get_attribute("data-value") for i in range(targets.count())) == [
        "kashgar",
        "sogdiana",
    ]
    assert sorted(
        page.eval_on_selector_all("#map .area.pickable", "els => els.map(e => e.dataset.areaId)")
    ) == [
        "kashgar",
        "sogdiana",
    ]
    page.click("#map button[aria-label='Show the whole map']")
    page.click("#area-kashgar")  # a tap on the map chooses the target
    assert (
        page.locator("button.chip[data-field=target][data-value=kashgar]").get_attribute(
            "aria-pressed"
        )
        == "true"
    )
    page.click("button.chip[data-field=talents][data-value='2']")
    terms = page.locator(".explain-box table.terms").first
    terms.wait_for()
    assert terms.locator("tbody tr").count() == 4
    assert terms.locator("td.total").inner_text() == "5"
    assert page.locator(".explain-box .explain-title a.rule").get_attribute("href") == "/rules#r10"
    assert terms.locator("a.rule").first.get_attribute("href") == "/rules#r9.31"
    assert "55%" in page.locator(".explain-box .odds").inner_text()
    assert app.state.sent == []  # nothing sent yet
    page.click(".wizard .commit button[data-action=endeavour]")
    page.wait_for_function("document.body.dataset.version === '8'")
    assert app.state.sent[0]["action"] == {
        "type": "endeavour",
        "kind": "conquest",
        "base": "bactria",
        "target": "kashgar",
        "talents": 2,
    }
    assert app.state.sent[0]["expected_version"] == 7
    assert page.locator("#decide-body").inner_text().startswith("Waiting for")


def test_a_refusal_is_shown_in_words(page: Any) -> None:
    page.evaluate("window.imperialGlory.send({type: 'end_turn'})")
    notice = page.locator("#notice")
    notice.wait_for(state="visible")
    assert notice.inner_text() == "That is not a legal move now."


def test_the_map_colours_owners_with_a_pattern_and_shows_area_details(page: Any) -> None:
    fill = page.eval_on_selector("#area-bactria", "e => e.style.fill")
    assert "pat-kushan" in fill
    assert page.locator("#map pattern#pat-han").count() == 1
    assert page.eval_on_selector("#area-sogdiana", "e => e.style.fill") == ""  # independent
    assert page.locator("#map .marker-layer .m-court").count() == 2
    page.hover("#area-sogdiana")
    card = page.locator("#area-card")
    card.wait_for(state="visible")
    text = card.inner_text()
    assert "Sogdiana" in text and "Population" in text and "Unrest" in text and "Claims" in text
    # the log turns rule numbers into links
    assert page.locator("#log-list a.rule").first.get_attribute("href") == "/rules#r10.2"
    # a move played because it was no choice says so (app/services/play.py, forced_action)
    assert page.locator("#log-list .forced-tag").count() == 1
    assert "No choice" in page.locator("#log-list li:has(.forced-tag)").inner_text()
    page.locator("#log-list").screenshot(path=str(artifact("log-forced-line.png")))
    assert json.loads(page.locator("#game-meta").inner_text())["game_id"] == 1


def test_the_parley_vote_is_a_dialog_with_every_offered_choice(
    page: Any, served: tuple[str, Any]
) -> None:
    url, app = served
    game = app.state.game
    game["version"] = 9
    game["legal_actions"] = [{"type": "vote", "choice": c} for c in ("yes", "no", "abstain")]
    game["prompts"] = [
        {"seat": 0, "kind": "vote", "label": "Parley on Sogdiana: claim"},
        {"seat": 1, "kind": "vote", "label": "Parley on Sogdiana: claim"},
    ]
    game["view"]["parley"] = {
        "question": "claim",
        "caller": 1,
        "area": "sogdiana",
        "eligible": [0, 1],
        "weights": {"0": 2, "1": 3},
        "voted": [],
        "votes": None,
    }
    page.reload()
    dialog = page.locator("#decision-dialog")
    dialog.wait_for(state="visible")
    assert dialog.locator("h2").inner_text() == "Parley: cast your vote"
    text = dialog.inner_text()
    assert "Parley on Sogdiana: claim" in text and "Your vote weighs 2." in text
    choices = dialog.locator("button[data-action=vote]")
    assert [choices.nth(i).get_attribute("data-choice") for i in range(choices.count())] == [
        "yes",
        "no",
        "abstain",
    ]
    # keyboard: the first choice has the focus, and Enter casts it
    assert page.evaluate("document.activeElement.dataset.choice") == "yes"
    page.keyboard.press("Enter")
    page.wait_for_function("document.body.dataset.version === '10'")
    assert app.state.sent[-1]["action"] == {"type": "vote", "choice": "yes"}
    assert app.state.sent[-1]["expected_version"] == 9


def test_a_move_on_a_stale_board_is_explained_and_the_board_refreshed(
    page: Any, served: tuple[str, Any]
) -> None:
    _, app = served
    app.state.game["version"] = 12  # someone else moved meanwhile; the page still shows 7
    page.click("#decide-body button[data-action=petition]")
    notice = page.locator("#notice")
    notice.wait_for(state="visible")
    assert "moved on before your move arrived" in notice.inner_text()
    page.wait_for_function("document.body.dataset.version === '12'")
    assert app.state.sent[-1]["expected_version"] == 7


def test_a_long_list_of_targets_is_a_list_box(page: Any, served: tuple[str, Any]) -> None:
    _, app = served
    game = app.state.game
    targets = [f"place_{i:02d}" for i in range(14)]
    game["legal_actions"] = [
        {"type": "endeavour", "kind": "diplomacy", "base": "bactria", "target": t, "talents": 0}
        for t in targets
    ]
    game["version"] = 20
    page.reload()
    page.wait_for_function("document.body.dataset.version === '20'")
    select = page.locator(".wizard select[data-field=target]")
    assert select.locator("option").count() == 15  # the prompt and the 14 targets
    select.select_option(value='"place_07"')
    page.locator(".wizard .explain-box .explain").wait_for()
    page.click(".wizard .commit button[data-action=endeavour]")
    page.wait_for_function("document.body.dataset.version === '21'")
    assert app.state.sent[-1]["action"]["target"] == "place_07"


def test_an_endeavour_can_be_chosen_with_the_keyboard_alone(
    page: Any, served: tuple[str, Any]
) -> None:
    _, app = served
    page.focus("button.chip[data-field=kind][data-value=conquest]")
    page.keyboard.press("Enter")
    active = "document.activeElement.dataset.field + ':' + document.activeElement.dataset.value"
    assert page.evaluate(active) == "target:sogdiana"  # the focus moved on to the next step
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # Kashgar
    assert page.evaluate(active) == "talents:0"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # 1 talent
    page.locator(".wizard .explain-box .explain").wait_for()
    assert page.evaluate("document.activeElement.dataset.action") == "endeavour"
    # the focus ring is drawn (keyboard focus is visible)
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    page.keyboard.press("Enter")
    page.wait_for_function("document.body.dataset.version === '8'")
    assert app.state.sent[-1]["action"] == {
        "type": "endeavour",
        "kind": "conquest",
        "base": "bactria",
        "target": "kashgar",
        "talents": 1,
    }


def test_an_endeavour_that_would_take_a_partners_area_names_the_breach_first(
    page: Any, served: tuple[str, Any]
) -> None:
    """20.13, 20.3: the explain box says which agreement a result that takes the area
    would break, the chance of it, and the parley that follows (issue 26: no traps)."""
    _, app = served

    def with_breach(a: dict[str, Any]) -> dict[str, Any] | None:
        if a["type"] != "endeavour":
            return None
        return {
            "type": "endeavour",
            "kind": a["kind"],
            "rule": "10",
            "terms": [{"term": "military stature", "value": 4, "rule": "9.31"}],
            "rating": 4,
            "cost": 2,
            "odds": {"C": 0.55, "none": 0.45},
            "results": {"C": "conquest (one C result)", "none": "no effect"},
            "breaks": [
                {
                    "agreement": 1,
                    "partner": 1,
                    "text": "agreement 1 of Kushan and Han: non-aggression until the end of game turn 2",
                    "rule": "20.3",
                    "parley": "20.44",
                }
            ],
            "breach_odds": 0.55,
        }

    app.state.explain = with_breach
    try:
        page.click("button.chip[data-field=kind][data-value=conquest]")
        page.click("button.chip[data-field=target][data-value=kashgar]")
        page.click("button.chip[data-field=talents][data-value='2']")
        warning = page.locator(".explain-box .breach-warning")
        warning.wait_for()
        text = warning.inner_text()
        assert "agreement 1 of Kushan and Han: non-aggression" in text, text
        assert "parley" in text and "accursed" in text, text
        assert warning.locator("a.rule").all_inner_texts() == ["§20.3", "§20.44"]
        box = page.locator(".explain-box").inner_text()
        assert "Chance it takes the area and breaks your agreement: 55%" in box, box
        assert "Breach odds" not in box  # not repeated as a raw number
        page.locator(".explain-box").screenshot(path=str(artifact("endeavour-breach.png")))
    finally:
        app.state.explain = None
