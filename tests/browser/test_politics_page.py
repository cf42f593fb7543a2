"""The politics of the table on the game page (issue 9, part 5), in headless Chromium.

The page (real template, CSS and JavaScript, the real map and content) is served by
fixture_app.py against a seat view the ENGINE builds from a crafted four_empires state
(tests/engine_properties/politics_fixture.py): Rome hegemon of Satavahana, Han hegemon,
Rome at war with Parthia (and so Satavahana, 3.55), Han and Parthia at peace, Kushan in
exile under asylum at Han's court, the Xiongnu accursed. `explain` is the engine's.

Each is checked where the page draws it: on the ruler cards (a badge with a tooltip and
a § link), on the map (a layer of its own, in the legend), in the Diplomacy panel, and
on every diplomatic button (a line with its § link and what the move would do).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app import engine
from tests.engine_properties.politics_fixture import (
    HAN,
    KUSHAN,
    PARTHIA,
    POWERS,
    ROME,
    SATAVAHANA,
    XIONGNU,
    politics_state,
)

from .chromium import NEEDS_CHROMIUM, artifact, wait_js
from .fixture_app import build_app

pytestmark = [pytest.mark.browser, NEEDS_CHROMIUM]
playwright_api = pytest.importorskip("playwright.sync_api")

DESKTOP = {"width": 1300, "height": 900}
PHONE = {"width": 375, "height": 812}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def payload(state: dict[str, Any], seat: int, version: int = 1) -> dict[str, Any]:
    """What GET /view answers for `seat`, from the engine."""
    return {
        "game_id": 1,
        "version": version,
        "seat": seat,
        "status": "running",
        "view": engine.view(state, seat),
        "legal_actions": engine.legal_actions(state, seat),
        "prompts": engine.pending(state),
        "last_seq": 0,
        "events": [],
    }


def meta() -> dict[str, Any]:
    from app.web.routes.play import page_meta

    users = {i: f"player{i}" for i in range(len(POWERS))}
    return page_meta(1, "four_empires", "The Four Empires", users, POWERS)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any]]:
    import uvicorn

    app = build_app(payload(politics_state(), ROME), meta())
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
    """open_page(state, seat, viewport) -> the page, drawn from the engine's view of it."""
    url, app = served
    contexts: list[Any] = []
    errors: list[str] = []

    def go(state: dict[str, Any], seat: int, viewport: dict[str, int] = DESKTOP) -> Any:
        app.state.game = payload(state, seat)
        app.state.explain = lambda action: engine.explain(state, seat, action)
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.set_default_timeout(15000)
        pg.goto(f"{url}/games/1")
        wait_js(pg, "document.body.dataset.version === '1'")
        wait_js(pg, "document.querySelectorAll('#map .marker-layer .markers').length > 0")
        return pg

    yield go
    for c in contexts:
        c.close()
    assert not errors, errors


def _badges(page: Any, seat: int) -> dict[str, dict[str, Any]]:
    """The politics badges of a ruler card: kind -> {text, title, href}."""
    card = page.locator("#rulers article.ruler").nth(seat)
    out = {}
    for b in card.locator(".pol-badges .badge.pol").all():
        out[b.get_attribute("data-pol")] = {
            "text": b.inner_text(),
            "title": b.get_attribute("title"),
            "href": b.locator("a.rule").get_attribute("href"),
        }
    return out


def test_the_ruler_cards_carry_every_politics_badge(open_page: Callable[..., Any]) -> None:
    page = open_page(politics_state(ROME), ROME)
    rome = _badges(page, ROME)
    assert "Hegemon of Satavahana" in rome["hegemon"]["text"]
    assert rome["hegemon"]["href"] == "/rules#r3.5"
    assert "Parthia" in rome["war"]["text"] and rome["war"]["href"] == "/rules#r3.21"
    assert "Junior partner of Rome" in _badges(page, SATAVAHANA)["junior"]["text"]
    assert "Parthia" in _badges(page, SATAVAHANA)["war"]["text"]  # 3.55: the hegemon's war
    parthia = _badges(page, PARTHIA)
    assert "Rome" in parthia["war"]["text"] and "Satavahana" in parthia["war"]["text"]
    assert "Han (since turn 1)" in parthia["peace"]["text"]
    kushan = _badges(page, KUSHAN)
    assert kushan["exile"]["href"] == "/rules#r21.1"
    assert "Under asylum at Han" in kushan["asylum"]["text"]
    assert kushan["asylum"]["href"] == "/rules#r21.2"
    assert "Shelters Kushan" in _badges(page, HAN)["host"]["text"]
    assert "hegemon" in _badges(page, HAN)
    xiongnu = _badges(page, XIONGNU)
    assert set(xiongnu) == {"accursed"} and xiongnu["accursed"]["href"] == "/rules#r20.4"
    for seat in range(6):
        for kind, b in _badges(page, seat).items():
            assert b["title"] and len(b["title"]) > 20, (seat, kind)
    panel = page.locator("#relations").text_content() or ""
    assert "Rome – Parthia: War (since turn 3)" in panel
    assert "Parthia – Satavahana: war, through a coalition" in panel
    assert "Kushan is in exile, under asylum at Han's court" in panel
    assert "Xiongnu is accursed" in panel


