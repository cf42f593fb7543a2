"""Ending an agreement by consent, and the breach said before it is made, in the browser
(rules 20.3, 20.13, 20.44; issue 26's "no traps"): two people sign a non-aggression pact
through the composer; on the next move the "Declare war" line on the partner names the
agreement it would break, the parley that follows, and that it cannot succeed yet (3.22);
the partner is offered a cancellation instead, sees it as an offer to answer, accepts, and
both pages show the agreement cancelled by consent. Every decision is a click.

Screenshots (test-artifacts/): the breach warning, the cancellation as the partner sees
it, and the agreements panel after it.
"""

from __future__ import annotations

from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js
from .test_grand_diplomacy_browser import wait_for_my_turn
from .test_play_in_browser import open_table, wait_version_after

pytestmark = BROWSER_MARKS

pytest.importorskip("playwright.sync_api")


def test_a_war_on_a_partner_warns_first_and_a_cancellation_ends_the_pact_by_consent(
    browser: Any, live_server: Any
) -> None:
    alice, bob, game_id = open_table(browser, live_server.url, "teaching", powers=("kushan", "han"))
    try:
        people = {}
        for person in (alice, bob):
            data = person.api_view(game_id)
            people[data["view"]["players"][data["seat"]]["power"]] = (person, data["seat"])
        kushan, _ = people["kushan"]
        han, h_seat = people["han"]
        if h_seat == 0:  # the first to act in the diplomatic phase: Han lets Kushan speak
            data = wait_for_my_turn(han, game_id, "diplo")
            han.page.locator('#decide-body button[data-action="diplo"][data-move="pass"]').click()
            wait_version_after(han, game_id, data["version"])

        # -- Kushan offers non-aggression for 2 game turns; Han signs ------------------------
        data = wait_for_my_turn(kushan, game_id, "offer")
        page = kushan.page
        page.locator('#decide-body button[data-control="compose-offer"]').click()
        dialog = page.locator("#offer-dialog")
        dialog.wait_for(state="visible")
        dialog.locator('input[data-field="terms"][value="non_aggression"]').check()
        dialog.locator('select[data-field="turns"]').select_option("2")
        dialog.locator('button[data-control="send-offer"]').click()
        wait_version_after(kushan, game_id, data["version"])
        data = wait_for_my_turn(han, game_id, "answer_offer")
        han.page.locator(
            '#decide-body button[data-action="answer_offer"][data-key*="accept"]'
        ).click()
        wait_version_after(han, game_id, data["version"])

        # -- Han's move: "Declare war" on Kushan says what it would break ---------------------
        data = wait_for_my_turn(han, game_id, "cancel")
        assert {"type": "cancel", "agreement": 1} in data["legal_actions"]
        war = han.page.locator(
            '#decide-body .diplo-option:has(button[data-move="declare_war"]) .breach-warning'
        )
        war.wait_for()
        text = war.inner_text()
        assert "agreement 1 of Kushan and Han" in text and "non-aggression" in text, text
        assert "breach" in text and "parley" in text and "accursed" in text, text
        assert war.locator("a.rule").all_inner_texts() == ["§20.3", "§20.44"]
        effect = han.page.locator(
            '#decide-body .diplo-option:has(button[data-move="declare_war"]) .diplo-effect'
        )
        wait_js(
            han.page,
            "[...document.querySelectorAll('#decide-body .diplo-effect')]"
            ".some(e => e.textContent.includes('Cannot succeed now'))",
        )
        line = effect.inner_text()
        assert "made this game turn" in line and "0 turns" not in line, line
        war.scroll_into_view_if_needed()
        han.shot("breach-warning.png")

        # -- Han offers to cancel instead -------------------------------------------------------
        box = han.page.locator('#decide-body [data-control="cancel-agreements"]')
        assert "no breach" in box.inner_text() and "§20.3" in box.inner_text()
        box.locator('button[data-action="cancel"]').click()
        wait_version_after(han, game_id, data["version"])

        # -- Kushan answers it like any offer ---------------------------------------------------
        data = wait_for_my_turn(kushan, game_id, "answer_offer")
        assert data["view"]["me"]["offer"]["kind"] == "cancel"
        incoming = kushan.page.locator('#decide-body [data-control="incoming-cancel"]')
        incoming.wait_for()
        said = incoming.inner_text()
        assert "asks you to cancel agreement #1" in said and "no breach" in said, said
        kushan.shot("cancel-incoming.png")
        incoming.locator('button[data-action="answer_offer"][data-key*="accept"]').click()
        wait_version_after(kushan, game_id, data["version"])

        # -- both see it ended by consent, with no parley --------------------------------------
        for person in (kushan, han):
            wait_js(
                person.page,
                "!!document.querySelector('#agreements li[data-agreement=\"1\"][data-status=cancelled]')",
            )
            row = person.page.locator('#agreements li[data-agreement="1"]').text_content() or ""
            assert "cancelled by consent" in row, row
        final = han.api_view(game_id)["view"]
        assert final["agreements"][0]["status"] == "cancelled"
        assert final["parley"] is None
        assert not any(p["accursed"] for p in final["players"])
        kushan.page.locator("#agreements details summary").click()
        kushan.page.locator("#agreements").scroll_into_view_if_needed()
        kushan.page.locator("#agreements").screenshot(
            path=str(artifact("agreements-cancelled.png"))
        )
        assert not kushan.errors and not han.errors, kushan.errors + han.errors
        noise = [c for c in kushan.console + han.console if "favicon.ico" not in c]
        assert not noise, noise
    finally:
        alice.context.close()
        bob.context.close()
