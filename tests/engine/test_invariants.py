"""Random legal play on the synthetic pack with invariants after every action (a fast guard;
the 2,000-game property run lives in tests/engine_properties)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app import engine


def check(s, first):
    ids = Counter()
    for seat, p in enumerate(s["players"]):
        assert p["talents"] >= 0 and p["influence"] >= 0 and 0 <= p["popularity"] <= 10
        assert p["years_left"] >= 0
        if not p["exiled"]:
            assert s["areas"][p["court"]]["owner"] == seat
        d = p["deck"]
        for c in d["draw"] + d["discard"] + d["removed"] + ([d["hand"]] if d["hand"] else []):
            ids[c["id"]] += 1
    assert not [k for k, n in ids.items() if n > 1]
    pool = Counter(s["counters"]["pool"] + s["counters"]["out"])
    assert pool == Counter(first["counters"]["pool"] + first["counters"]["out"])
    fate = Counter(c["ref"] for c in s["fate"]["deck"] + s["fate"]["discard"])
    for p in s["players"]:
        fate.update(c["ref"] for c in p["holdings"])
        fate.update(p["in_play"])
    assert fate == Counter(c["ref"] for c in first["fate"]["deck"])
    for a in s["areas"].values():
        assert -3 <= a["social"] <= 3 and a["fort"] in (0, 2, 3)
        assert len(set(a["ties"])) == len(a["ties"]) and len(set(a["claims"])) == len(a["claims"])
        assert str(a["owner"]) not in a["partial"]


@pytest.mark.parametrize("seed", range(6))
def test_random_games_keep_every_invariant(seed):
    r = random.Random(seed)
    scenario, seats = [
        ("teaching", ["kushan", "han"]),
        ("four_empires", ["rome", "parthia", "kushan", "han"]),
        ("teaching", ["han"]),
    ][seed % 3]
    s = engine.new_game(scenario, seats, seed)
    first = s
    n = 0
    while not s["over"]:
        prompts = engine.pending(s)
        seat = r.choice(prompts)["seat"]
        legal = engine.legal_actions(s, seat)
        busy = [a for a in legal if a["type"] not in ("end_turn", "remove_tie", "reduce_fort")]
        a = r.choice(busy) if busy and r.random() < 0.9 else r.choice(legal)
        s, events = engine.apply(s, seat, a)
        for e in events:
            assert e["to"] is None or all(0 <= t < len(seats) for t in e["to"])
        check(s, first)
        n += 1
    assert engine.outcome(s) is not None and n > 20
