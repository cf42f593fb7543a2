"""The tutorial's first step on a phone (issue 40): the coach's "Got it: the first move"
button, and then the first control it points at, are in sight and not under the coach's
bar at the foot of the screen, with no scrolling by the person.

Screenshot (test-artifacts/): the first step on a phone."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js
from .test_offer_window import keep_shot
from .test_tutorial_browser import PHONE, coach_ready

pytestmark = BROWSER_MARKS
playwright_api = pytest.importorskip("playwright.sync_api")

#: is the element in the viewport, clear of the coach's bar, and what a tap there hits?
CLEAR = """(sel) => {
  const t = document.querySelector(sel);
  if (!t) return 'missing';
  const a = t.getBoundingClientRect();
  if (a.top < 0 || a.bottom > innerHeight) return `out of sight ${Math.round(a.top)}-${Math.round(a.bottom)}`;
  const bar = document.getElementById('coach-mini');
  if (bar && getComputedStyle(bar).display !== 'none') {
    const b = bar.getBoundingClientRect();
    if (b.height > 0 && a.bottom > b.top) return `under the coach bar ${Math.round(a.bottom)} > ${Math.round(b.top)}`;
  }
  const hit = document.elementFromPoint(a.left + a.width / 2, a.top + a.height / 2);
  return hit && (hit === t || t.contains(hit)) ? 'clear' : `covered by ${hit && hit.tagName}#${hit && hit.id}`;
}"""


def test_the_first_step_is_clear_of_the_coach_bar_on_a_phone(
    browser: Any, live_server: Any
) -> None:
    context = browser.new_context(viewport=PHONE, base_url=live_server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(15000)
    try:
        page.goto("/signup?next=/tutorial")
        page.fill("input[name=username]", f"tp{uuid.uuid4().hex[:6]}")
        page.fill("input[name=password]", "correct horse 1")
        page.click("form[action='/signup'] button[type=submit]")
        page.wait_for_url(re.compile(r"/tutorial$"))
        page.click("#tutorial-start")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        coach_ready(page)
        assert page.locator("#coach").get_attribute("data-step") == "goal"
        page.wait_for_timeout(400)  # any smooth scroll settles
        where = page.evaluate(CLEAR, "#coach-goal-ok")
        path = artifact("tutorial-first-step-phone.png")
        page.screenshot(path=str(path))
        keep_shot(path)
        assert where == "clear", where
        page.click("#coach-goal-ok")
        wait_js(page, "document.getElementById('coach').dataset.step !== 'goal'")
        coach_ready(page)
        page.wait_for_timeout(400)
        where = page.evaluate(CLEAR, ".coach-target")
        assert where == "clear", where
        assert not errors, errors
    finally:
        context.close()
