"""The cost of one push: rendering a version's update for every seat and a spectator.

    python bench/render.py [--scenario four_empires] [--samples 8] [--repeats 20] [--json]
                           [--versions 400]

What the realtime hub does in its pool for each committed version (app/realtime/render.py):
the shared part (the game's fields, the prompts, the public view, encoded once), then
each seat's message (its own part spliced in, its legal actions, its events). States
are sampled along one game played by random legal moves (``--samples`` of them); each
is rendered ``--repeats`` times and the best time kept. Prints the mean over the
samples of that best, in milliseconds, and its parts. Then, as the hub pushes a live
game, ``--versions`` successive versions of one game (its moves the fan-out bench's cheap
choices: draws, passes, dismissals) each rendered for the six seats and a spectator as
patches against the one before (``push_patched_ms``, CPU per version, and the bytes a
version sends). Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import engine  # noqa: E402
from app.bots.simulate import scenario_catalogue  # noqa: E402
from app.realtime.render import Rendered, dumps, private_part  # noqa: E402
from app.services import gamelog  # noqa: E402


def sampled_states(scenario: str, samples: int, seed: int = 7) -> list[dict[str, Any]]:
    """States along one game of random legal moves, evenly spaced."""
    powers = scenario_catalogue()[scenario]
    state = engine.new_game(scenario, powers, seed)
    rng = random.Random(seed)
    seen: list[dict[str, Any]] = []
    for _ in range(4000):
        prompts = engine.pending(state)
        if not prompts or state["over"]:
            break
        seat = prompts[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        seen.append(state)
    step = max(1, len(seen) // samples)
    return seen[step // 2 :: step][:samples]


#: the fan-out bench's cheap choices (bench/ws_fanout.py, ``PREFERRED``)
CHEAP = ("pass", "choose_slot", "draw", "dismiss", "end_turn", "decline", "tax")


def cheap_game(scenario: str, versions: int, seed: int = 7) -> list[dict[str, Any]]:
    """Successive states of one game played by the fan-out bench's choices."""
    powers = scenario_catalogue()[scenario]
    state = engine.new_game(scenario, powers, seed)
    rng = random.Random(seed)
    rank = {kind: i for i, kind in enumerate(CHEAP)}
    seen: list[dict[str, Any]] = []
    for _ in range(versions):
        prompts = engine.pending(state)
        if not prompts or state["over"]:
            break
        seat = prompts[0]["seat"]
        legal = engine.legal_actions(state, seat)
        ranked = [a for a in legal if a["type"] in rank or a.get("move") in rank]
        best = min(
            ranked,
            key=lambda a: min(rank.get(a["type"], 99), rank.get(a.get("move"), 99)),
            default=None,
        )
        state, _ = engine.apply(state, seat, best if best is not None else rng.choice(legal))
        engine.freeze(state)
        seen.append(state)
    return seen


def patched(scenario: str, versions: int) -> dict[str, Any]:
    """CPU per version of a push as patches along one game, and its bytes."""
    states = cheap_game(scenario, versions)
    seats: list[int | None] = [None, *range(len(states[0]["players"]))]

    def run() -> int:
        base = None
        sent = 0
        for version, state in enumerate(states, 1):
            rendered = Rendered(frame_of(state, version), [], 1.0, base)  # as the hub does
            for seat in seats:
                sent += len(rendered.text(seat, 0, base)[0])
            base = rendered.base(set(seats))
        return sent

    run()  # the engine's memo of each state's legal actions, as the submit leaves it
    best, sent = float("inf"), 0
    for _ in range(3):
        start = time.process_time()
        sent = run()
        best = min(best, time.process_time() - start)
    return {
        "versions": len(states),
        "push_patched_ms": round(best * 1000 / len(states), 3),
        "push_patched_kb": round(sent / len(states) / 1024, 2),
    }


def frame_of(state: dict[str, Any], version: int = 9) -> gamelog.Frame:
    seats = [{"index": i, "standin": None} for i in range(len(state["players"]))]
    fields = {"game_id": 1, "status": "active", "seats": seats, "public": True}
    return gamelog.Frame(
        game_id=1,
        version=version,
        state=state,
        fields=fields,
        deadlines={},
        undo_seat=None,
        first_event=0,
        last_event=0,
        events=[],
    )


def best_of(repeats: int, fn: Any) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def measure(scenario: str, samples: int, repeats: int) -> dict[str, Any]:
    states = sampled_states(scenario, samples)
    seats = len(states[0]["players"])
    push, public, private = [], [], []
    for state in states:
        frame = frame_of(state)

        def render(frame: gamelog.Frame = frame) -> None:
            rendered = Rendered(frame, [], 1.0)
            for seat in [None, *range(seats)]:
                rendered.text(seat, 0)

        push.append(best_of(repeats, render))
        public.append(best_of(repeats, lambda s=state: dumps(engine.view(s, None))))
        private.append(
            best_of(repeats, lambda s=state: [private_part(s, i) for i in range(seats)]) / seats
        )

    def mean(xs: list[float]) -> float:
        return round(sum(xs) / len(xs), 3)

    return {
        "scenario": scenario,
        "seats": seats,
        "samples": len(states),
        "push_ms": mean(push),
        "public_view_encoded_ms": mean(public),
        "private_view_per_seat_ms": mean(private),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="four_empires", choices=list(scenario_catalogue()))
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--versions", type=int, default=400)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.scenario, args.samples, args.repeats)
    result.update(patched(args.scenario, args.versions))
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['scenario']}: one version for {result['seats']} seats and a spectator "
            f"{result['push_ms']} ms (public view encoded {result['public_view_encoded_ms']} ms, "
            f"a seat's own part {result['private_view_per_seat_ms']} ms), "
            f"mean of {result['samples']} sampled states; as patches along one game, "
            f"{result['push_patched_ms']} ms CPU and {result['push_patched_kb']} KB a version "
            f"over {result['versions']} versions"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
