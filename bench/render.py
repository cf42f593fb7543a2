"""The cost of one push: rendering a version's update for every seat and a spectator.

    python bench/render.py [--scenario four_empires] [--samples 8] [--repeats 20] [--json]

What the realtime hub does in its pool for each committed version (app/realtime/render.py):
the shared part (the game's fields, the prompts, the public view, encoded once), then
each seat's message (its own part spliced in, its legal actions, its events). States
are sampled along one game played by random legal moves (``--samples`` of them); each
is rendered ``--repeats`` times and the best time kept. Prints the mean over the
samples of that best, in milliseconds, and its parts. Asserts nothing about speed.
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


def frame_of(state: dict[str, Any]) -> gamelog.Frame:
    seats = [{"index": i, "standin": None} for i in range(len(state["players"]))]
    fields = {"game_id": 1, "status": "active", "seats": seats, "public": True}
    return gamelog.Frame(
        game_id=1,
        version=9,
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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.scenario, args.samples, args.repeats)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['scenario']}: one version for {result['seats']} seats and a spectator "
            f"{result['push_ms']} ms (public view encoded {result['public_view_encoded_ms']} ms, "
            f"a seat's own part {result['private_view_per_seat_ms']} ms), "
            f"mean of {result['samples']} sampled states"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
