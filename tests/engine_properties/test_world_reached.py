"""Random games reach the world's new rules (17.5-17.57 usurpers, 19.34 heirless unrest,
21.31 exiles returning through a usurper, 24.12-24.14 hordes), so the replay, undo and
in-place properties of the other tests in this folder walk through them too."""

from __future__ import annotations

from collections import Counter

from app.bots.runner import play_game

REACHED = (
    "usurpers_raised",
    "usurper_stirs",
    "usurper_rebellions",
    "usurper_conquests",
    "usurper_sways",
    "usurper_buy_offs",
    "exile_returns_via_usurper",
    "horde_threats",
    "horde_raids",
    "raids_defended",
    "raids_repulsed",
    "heirless_unrest",
)


def test_random_games_reach_every_new_rule_of_the_world() -> None:
    seen: Counter[str] = Counter()
    for scenario, seats, options, seeds in (
        ("teaching", ["kushan", "han"], None, range(5)),
        # the long campaign (2.2): eight game turns give the usurpers time to be bought off
        ("four_empires", ["rome", "parthia", "kushan", "han"], {"end_turn": 8}, range(5, 10)),
    ):
        for seed in seeds:
            record = play_game(scenario, seats, seed, "random", options, keep_log=False)
            assert not record.errors, record.errors[:1]
            seen.update({k: v for k, v in record.politics.items() if k in REACHED})
    missing = [k for k in REACHED if not seen[k]]
    assert not missing, (missing, dict(seen))