def test_the_map_draws_the_politics(open_page: Callable[..., Any]) -> None:
    state = politics_state(ROME)
    page = open_page(state, ROME)
    layer = page.locator("#map .politics-layer")
    pairs = sorted(layer.locator(".pol-war").evaluate_all("els => els.map(e => e.dataset.pair)"))
    assert pairs == [f"{ROME}|{PARTHIA}", f"{PARTHIA}|{SATAVAHANA}"]
    ally = layer.locator(".pol-ally")
    assert ally.count() == 1
    assert ally.get_attribute("data-junior") == str(SATAVAHANA)
    assert ally.get_attribute("data-hegemon") == str(ROME)
    owned = {
        s: sum(1 for a in state["areas"].values() if a["owner"] == s) for s in range(len(POWERS))
    }
    rome_outline = layer.locator(f".pol-coalition[data-hegemon='{ROME}'] .coalition-edge")
    assert rome_outline.count() == owned[ROME] + owned[SATAVAHANA]
    courts = {s: p["court"] for s, p in enumerate(state["players"])}
    markers = page.locator("#map .marker-layer")
    assert markers.locator(f".markers[data-area='{courts[ROME]}'] .m-crown").count() == 1
    assert markers.locator(f".markers[data-area='{courts[HAN]}'] .m-crown").count() == 1
    assert markers.locator(".m-crown").count() == 2
    assert (
        markers.locator(
            f".markers[data-area='{courts[HAN]}'] .m-exile[data-seat='{KUSHAN}']"
        ).count()
        == 1
    )
    assert markers.locator(f".m-accursed[data-seat='{XIONGNU}']").count() == owned[XIONGNU] > 0
    # every line is really drawn, with a width on screen
    box = layer.locator(".pol-war .ink").first.bounding_box()
    assert box and box["width"] > 20
    # the legend names each of them
    page.click(".legend summary")
    legend = page.locator(".legend .legend-politics")
    for kind in ("war", "ally", "coalition", "crown", "exile", "accursed"):
        assert legend.locator(f"[data-legend='{kind}']").is_visible(), kind
    page.screenshot(path=str(artifact("politics-desktop-legend.png")))
    page.click(".legend summary")
    # an area's card tells its owner's politics
    page.locator(f"#area-{courts[XIONGNU]}").dispatch_event("click")
    assert "Accursed" in page.locator("#area-card").inner_text()
    page.screenshot(path=str(artifact("politics-desktop.png")))


def _diplo_rows(page: Any) -> list[dict[str, Any]]:
    wait_js(
        page,
        "[...document.querySelectorAll('.diplomacy .diplo-effect')].every(e => e.textContent.length > 0)",
    )
    return page.eval_on_selector_all(
        ".diplomacy button.act-diplo",
        """els => els.map(b => {
            const help = document.getElementById(b.getAttribute('aria-describedby'));
            return {move: b.dataset.move, power: b.dataset.power || null, title: b.title,
                    help: help ? help.textContent : null,
                    href: help ? help.querySelector('a.rule')?.getAttribute('href') : null,
                    effect: b.parentElement.querySelector('.diplo-effect').textContent};
        })""",
    )


def test_every_diplomatic_button_says_what_it_does(open_page: Callable[..., Any]) -> None:
    state = politics_state(ROME)
    page = open_page(state, ROME)
    rows = _diplo_rows(page)
    legal = engine.legal_actions(state, ROME)
    assert sorted((r["move"], r["power"]) for r in rows) == sorted(
        (a["move"], a.get("power")) for a in legal if a["type"] == "diplo"
    )
    # Grand diplomacy's offers (20.1) are made in the composer, explained with its links.
    assert any(a["type"] == "offer" for a in legal)
    grand = page.locator("section.grand")
    assert grand.locator("[data-control=compose-offer]").count() == 1
    links = grand.locator("a.rule")
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert {"/rules#r20.1", "/rules#r20.44"} <= hrefs
    for r in rows:
        assert r["help"] and r["href"] and r["href"].startswith("/rules#r3"), r
        assert r["title"], r
    by = {(r["move"], r["power"]): r["effect"] for r in rows}
    assert "popularity 5 → 4" in by[("relinquish_hegemony", None)]
    assert "Satavahana no longer junior partner" in by[("relinquish_hegemony", None)]
    assert by[("propose_peace", "parthia")].startswith("→ If Parthia accepts:")
    assert "you no longer at war with Parthia" in by[("propose_peace", "parthia")]
    # 3.55: war on the Han is war with them alone, war on Rome would reach Satavahana
    assert "you at war with Han" in by[("declare_war", "han")]
    assert "of 6 powers have passed in a row" in by[("pass", None)]
    page.screenshot(path=str(artifact("politics-diplomacy-desktop.png")), full_page=True)


