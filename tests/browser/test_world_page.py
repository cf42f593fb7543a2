"""The world on the game page (rules 17.5, 24), in headless Chromium against a fixed
seat view (fixture_app.py): a usurper's court and area carry their markers and details,
a horde's target carries its marker and odds, and a horde's raid waiting for our answer
opens the defense dialog in the horde's name. Screenshots: test-artifacts/world-*.png.
The whole game on the real stack, hordes raiding as it goes: test_world_in_browser.py."""

from __future__ import annotations

import copy
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .chromium import NEEDS_CHROMIUM, artifact
from .fixture_app import build_app, fixture_state

pytestmark = [pytest.mark.browser, NEEDS_CHROMIUM]
playwright_api = pytest.importorskip("playwright.sync_api")

USURPER = {
    "id": "u1",
    "name": "the usurper of Ferghana",
    "court": "ferghana",
    "areas": ["ferghana", "kashgar"],
    "rating": 3,
    "language": "sogdian",
    "religion": "mazdean",
    "rebel_of": 0,
    "since": 1,
    "price": 10,
}
HORDE = {
    "id": "eastern_steppe",
    "name": "Xianbei",
    "homeland": ["mongolia"],
    "strength": 4,
    "target": "liang",
    "owner": 1,
    "rode": False,
    "rating": 4,
    "odds": {"none": 1 / 3, "raid": 1 / 2, "sack": 1 / 6},
}


def world_state(raid: bool = False) -> dict[str, Any]:
    st = fixture_state()
    view = st["view"]
    view["world"] = {"usurpers": [USURPER], "hordes": [dict(HORDE, target="sogdiana", owner=0)]}
    for a in USURPER["areas"]:
        view["areas"][a].update(owner=None, usurper="u1", partial={})
    st["events"].append(
        {
            "seq": 5,
            "text": "The usurper of Ferghana stirs rebellion in Sogdiana (Kushan).",
            "rule": "17.53",
            "to": None,
        }
    )
    if raid:
        view["interrupt"] = {
            "attacker": None,
            "horde": "eastern_steppe",
            "horde_name": "Xianbei",
            "defender": 0,
            "kind": "raid",
            "base": None,
            "target": "sogdiana",
            "rating": 4,
            "terms": [{"term": "the Xianbei' strength", "value": 4, "rule": "24.13"}],
        }
        st["legal_actions"] = [{"type": "defend", "talents": t} for t in range(3)] + [
            {"type": "decline"}
        ]
        st["prompts"] = [
            {
                "seat": 0,
                "kind": "defend",
                "label": "The Xianbei ride against Sogdiana: defend?",
                "attacker": None,
                "horde": "eastern_steppe",
                "area": "sogdiana",
                "endeavour": "raid",
                "rating": 4,
            }
        ]
        st["events"].append(
            {
                "seq": 6,
                "text": "The Xianbei ride against Sogdiana with rating 4; Kushan may defend.",
                "rule": "24.13",
                "to": None,
            }
        )
        st["last_seq"] = 6
    else:
        st["last_seq"] = 5
    return st


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any]]:
    import uvicorn

    app = build_app(world_state())
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


def open_page(served: tuple[str, Any], browser: Any, state: dict[str, Any]) -> Any:
    url, app = served
    app.state.game = copy.deepcopy(state)

    def explain(a: dict[str, Any]) -> dict[str, Any] | None:
        if a["type"] not in ("defend", "decline"):
            return None
        t = a.get("talents", 0) if a["type"] == "defend" else 0
        after = 4 - (4 + t if a["type"] == "defend" else 0)
        return {
            "type": a["type"],
            "kind": "raid",
            "rule": "24.13",
            "attacker_rating": 4,
            "terms": [],
            "rating": after,
            "cost": 1 + t if a["type"] == "defend" else 0,
            "odds": {"none": 1.0, "raid": 0.0, "sack": 0.0}
            if a["type"] == "defend"
            else HORDE["odds"],
            "results": {"none": "the horde rides home empty-handed"},
        }

    app.state.explain = explain
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(10000)
    pg.goto(f"{url}/games/1")
    pg.locator("#map svg .area").first.wait_for()
    pg.wait_for_function("document.body.dataset.version === '7'")
    return context, pg, errors


def test_a_usurper_and_a_hordes_threat_are_on_the_map(
    served: tuple[str, Any], browser: Any
) -> None:
    context, page, errors = open_page(served, browser, world_state())
    try:
        court = page.locator('#map .markers[data-area="ferghana"] .m-usurper.court')
        court.wait_for(state="attached")
        assert court.locator("text").inner_html() == "3"  # his rating at his court (17.51)
        assert page.locator('#map .markers[data-area="kashgar"] .m-usurper').count() == 1
        horde = page.locator('#map .markers[data-area="sogdiana"] .m-horde')
        assert horde.count() == 1 and "4" in horde.inner_html()  # the strength (24.12)
        page.hover("#area-ferghana")
        page.wait_for_function(
            "[...document.querySelectorAll('dd')].some(d => d.textContent.includes('rating 3'))"
        )
        assert "price 10 talents" in page.content()
        page.hover("#area-sogdiana")
        page.wait_for_function(
            "[...document.querySelectorAll('dd')].some(d => d.textContent.includes('Xianbei'))"
        )
        assert "raid 50%, sack 17%" in page.content()
        assert "stirs rebellion in Sogdiana" in page.locator("#log-list").inner_text()
        page.screenshot(path=str(artifact("world-usurper-and-horde.png")))
        assert not errors, errors
    finally:
        context.close()


def test_a_hordes_raid_opens_the_defense_dialog_in_its_name(
    served: tuple[str, Any], browser: Any
) -> None:
    context, page, errors = open_page(served, browser, world_state(raid=True))
    try:
        dialog = page.locator("#decision-dialog")
        dialog.wait_for(state="visible")
        text = dialog.inner_text()
        assert "The Xianbei" in text and "Sogdiana" in text, text
        assert dialog.locator('button[data-action="defend"]').count() >= 1
        assert dialog.locator('button[data-action="decline"]').count() == 1
        assert "ride against Sogdiana" in page.locator("#log-list").inner_text()
        page.screenshot(path=str(artifact("world-raid-dialog.png")))
        assert not errors, errors
    finally:
        context.close()


def test_overreach_is_shown_with_the_scores_and_on_its_area(
    served: tuple[str, Any], browser: Any
) -> None:
    """4.9: the leader, its lead, the area that checks and the bonus, in the Scores panel
    and in the area's details."""
    state = world_state()
    state["view"]["world"]["overreach"] = {
        "from_lead": 4,
        "per": 2,
        "checks": 1,
        "seat": 0,
        "lead": 5,
        "bonus": 2,
        "area": "gandhara",
    }
    context, page, errors = open_page(served, browser, state)
    try:
        page.locator("summary", has_text="Scores").click()
        note = page.locator("#scores .overreach")
        note.wait_for()
        text = note.inner_text()
        assert "Overreach: Kushan leads by 5 points." in text
        assert "Gandhara makes a rebellion check at +2" in text
        assert "a lead of 4 points or more" in text
        page.hover("#area-gandhara")
        page.wait_for_function(
            "[...document.querySelectorAll('dd')].some(d => d.textContent.includes('rule 4.9'))"
        )
        assert "a rebellion check at the round's end, +2" in page.content()
        page.screenshot(path=str(artifact("world-overreach.png")))
        assert not errors, errors
    finally:
        context.close()
