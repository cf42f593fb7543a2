"""The offer window as a person meets it (issue 40, rules 20.11-20.14): at 1440x900 on
Four Empires (the longest lists of areas) "Send the offer" is in sight and can be clicked;
talents go one way in an offer (6 given and 2 asked is not an offer anyone means: a number
on one side clears the other's); "Votes in parleys" has its own heading, not the claims'.

Screenshot (test-artifacts/, and /tmp/shots/ when it exists): the window at 1440x900."""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact
from .test_grand_diplomacy_browser import wait_for_my_turn
from .test_play_in_browser import Person

pytestmark = BROWSER_MARKS

pytest.importorskip("playwright.sync_api")


def keep_shot(path: Path) -> None:
    """A copy in /tmp/shots for the one who reviews the screens, when that folder exists."""
    if Path("/tmp/shots").is_dir():
        shutil.copy(path, Path("/tmp/shots") / path.name)


def in_sight(page: Any, selector: str) -> bool:
    """Whether the element is drawn inside the viewport and is what a click there hits."""
    return bool(
        page.evaluate(
            """(sel) => {
              const node = document.querySelector(sel);
              if (!node) return false;
              const r = node.getBoundingClientRect();
              if (r.width === 0 || r.top < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
              const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return hit === node || node.contains(hit);
            }""",
            selector,
        )
    )


def test_the_offer_window_at_1440x900(browser: Any, live_server: Any) -> None:
    person = Person(
        browser, live_server.url, f"ow{uuid.uuid4().hex[:6]}", {"width": 1440, "height": 900}
    )
    try:
        person.signup()
        page = person.page
        page.select_option("#scenario", value="four_empires")
        for i in range(1, 6):
            page.select_option(f"select[name=seat_{i}]", value="bot:standard")
        page.click("#new-game button[type=submit]")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        found = re.search(r"/games/(\d+)$", page.url)
        assert found, page.url
        game_id = int(found.group(1))
        page.locator("#map svg .area").first.wait_for()
        wait_for_my_turn(person, game_id, "offer", timeout=60)
        page.locator('#decide-body button[data-control="compose-offer"]').click()
        dialog = page.locator("#offer-dialog")
        dialog.wait_for(state="visible")
        send = '#offer-dialog button[data-control="send-offer"]'

        # Talents one way: asking 2 after giving 6 clears the 6.
        give = dialog.locator('input[data-field="give.talents"]')
        get = dialog.locator('input[data-field="get.talents"]')
        give.fill("6")
        assert "You give" in dialog.locator('[data-control="offer-preview"]').inner_text()
        get.fill("2")
        assert give.input_value() == "0", give.input_value()
        preview = dialog.locator('[data-control="offer-preview"]').inner_text()
        assert "2 talents now" in preview and "6 talents" not in preview, preview

        # Votes have their own heading in each side box, after the claims'.
        for side in ("give", "get"):
            box = dialog.locator(f".offer-side.offer-{side}")
            votes = box.locator(f'input[data-field="{side}.votes"]')
            if not votes.count():
                continue
            legend = votes.locator("xpath=ancestor::fieldset[1]/legend").inner_text()
            assert legend == "Votes", legend

        # The send row is in sight with every area listed, and takes the click.
        assert in_sight(page, send), "Send the offer is cut off"
        path = artifact("offer-window-1440x900.png")
        page.screenshot(path=str(path))
        keep_shot(path)
        page.locator(send).click()
        dialog.wait_for(state="hidden")
        assert not person.errors, person.errors
    finally:
        person.context.close()
