"""Grand diplomacy end to end in the browser (rules 20.1-20.44, 22.1): two people in
one teaching game negotiate through the offer composer, sign, one breaks the agreement,
the 20.44 parley opens on both pages and is voted in the dialog, and the guilty power is
accursed. Every decision is a click on the page; the JSON API is read only to know whose
page to look at.

Screenshots (test-artifacts/): the composer with its preview, the offer as the other
side sees it, the agreements panel, the parley vote, and the accursed power.
"""

from __future__ import annotations

from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js
from .test_play_in_browser import Person, open_table, wait_version_after

pytestmark = BROWSER_MARKS

pytest.importorskip("playwright.sync_api")


def prompted(person: Person, game_id: int) -> dict[str, Any]:
    return person.api_view(game_id)


def wait_for_my_turn(
    person: Person, game_id: int, kind: str, timeout: float = 20.0
) -> dict[str, Any]:
    """Wait until the person has a legal action of this type; returns the view data."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        data = person.api_view(game_id)
        if any(a["type"] == kind for a in data["legal_actions"]):
            wait_js(
                person.page, f"Number(document.body.dataset.version || -1) >= {data['version']}"
            )
            return data
        assert time.monotonic() < deadline, f"{person.name} never got a {kind!r} decision"
        time.sleep(0.1)


def test_two_people_negotiate_sign_break_and_the_parley_curses_the_breaker(
    browser: Any, live_server: Any
) -> None:
    alice, bob, game_id = open_table(browser, live_server.url, "teaching", powers=("kushan", "han"))
    try:
        people = {}
        for person in (alice, bob):
            data = person.api_view(game_id)
            people[data["view"]["players"][data["seat"]]["power"]] = (person, data["seat"])
        # Kushan (Diplomacy 2) offers, signs and breaks; Han (Diplomacy 3) judges him.
        kushan, k_seat = people["kushan"]
        han, h_seat = people["han"]
        if h_seat == 0:  # the first to act in the diplomatic phase: Han lets Kushan speak
            data = wait_for_my_turn(han, game_id, "diplo")
            han.page.locator('#decide-body button[data-action="diplo"][data-move="pass"]').click()
            wait_version_after(han, game_id, data["version"])

        # -- negotiate: the composer -------------------------------------------------
        data = wait_for_my_turn(kushan, game_id, "offer")
        page = kushan.page
        page.locator('#decide-body button[data-control="compose-offer"]').click()
        dialog = page.locator("#offer-dialog")
        dialog.wait_for(state="visible")
        assert dialog.locator('button[data-control="send-offer"]').is_disabled()  # empty
        dialog.locator('input[data-field="give.talents"]').fill("3")
        dialog.locator('input[data-field="terms"][value="non_aggression"]').check()
        dialog.locator('select[data-field="turns"]').select_option("2")
        preview = dialog.locator('[data-control="offer-preview"]')
        wait_js(
            page,
            "document.querySelector('[data-control=offer-preview]').textContent.includes('non-aggression')",
        )
        text = preview.inner_text()
        assert "You give" in text and "3 talents" in text and "2 game turns" in text, text
        # the composer keeps within the template's range: 99 talents become the treasury
        dialog.locator('input[data-field="give.talents"]').fill("99")
        treasury = data["view"]["players"][k_seat]["talents"]
        wait_js(
            page,
            f"document.querySelector('[data-control=offer-preview]').textContent.includes('{treasury} talents')",
        )
        dialog.locator('input[data-field="give.talents"]').fill("3")
        kushan.shot("offer-composer.png")
        dialog.locator('button[data-control="send-offer"]').click()
        wait_version_after(kushan, game_id, data["version"])

        # -- the other side answers ------------------------------------------------------
        data = wait_for_my_turn(han, game_id, "answer_offer")
        offer = data["view"]["me"]["offer"]
        assert offer["give"]["talents"] == 3 and offer["terms"] == ["non_aggression"]
        box = han.page.locator('#decide-body [data-control="incoming-offer"]')
        box.wait_for()
        assert "3 talents" in box.inner_text() and "non-aggression" in box.inner_text()
        assert han.page.locator('#decide-body [data-control="counter-offer"]').count() == 1
        han.shot("offer-incoming.png")
        # the offer is private until signed: a visitor's view has no bundle
        han.page.locator(
            '#decide-body button[data-action="answer_offer"][data-key*="accept"]'
        ).click()
        wait_version_after(han, game_id, data["version"])

        # -- signed: both see what binds them -------------------------------------------
        for person in (kushan, han):
            wait_js(
                person.page,
                "!!document.querySelector('#agreements li[data-agreement=\"1\"][data-status=in_force]')",
            )
            row = person.page.locator('#agreements li[data-agreement="1"]').inner_text()
            assert "non-aggression" in row and "game turn 2" in row, row
            assert "binds you" in row.lower()
        han.page.locator("#agreements").scroll_into_view_if_needed()
        han.page.locator("#agreements").screenshot(path=str(artifact("agreements-panel.png")))

        # -- Han passes, Kushan breaks it by renouncing --------------------------------------
        data = wait_for_my_turn(han, game_id, "diplo")
        han.page.locator('#decide-body button[data-action="diplo"][data-move="pass"]').click()
        wait_version_after(han, game_id, data["version"])
        data = wait_for_my_turn(kushan, game_id, "renounce")
        assert kushan.page.locator('#decide-body [data-control="binds-you"]').count() == 1
        kushan.page.locator("#decide-body details.renounce summary").click()
        kushan.page.locator('#decide-body button[data-action="renounce"]').click()
        wait_version_after(kushan, game_id, data["version"])

        # -- the 20.44 parley opens on both pages and is voted in the dialog ------------------
        for person, choice in ((han, "yes"), (kushan, "no")):
            data = wait_for_my_turn(person, game_id, "vote")
            assert data["view"]["parley"]["question"] == "breach"
            dialog = person.page.locator("#decision-dialog")
            dialog.wait_for(state="visible")
            assert "20.44" in dialog.inner_text()
            if person is han:
                han.shot("parley-breach-vote.png")
            dialog.locator(f'button[data-action="vote"][data-choice="{choice}"]').click()
            wait_version_after(person, game_id, data["version"])

        # -- the guilty power is accursed, and everyone sees it --------------------------------
        final = han.api_view(game_id)["view"]
        assert final["players"][k_seat]["accursed"] is True
        assert final["agreements"][0]["status"] == "broken"
        assert final["agreements"][0]["breaker"] == k_seat
        for person in (kushan, han):
            wait_js(person.page, "!!document.querySelector('#agreements [data-control=accursed]')")
            assert (
                "Kushan"
                in person.page.locator('#agreements [data-control="accursed"]').inner_text()
            )
            wait_js(
                person.page,
                "[...document.querySelectorAll('#log-list li')].some(li => /accursed/i.test(li.textContent))",
            )
        kushan.page.locator("#agreements").scroll_into_view_if_needed()
        kushan.page.locator("#agreements").screenshot(path=str(artifact("agreements-accursed.png")))
        kushan.shot("accursed.png")
        assert not kushan.errors and not han.errors, kushan.errors + han.errors
        noise = [c for c in kushan.console + han.console if "favicon.ico" not in c]
        assert not noise, noise
    finally:
        alice.context.close()
        bob.context.close()
