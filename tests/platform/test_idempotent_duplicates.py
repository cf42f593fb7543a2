"""The same request sent several times at once (one idempotency key): the first is
applied, every other waits for it and gets its answer replayed, never a 409 (issue 29;
docs/api.md, Idempotency), on SQLite and PostgreSQL, over HTTP."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import httpx

from tests.platform.test_play_http import assert_log_is_sound, prompted, two_player_game

COPIES = 8


def duplicates(player: Any, gid: int, body: dict[str, Any]) -> list[httpx.Response]:
    """`COPIES` copies of one request, released together, each on its own connection."""
    barrier = threading.Barrier(COPIES)
    answers: list[Any] = [None] * COPIES
    clients = [httpx.Client(base_url=player.base_url, timeout=30) for _ in range(COPIES)]
    for http in clients:
        http.cookies.set("ig_session", player.session_cookie or "", domain="127.0.0.1")
        http.headers["X-CSRF-Token"] = player.csrf

    def send(i: int) -> None:
        barrier.wait()
        answers[i] = clients[i].post(f"/api/games/{gid}/actions", json=body)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(COPIES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for http in clients:
        http.close()
    return answers


def test_simultaneous_duplicates_replay_the_first_answer(
    live_server_any: Any, new_player: Any
) -> None:
    gid, alice, bob = two_player_game(live_server_any, new_player)
    rounds = 0
    for _ in range(6):
        player, view = prompted(gid, alice, bob)
        body = {
            "action": view["legal_actions"][0],
            "expected_version": view["version"],
            "idempotency_key": uuid.uuid4().hex,
        }
        answers = duplicates(player, gid, body)
        assert [r.status_code for r in answers] == [200] * COPIES, [r.text for r in answers]
        first = [r.json() for r in answers if not r.json()["replayed"]]
        assert len(first) == 1, [r.json() for r in answers]
        for r in answers:
            assert r.json() == {**first[0], "replayed": r.json()["replayed"]}
        rounds += 1
        if first[0]["status"] != "active":
            break
    assert rounds >= 3
    actions = assert_log_is_sound(live_server_any.database_url, gid)
    assert len(actions) == len({a.idempotency_key for a in actions})
