"""``GET /api/games/{id}/events`` is one snapshot (issue 29): read while bots and a
player keep writing, ``last_seq`` is never older than an event in the body, and a client
that resumes from each answer's ``last_seq`` gets every event once, on SQLite and
PostgreSQL."""

from __future__ import annotations

import random
import threading
import time
import uuid
from typing import Any

import httpx

READ_S = 10.0


def test_events_and_last_seq_are_read_in_one_snapshot(
    live_server_any: Any, new_player: Any
) -> None:
    player = new_player(live_server_any)
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot_level": "heuristic"}] * 3
    game = player.create_game(scenario="four_empires", seats=seats, pace="none")
    gid = game["id"]
    assert player.start(gid).status_code == 200
    stop = threading.Event()
    errors: list[str] = []

    def play() -> None:
        """Our seat, as fast as it can; the bots answer after every commit."""
        rng = random.Random(3)
        while not stop.is_set():
            data = player.view(gid)
            if data["status"] != "active":
                return
            if not data["legal_actions"]:
                time.sleep(0.005)
                continue
            body = {
                "action": rng.choice(data["legal_actions"]),
                "expected_version": data["version"],
                "idempotency_key": uuid.uuid4().hex,
            }
            r = player.http.post(f"/api/games/{gid}/actions", json=body)
            if r.status_code not in (200, 409):
                errors.append(r.text)

    writer = threading.Thread(target=play)
    writer.start()
    reads = torn = 0
    resumed: list[int] = []
    cursor = 0
    versions: list[int] = []
    with httpx.Client(base_url=live_server_any.url, timeout=30) as http:
        end = time.monotonic() + READ_S
        while time.monotonic() < end:
            got = http.get(f"/api/games/{gid}/events", params={"since": cursor}).json()
            reads += 1
            seqs = [e["seq"] for e in got["events"]]
            if seqs and max(seqs) > got["last_seq"]:
                torn += 1
            assert all(cursor < s for s in seqs)
            resumed += [s for s in seqs if s <= got["last_seq"]]
            cursor = got["last_seq"]
            versions.append(got["version"])
        stop.set()
        writer.join()
        final = http.get(f"/api/games/{gid}/events", params={"since": 0}).json()
    assert errors == []
    assert torn == 0, f"{torn} of {reads} reads had events after their last_seq"
    assert versions == sorted(versions)
    # Resuming from each last_seq: every public event once, none twice, none missed.
    upto = [e["seq"] for e in final["events"] if e["seq"] <= cursor]
    assert resumed == upto
    assert len(set(versions)) > 20, "the game hardly moved while it was read"
