"""Two people play through nginx in headless Chromium (deploy/nginx.conf before two
instances over one PostgreSQL): every page, request and socket of their game reaches
one instance, and a spectator attached directly to the other one sees every move.

The pages are driven as tests/browser/test_play_in_browser.py drives them: sign-up,
the new-game form, the invite link, the lobby, then decisions clicked on the game page.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.browser.chromium import BROWSER_MARKS
from tests.browser.conftest import browser  # noqa: F401 (the fixture)
from tests.browser.test_play_in_browser import Table, open_table

from .conftest import INSTANCE_HEADER, NEEDS_NGINX, Balanced
from .test_nginx import replayed_actions

pytestmark = [*BROWSER_MARKS, pytest.mark.postgres, NEEDS_NGINX]

#: decisions clicked on the pages
DECISIONS = 12


def test_two_people_play_through_nginx_and_their_game_stays_on_one_instance(
    browser: Any,  # noqa: F811
    balanced: Balanced,
    sockets: Any,
    capsys: Any,
) -> None:
    alice, bob, game_id = open_table(browser, balanced.url, "teaching")
    people = [alice, bob]
    answers: dict[str, set[str]] = {}  # path -> the instances that answered it

    def record(response: Any) -> None:
        if f"/games/{game_id}" in response.url:
            name = response.headers.get(INSTANCE_HEADER, "?")
            answers.setdefault(response.url.split("?")[0], set()).add(name)

    for person in people:
        person.page.on("response", record)
        person.page.locator("#conn[data-state=connected]").wait_for()
    home_name = httpx.get(f"{balanced.url}/api/games/{game_id}").headers[INSTANCE_HEADER]
    other = balanced.instances["b" if home_name == "a" else "a"]
    spectator = sockets(other, game_id, None, label="spectator-direct")
    assert spectator.ws.response.headers[INSTANCE_HEADER] == other.env["INSTANCE_NAME"]

    table = Table(people, game_id)
    for _ in range(DECISIONS):
        assert table.step(), "nobody had a decision"
    alice.shot("nginx-two-instances.png")
    final = alice.api_view(game_id)["version"]
    spectator.wait_version(final, timeout=10)
    for person in people:
        assert not person.errors, person.errors
        person.context.close()  # their sockets close: nginx logs them

    assert replayed_actions(balanced.database_url, game_id, capsys) == DECISIONS
    # Every answer the pages got for the game named the same instance ...
    assert answers and all(names == {home_name} for names in answers.values()), answers
    # ... and so does nginx's record of every request and socket of the game.
    deadline = time.monotonic() + 5
    while True:
        lines = [line for line in balanced.nginx.log_lines() if line.game == game_id]
        sockets_logged = [line for line in lines if line.path.startswith("/ws/")]
        if len(sockets_logged) >= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(sockets_logged) >= 2, sockets_logged
    counts = balanced.games_by_instance(lines)[game_id]
    assert counts == {home_name: len(lines)}, counts