def test_breaking_a_treaty_and_revoking_asylum_show_their_odds_and_effect(
    open_page: Callable[..., Any],
) -> None:
    page = open_page(politics_state(HAN), HAN)
    by = {(r["move"], r["power"]): r for r in _diplo_rows(page)}
    treaty = by[("declare_war", "parthia")]["effect"]
    # 3.22 over a die, a treaty three turns old: 1-2 war, 4-6 sacrilege, 3 holds
    assert "The peace was made in game turn 1, 3 game turns ago: a die under 3" in treaty
    assert "33% war; 50% the peace holds and the sacrilege costs you 1 popularity" in treaty
    assert "17% it simply holds" in treaty
    assert "Rome, Satavahana" in by[("declare_war", "rome")]["effect"]
    assert "Kushan loses asylum" in by[("revoke_asylum", "kushan")]["effect"]
    assert by[("revoke_asylum", "kushan")]["href"] == "/rules#r21.2"


def test_a_partner_bound_by_non_aggression_is_warned_and_told_why_it_may_not_join(
    open_page: Callable[..., Any],
) -> None:
    """20.13, 3.53, 20.3: Parthia bound to Han by non-aggression; the war on Han names the
    agreement and the parley, join is not offered and the panel says why, and the
    cancellation by consent is offered."""
    state = politics_state(PARTHIA)
    state["relations"]["agreements"] = [
        {
            "id": 1,
            "parties": [PARTHIA, HAN],
            "signed": 3,
            "year": 100,
            "expires": 5,
            "status": "in_force",
            "terms": ["non_aggression"],
            "tribute": [],
            "votes": [],
            "exchange": {"give": {}, "get": {}},
            "breaker": None,
            "ended": None,
            "why": None,
        }
    ]
    legal = engine.legal_actions(state, PARTHIA)
    assert not any(a.get("move") == "join" for a in legal)
    assert {"type": "cancel", "agreement": 1} in legal
    page = open_page(state, PARTHIA)
    war = page.locator('.diplo-option:has(button[data-move="declare_war"][data-power="han"])')
    war.locator(".breach-warning").wait_for()
    text = war.locator(".breach-warning").inner_text()
    assert "agreement 1 of Parthia and Han: non-aggression" in text and "parley" in text, text
    rome = page.locator('.diplo-option:has(button[data-move="declare_war"][data-power="rome"])')
    assert rome.count() == 0 or rome.locator(".breach-warning").count() == 0
    hint = page.locator("#decide-body [data-control=no-join]")
    assert "may not join a coalition" in hint.inner_text()
    assert hint.locator("a.rule").get_attribute("href") == "/rules#r3.53"
    assert page.locator("#decide-body [data-control=cancel-agreements] button").count() == 1
    war.screenshot(path=str(artifact("politics-bound-war-warning.png")))
    page.locator("#decide-body section.grand").screenshot(
        path=str(artifact("politics-bound-no-join.png"))
    )


def test_a_parley_vote_shows_the_weights_and_what_each_vote_means(
    open_page: Callable[..., Any],
) -> None:
    from app.engine.flow import start_parley

    state = politics_state(ROME)
    state["phase"], state["diplo"] = "turn", None
    area = state["players"][PARTHIA]["court"]
    start_parley(state, PARTHIA, "claim", area, [])
    state["parley"]["votes"] = {str(ROME): "no"}
    page = open_page(state, HAN)
    dialog = page.locator("#decision-dialog")
    dialog.locator("button.act-vote").first.wait_for()
    text = dialog.inner_text()
    weights = state["parley"]["weights"]
    assert f"Han (player3): {weights[str(HAN)]} vote" in text
    assert "Rome (player0)" in text and "has voted" in text
    assert "No vote: Xiongnu (accursed" in text
    assert f"Your vote weighs {weights[str(HAN)]}. {sum(weights.values())} votes in all" in text
    yes = dialog.locator(".vote-effect[data-choice=yes]").inner_text()
    assert "Parthia gains a claim to" in yes
    assert dialog.locator(".vote-effect[data-choice=abstain]").inner_text() == (
        "Your votes count for neither side."
    )
    assert dialog.locator(".act-help a.rule").count() == 3
    page.screenshot(path=str(artifact("politics-vote-desktop.png")))


def test_the_politics_on_a_phone(open_page: Callable[..., Any]) -> None:
    page = open_page(politics_state(ROME), ROME, PHONE)
    war = page.locator("#map .politics-layer .pol-war .ink").first
    box = war.bounding_box()
    assert box and box["width"] > 10
    # on a phone the lines keep their width on screen
    width = war.evaluate("e => getComputedStyle(e).strokeWidth")
    assert width == "2.6px"
    assert page.locator("#map .marker-layer .m-crown").count() == 2
    page.screenshot(path=str(artifact("politics-phone-map.png")))
    page.locator(".legend summary").click()
    page.screenshot(path=str(artifact("politics-phone-legend.png")))
    page.evaluate("document.querySelector('.legend').open = false")
    page.locator("#rulers").scroll_into_view_if_needed()
    page.screenshot(path=str(artifact("politics-phone-rulers.png")))
    page.locator(".diplomacy").scroll_into_view_if_needed()
    page.screenshot(path=str(artifact("politics-phone-diplomacy.png")))
    assert page.locator("#rulers .badge.pol").count() >= 8
