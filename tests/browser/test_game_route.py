"""GET /games/{id}: the game page once a game has started (real server over HTTP)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx


def meta_of(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="game-meta">(.*?)</script>', html, re.S)
    assert found, "the page carries its static data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def test_a_game_in_its_lobby_sends_you_to_the_lobby_page(live_server: Any, new_player: Any) -> None:
    host = new_player(live_server)
    game = host.create_game(scenario="teaching", seats=[{"kind": "human"}, {"kind": "human"}])
    r = host.http.get(f"/games/{game['id']}", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/games/{game['id']}/lobby"


def test_a_started_game_serves_the_page_with_its_powers_and_names(
    live_server: Any, new_player: Any
) -> None:
    host = new_player(live_server)
    game = host.create_game(
        scenario="teaching", seats=[{"kind": "human"}, {"kind": "bot", "bot_level": "heuristic"}]
    )
    assert host.start(game["id"]).status_code == 200
    r = host.http.get(f"/games/{game['id']}")
    assert r.status_code == 200
    assert '<meta name="csrf-token"' in r.text
    meta = meta_of(r.text)
    assert meta["game_id"] == game["id"]
    assert set(meta["powers"]) == {"kushan", "han"}
    assert all(p["colour"].startswith("#") and p["pattern"] for p in meta["powers"].values())
    assert meta["areas"]["bactria"]["name"] and meta["cards"]["military"]["name"] == "General"
    corbulo = meta["cards"]["corbulo"]  # a notable: its ability in words (6.4)
    assert corbulo["kind"] == "notable"
    assert corbulo["ability"] == "+1 to the rating of every conquest (6.4)"
    assert host.username in meta["seat_users"].values()
    # every asset the page asks for is served by the app itself
    for path in re.findall(r'(?:src|href)="(/static/[^"]+)"', r.text):
        assert httpx.get(live_server.url + path).status_code == 200, path
    assert httpx.get(live_server.url + meta["map_url"]).status_code == 200


def test_a_private_game_is_refused_to_a_stranger_in_words(
    live_server: Any, new_player: Any
) -> None:
    host = new_player(live_server)
    game = host.create_game(
        scenario="teaching",
        public=False,
        seats=[{"kind": "human"}, {"kind": "bot", "bot_level": "heuristic"}],
    )
    assert host.start(game["id"]).status_code == 200
    stranger = new_player(live_server)
    r = stranger.http.get(f"/games/{game['id']}")
    assert r.status_code == 403
    assert "text/html" in r.headers["content-type"]
    assert "private" in r.text
    r = httpx.get(f"{live_server.url}/games/999999")
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
