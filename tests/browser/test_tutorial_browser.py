"""A newcomer takes the tutorial in headless Chromium, on the real server: from the
home page, signing up, through every situation the coach points at (each step's
control glows; the test clicks exactly that control), leaving and resuming, to the
finished game and "Play a real game". Screenshots of every step at 1440×900 and
375×812 go to test-artifacts/tutorial-*.png.

Then, on the same server, what the finished game shows elsewhere: the lobby (my
finished games, power names and flags, ratings, who is online), the player's profile,
the replay (no winner before the last step), the favicon, a rule cross reference, and
the map (labels a constant size on screen, thinned; keyboard reachable).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import pytest

from .chromium import BROWSER_MARKS, artifact, wait_js

pytestmark = BROWSER_MARKS
playwright_api = pytest.importorskip("playwright.sync_api")

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 375, "height": 812}


def coach_ready(page: Any) -> None:
    """The coach has caught up with the board and marked the control (or the end)."""
    wait_js(
        page,
        """(() => {
          const c = document.getElementById('coach');
          if (!c || c.hidden || c.dataset.version !== document.body.dataset.version) return false;
          return c.dataset.step === 'over' || !!document.querySelector('.coach-target');
        })()""",
        timeout=20000,
    )


#: where the coach's box and the control it points at lie, and what is on top at the
#: control's centre: the coach must never cover it (issue 26)
COVER_CHECK = """(() => {
  const t = document.querySelector('.coach-target');
  const coach = document.getElementById('coach');
  if (!t || !coach || coach.contains(t)) return null;
  const a = t.getBoundingClientRect();
  const inDialog = !!t.closest('dialog');
  const boxes = [coach, document.getElementById('coach-mini')]
    .filter((n) => n && getComputedStyle(n).display !== 'none')
    .map((n) => n.getBoundingClientRect())
    .filter((b) => b.width > 0 && b.height > 0);
  const overlap = boxes.some((b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom);
  const x = Math.min(Math.max(a.left + a.width / 2, 0), innerWidth - 1);
  const y = Math.min(Math.max(a.top + a.height / 2, 0), innerHeight - 1);
  const hit = document.elementFromPoint(x, y);
  return {overlap: inDialog ? false : overlap, onTop: !!hit && (t === hit || t.contains(hit)),
          inView: a.bottom > 0 && a.top < innerHeight,
          hit: hit ? `${hit.tagName}#${hit.id}.${hit.className}` : null,
          target: `${t.tagName}.${t.className} ${Math.round(a.top)}-${Math.round(a.bottom)}`};
})()"""


def assert_not_covered(page: Any, step: str, where: str) -> None:
    """Once the control is in view (as the person scrolls to it), nothing lies on it."""
    page.evaluate("document.querySelector('.coach-target')?.scrollIntoView({block: 'nearest'})")
    found = page.evaluate(COVER_CHECK)
    if found is None or not found["inView"]:
        return  # the goal's own button, or a control the page has not scrolled to
    assert not found["overlap"], f"the coach's box overlaps the control ({step}, {where})"
    assert found["onTop"], f"{found['hit']} covers the control {found['target']} ({step}, {where})"


def map_keeps_a_third(page: Any, where: str) -> None:
    """On a desktop the map keeps at least a third of the screen's height beside the
    coach and the decision panel, and on the end screen (issue 40: it shrank to ~215 px
    in the tutorial and to a strip at the end)."""
    box = page.locator(".map-wrap").bounding_box()
    assert box is not None and box["height"] >= 0.3 * DESKTOP["height"], (where, box)


def shoot(page: Any, name: str) -> None:
    assert_not_covered(page, name, "desktop")
    map_keeps_a_third(page, name)
    page.screenshot(path=str(artifact(f"tutorial-{name}-desktop.png")))
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    coach_ready(page)
    # on a phone the coach's words come first and the control below: show the control
    page.evaluate("document.querySelector('.coach-target')?.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(250)
    assert_not_covered(page, name, "phone")
    page.screenshot(path=str(artifact(f"tutorial-{name}-phone.png")), full_page=False)
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(150)
    coach_ready(page)


def test_a_newcomer_plays_the_whole_tutorial(browser: Any, live_server: Any) -> None:
    expect = playwright_api.expect
    name = f"n{uuid.uuid4().hex[:8]}"
    context = browser.new_context(viewport=DESKTOP, base_url=live_server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(15000)
    started = time.monotonic()
    try:
        page.goto("/")
        page.click("#learn")
        expect(page).to_have_url(re.compile(r"/signup\?next=/tutorial"))
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", "correct horse 1")
        page.click("form[action='/signup'] button[type=submit]")
        expect(page).to_have_url(re.compile(r"/tutorial$"))
        page.click("#tutorial-start")
        expect(page).to_have_url(re.compile(r"/games/\d+$"))
        game_id = int(re.search(r"/games/(\d+)$", page.url).group(1))  # type: ignore[union-attr]

        steps: list[str] = []
        long_lists: list[str] = []
        shot: set[str] = set()
        left_once = False
        for _ in range(200):
            coach_ready(page)
            step = page.locator("#coach").get_attribute("data-step") or ""
            if step == "over":
                break
            steps.append(step)
            assert_not_covered(page, step, "desktop")
            if step not in shot:
                shot.add(step)
                shoot(page, step)
            if step == "endeavour" and not left_once:
                # leave in the middle of the tutorial and come back from the lobby
                left_once = True
                page.goto("/")
                expect(page.locator("#learn")).to_have_text("Continue the tutorial")
                page.click("#learn")
                expect(page).to_have_url(re.compile(rf"/games/{game_id}$"))
                continue
            version = page.evaluate("document.body.dataset.version")
            target = page.locator(".coach-target").first
            target.evaluate("e => e.dataset.clicked = '1'")
            if target.evaluate("e => e.tagName") == "SELECT":
                # a long list is a list box: the coach names its value, and the list
                # shows it first (issue 26: "Achaea" among 116, never named)
                field = target.get_attribute("data-field")
                value = page.evaluate(
                    f"JSON.stringify(window.imperialGlory.tutor.advice.action['{field}'])"
                )
                first = target.locator("option").nth(1)
                assert first.get_attribute("value") == value
                shown = first.inner_text()
                assert shown.endswith(" (suggested)"), shown
                doing = page.locator("#coach .coach-doing").inner_text()
                assert shown.removesuffix(" (suggested)") in doing, (shown, doing)
                long_lists.append(shown)
                target.select_option(value=value)
            else:
                target.click()
            wait_js(
                page,
                f"document.body.dataset.version !== {json.dumps(version)}"
                " || !document.querySelector('.coach-target[data-clicked]')",
            )
        else:
            raise AssertionError(f"the tutorial did not end: {steps[-10:]}")

        elapsed = time.monotonic() - started
        print(f"tutorial: {len(steps)} clicks, {elapsed:.0f} s, steps {steps}")
        coach = page.locator("#coach")
        assert coach.locator(".coach-steps li.done").count() == 8, coach.inner_text()
        assert steps[0] == "goal" and "victory level" in page.evaluate(
            "window.imperialGlory.tutor.advice.goal.text"
        )
        assert long_lists, "no long list met: the naming is not tested"
        # the first draw comes before any tax, parley or defense (issue 26)
        first_draw = steps.index("draw")
        assert all(steps.index(s) > first_draw for s in ("tax", "parley", "defense"))
        for situation in (
            "diplomacy",
            "draw",
            "petition_bust",
            "endeavour",
            "defense",
            "tax",
            "parley",
        ):
            assert situation in steps, (situation, steps)
        assert page.locator(".outcome").count() == 1
        shoot(page, "over")
        page.click("#play-real")
        expect(page).to_have_url(re.compile(r"/games/new$"))

        # ---------------------------------------------------------------- the lobby
        page.goto("/")
        mine = page.locator("#my-finished")
        expect(mine).to_contain_text(f"#{game_id}")
        assert "No games yet" not in page.locator("main").inner_text()
        row = mine.locator(f"li[data-game-id='{game_id}']")
        expect(row.locator(".power-name").first).to_have_text(re.compile(r"Kushan|Han"))
        assert row.locator("svg.flag").count() == 2
        assert not re.search(r"\b(kushan|han)\b", row.inner_text()), "a power code in the lobby"
        expect(row.locator(".rating")).to_have_count(1)
        expect(page.locator("#online")).to_contain_text(name)
        page.screenshot(path=str(artifact("newcomer-lobby.png")), full_page=True)

        # ---------------------------------------------------------------- the profile
        page.click(f"#online a:has-text('{name}')")
        expect(page).to_have_url(re.compile(rf"/players/{name}$"))
        # the tutorial is unrated (issue 26): the rating stays 1000, provisional
        expect(page.locator("#rating")).to_have_text("1000?")
        expect(page.locator("#history-unrated")).to_contain_text(f"#{game_id}")
        expect(page.locator("#history-unrated")).to_contain_text("the tutorial")
        page.screenshot(path=str(artifact("newcomer-profile.png")), full_page=True)

        # ---------------------------------------------------------------- the replay
        page.goto(f"/games/{game_id}/replay#step=1")
        wait_js(page, "document.body.dataset.step === '1'")
        assert page.locator(".outcome").count() == 0, "the winner shown at step 1"
        assert page.locator("#game-over").is_hidden(), "Rematch shown at step 1"
        page.click("[data-replay=last]")
        page.locator(".outcome").wait_for()
        assert page.locator("#game-over").is_visible()

        # ---------------------------------------------------------------- favicon, rules
        icon = page.request.get("/favicon.ico")
        assert icon.ok and "svg" in icon.headers["content-type"]
        page.goto("/rules#r22.23")
        page.locator("#r22\\.2.rule-target").wait_for()

        assert not errors, errors
    finally:
        context.close()


def test_the_map_reads_at_every_zoom_and_by_keyboard(browser: Any, live_server: Any) -> None:
    name = f"m{uuid.uuid4().hex[:8]}"
    context = browser.new_context(viewport=DESKTOP, base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15000)
    try:
        page.goto("/signup?next=/tutorial")
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", "correct horse 1")
        page.click("form[action='/signup'] button[type=submit]")
        page.click("#tutorial-start")
        page.locator("#map svg #labels text").first.wait_for(state="attached")
        wait_js(page, "document.body.dataset.version !== ''")

        def label_heights() -> tuple[list[float], int]:
            hs = page.evaluate(
                """() => [...document.querySelectorAll('#map #labels text:not(.thinned)')]
                     .map(t => t.getBoundingClientRect())
                     .filter(r => r.width > 0 && r.bottom > 0 && r.top < innerHeight)
                     .map(r => r.height)"""
            )
            thinned = page.locator("#map #labels text.thinned").count()
            return hs, thinned

        for viewport in (DESKTOP, PHONE):
            page.set_viewport_size(viewport)
            page.click("button[aria-label='Show the whole map']")
            page.wait_for_timeout(300)
            whole, thinned_whole = label_heights()
            assert whole and min(whole) >= 11, (viewport, min(whole))  # was ~5 px
            assert thinned_whole > 0, "at the whole map some labels must give way"
            page.click("button[aria-label='Zoom in']")
            page.click("button[aria-label='Zoom in']")
            page.wait_for_timeout(300)
            near, thinned_near = label_heights()
            assert near and min(near) >= 11 and max(near) <= 24, (viewport, min(near), max(near))
            assert thinned_near < thinned_whole, "zooming in shows more names"
            tag = "desktop" if viewport is DESKTOP else "phone"
            page.screenshot(path=str(artifact(f"newcomer-map-{tag}.png")))
        page.set_viewport_size(DESKTOP)

        # the legend names every mark on the map
        page.click(".legend summary")
        for item in ("barrier", "pass", "strait", "sea"):
            assert page.locator(f".legend li[data-legend={item}]").is_visible()
        assert page.locator(".legend li[data-legend-power] svg.flag").count() == 2
        page.locator(".legend").screenshot(path=str(artifact("newcomer-legend.png")))

        # keyboard: one tab stop into the map, arrows move between areas, details read out
        first = page.locator("#map .area[tabindex='0']").first
        first.focus()
        before = page.evaluate("document.activeElement.dataset.areaId")
        page.keyboard.press("ArrowRight")
        after = page.evaluate("document.activeElement.dataset.areaId")
        assert after and after != before
        card = page.locator("#area-card")
        assert card.is_visible() and card.get_attribute("aria-live") == "polite"
        label = page.evaluate("document.activeElement.getAttribute('aria-label')")
        assert "population" in label
        assert page.locator("#area-card h3").inner_text() in label
    finally:
        context.close()
