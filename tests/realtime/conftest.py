"""Helpers for the realtime tests: tables of real players on real servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from .wsclient import GameSocket


@dataclass
class Table:
    """A started game and its seated people (``players[i]`` sits in ``seats[i]``)."""

    game_id: int
    players: list[Any]  # tests.conftest.Player
    seats: list[int]

    def player_of_seat(self, seat: int) -> Any:
        return self.players[self.seats.index(seat)]


def make_table(
    server: Any,
    new_player: Callable[..., Any],
    *,
    humans: int = 2,
    bots: int = 0,
    scenario: str = "teaching",
    public: bool = True,
    powers: list[str | None] | None = None,
    options: dict[str, Any] | None = None,
) -> Table:
    people = [new_player(server) for _ in range(humans)]
    host = people[0]
    seats = [{"kind": "human"} for _ in range(humans)]
    seats += [{"kind": "bot", "bot_level": "heuristic"} for _ in range(bots)]
    powers = powers or [None] * humans
    body: dict[str, Any] = {
        "scenario": scenario,
        "seats": seats,
        "public": public,
        "pace": "live",
        "power": powers[0],
    }
    if options:
        body["options"] = options
    game = host.create_game(**body)
    game_id = int(game["id"] if "id" in game else game["game_id"])
    code = game.get("invite_code") or game.get("code")
    for person, power in zip(people[1:], powers[1:], strict=True):
        r = person.http.post(
            f"/api/games/{game_id}/join", json={"power": power, "seat": None, "code": code}
        )
        assert r.status_code == 200, r.text
    r = host.start(game_id)
    assert r.status_code == 200, r.text
    seat_of = []
    for person in people:
        seat = person.view(game_id)["seat"]
        assert seat is not None
        seat_of.append(int(seat))
    return Table(game_id, people, seat_of)


@pytest.fixture
def sockets() -> Iterator[Callable[..., GameSocket]]:
    """Open sockets that are all closed after the test."""
    opened: list[GameSocket] = []

    def open_(server: Any, game_id: int, player: Any = None, **kw: Any) -> GameSocket:
        url = server.url if hasattr(server, "url") else str(server)
        cookie = player.session_cookie if player is not None else None
        kw.setdefault("label", getattr(player, "username", "anon"))
        sock = GameSocket(url, game_id, cookie, **kw)
        opened.append(sock)
        return sock

    yield open_
    for sock in opened:
        sock.close()


def bot_pick(msg: dict[str, Any], rng: Any, level: str = "heuristic") -> dict[str, Any]:
    """What a bot would do with the view and legal actions this socket received."""
    from app import bots

    return dict(bots.choose_action(level, msg["view"], msg["legal_actions"], rng))
