"""A person negotiates with a Standard bot in the browser (rules 20.14-20.15): the
newcomer asks the bot for an area it holds the claim to, with peace and nothing in
return; the bot (on the real server's bot worker) turns the offer round and asks
talents for the area, and the person's page shows the counter-offer with the area
named in it. Every decision is made on the page; the JSON API is only read.

Screenshot (test-artifacts/): the bot's counter-offer as the person sees it."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import pytest

from app.engine.core import geo

from .chromium import BROWSER_MARKS, artifact, wait_js
from .test_grand_diplomacy_browser import wait_for_my_turn
from .test_play_in_browser import Person

pytestmark = BROWSER_MARKS

pytest.importorskip("playwright.sync_api")


def test_a_bot_counters_an_offer_with_an_area_in_it(browser: Any, live_server: Any) -> None:
    person = Person(
        browser, live_server.url, f"deal{uuid.uuid4().hex[:6]}", {"width": 1366, "height": 900}
    )
    try:
        person.signup()  # lands on the new-game form: the teaching scenario against a bot
        page = person.page
        page.select_option("#scenario", value="teaching")
        page.click("#new-game button[type=submit]")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        found = re.search(r"/games/(\d+)$", page.url)
        assert found, page.url
        game_id = int(found.group(1))
        page.locator("#map svg .area").first.wait_for()

        data = wait_for_my_turn(person, game_id, "offer")
        me, view = data["seat"], data["view"]
        bot = 1 - me
        # An area one side holds and the other has the claim to (26.1: it is worth more
        # to the claimant): we ask for the bot's with peace and nothing in return, or
        # sell ours for every talent the bot has. Either is lopsided; the bot haggles.
        areas = view["areas"]
        wanted = sorted(a for a, x in areas.items() if x.get("owner") == bot and me in x["claims"])
        sold = sorted(a for a, x in areas.items() if x.get("owner") == me and bot in x["claims"])
        assert wanted or sold, "the teaching map no longer has a claim across the border"
        page.locator('#decide-body button[data-control="compose-offer"]').click()
        dialog = page.locator("#offer-dialog")
        dialog.wait_for(state="visible")
        power = dialog.locator('select[data-field="power"]')
        if power.count():
            power.select_option(view["players"][bot]["power"])
        if wanted:
            area = wanted[0]
            dialog.locator(f'input[data-field="get.areas"][value="{area}"]').check()
        else:
            area = sold[0]
            dialog.locator(f'input[data-field="give.areas"][value="{area}"]').check()
            talents = view["players"][bot]["talents"]
            dialog.locator('input[data-field="get.talents"]').fill(str(talents))
        dialog.locator('input[data-field="terms"][value="peace"]').check()
        dialog.locator('button[data-control="send-offer"]').click()

        # The bot answers on the server: a counter (20.15) that keeps the area and asks talents.
        deadline = time.monotonic() + 30
        while True:
            data = person.api_view(game_id)
            offer = (data["view"].get("me") or {}).get("offer")
            if offer and offer.get("from") == bot and offer.get("depth", 0) >= 1:
                break
            assert time.monotonic() < deadline, "the bot never countered"
            time.sleep(0.2)
        # Its side turned round: the area stays in, the talents move towards the bot.
        assert [area] in (offer["give"]["areas"], offer["get"]["areas"]), offer
        assert offer["terms"] == ["peace"]
        talents = offer["get"]["talents"] or offer["give"]["talents"]
        assert talents > 0
        wait_js(page, f"Number(document.body.dataset.version || -1) >= {data['version']}")
        box = page.locator('#decide-body [data-control="incoming-offer"]')
        box.wait_for()
        text = box.inner_text()
        assert "counter-offer" in text, text
        assert geo().areas[area]["name"] in text, text
        assert f"{talents} talents" in text, text
        box.screenshot(path=str(artifact("bot-counter-offer.png")))
        # The answer is a notice in the page, not only a chronicle line (issue 40).
        notice = page.locator("#offer-answer")
        notice.wait_for(state="visible")
        assert "turns your offer round" in notice.inner_text(), notice.inner_text()
        page.screenshot(path=str(artifact("bot-counter-offer-page.png")))

        # Counter the counter (20.15: the last word) asking the area and every talent the
        # bot has, for nothing and without peace: the bot can only accept or refuse, and its
        # refusal says what it would need.
        box.locator('button[data-control="counter-offer"]').click()
        dialog.wait_for(state="visible")
        ask = dialog.locator('input[data-field="get.talents"]')
        ask.fill(ask.get_attribute("max") or "0")
        dialog.locator('input[data-field="give.talents"]').fill("0")
        ask.fill(ask.get_attribute("max") or "0")  # the give side cleared it (one way)
        for term in dialog.locator('input[data-field="terms"]:checked').all():
            term.uncheck()
        send = dialog.locator('button[data-control="send-offer"]')
        send.click()
        deadline = time.monotonic() + 30
        while True:
            data = person.api_view(game_id)
            if not (data["view"].get("me") or {}).get("offer") and not any(
                p.get("request") == "offer" for p in data["view"].get("prompts") or []
            ):
                break
            assert time.monotonic() < deadline, "the bot never answered the counter-counter"
            time.sleep(0.2)
        refusals = [
            e["text"]
            for e in person.page.request.get(f"/api/games/{game_id}/events?since=0").json()[
                "events"
            ]
            if (e.get("data") or {}).get("answer") == "refuse"
        ]
        assert refusals, "the bot took the offer"
        wait_js(page, "document.querySelector('#offer-answer')?.dataset.answer === 'refuse'")
        text = notice.inner_text()
        assert "refuses your offer: " in text, text
        assert re.search(r"it would need \d+ talents? more|does not deal with", text), text
        page.screenshot(path=str(artifact("bot-refusal-reason.png")))
        # The reason is the two parties' alone: it reads in the person's chronicle too.
        assert (
            text.split("refuses your offer: ", 1)[1].rstrip("×").strip()
            in page.locator("#log-list").inner_text()
        )
        assert not person.errors, person.errors
    finally:
        person.context.close()
