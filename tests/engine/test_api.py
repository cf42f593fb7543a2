"""The contract: round trip, replay, legality exactness, errors, redaction, the end."""

from __future__ import annotations

import json
import random

import pytest

from app import engine
from app.engine import BadSetup, IllegalAction, UnknownScenario

from .helpers import HAN, KUSHAN, game, turn_of


def play(scenario, seats, seed, steps=None, keep=False):
    """Random legal play (biased to doing things); returns the final state, log and sampled states."""
    r = random.Random(seed)
    s = engine.new_game(scenario, list(seats), seed)
    log, sampled = [], []
    n = 0
    while not s["over"] and (steps is None or n < steps):
        prompts = engine.pending(s)
        assert prompts, (s["phase"], s["step"])
        seat = r.choice(prompts)["seat"]
        legal = engine.legal_actions(s, seat)
        assert legal
        busy = [
            a
            for a in legal
            if a["type"] not in ("end_turn", "remove_tie", "reduce_fort", "dismiss")
        ]
        a = r.choice(busy) if busy and r.random() < 0.9 else r.choice(legal)
        if keep and n % 37 == 0:
            sampled.append(s)
        s, _ = engine.apply(s, seat, a)
        log.append((seat, a))
        n += 1
    return s, log, sampled


def test_new_game_errors():
    with pytest.raises(UnknownScenario):
        engine.new_game("atlantis", ["han"], 1)
    with pytest.raises(BadSetup):
        engine.new_game("teaching", ["rome"], 1)
    with pytest.raises(BadSetup):
        engine.new_game("teaching", ["han", "han"], 1)
    with pytest.raises(BadSetup):
        engine.new_game("teaching", ["han"], 1, {"end_turn": 9})


def test_json_round_trip_is_exact():
    s, _, _ = play("four_empires", ("rome", "parthia", "kushan", "han"), 3, steps=150)
    text = engine.dumps(s)
    assert engine.dumps(engine.loads(text)) == text
    assert json.loads(text) == s
    assert engine.state_hash(engine.loads(text)) == engine.state_hash(s)


def test_loads_refuses_another_pack():
    s = game()
    s["content_hash"] = "other"
    with pytest.raises(engine.ContentMismatch):
        engine.loads(engine.dumps(s))


def test_replay_reproduces_the_state_hash():
    s, log, _ = play("teaching", ("kushan", "han"), 7)
    again = engine.replay("teaching", ["kushan", "han"], 7, log)
    assert engine.state_hash(again) == engine.state_hash(s)
    other = engine.new_game("teaching", ["kushan", "han"], 8)
    assert engine.state_hash(other) != engine.state_hash(
        engine.new_game("teaching", ["kushan", "han"], 7)
    )


def test_apply_never_mutates_its_input():
    s = turn_of(game(), KUSHAN)
    before = engine.dumps(s)
    engine.apply(s, KUSHAN, {"type": "draw"})
    assert engine.dumps(s) == before


@pytest.mark.parametrize("seed", [11, 12])
def test_every_listed_action_is_accepted_on_sampled_states(seed):
    _, _, sampled = play("four_empires", ("rome", "parthia", "kushan", "han"), seed, keep=True)
    assert len(sampled) > 5
    for s in sampled:
        for prompt in engine.pending(s):
            for a in engine.legal_actions(s, prompt["seat"]):
                engine.apply(s, prompt["seat"], a)


def test_crafted_illegal_actions_are_refused_with_a_reason():
    s = turn_of(game(), KUSHAN)
    cases = [
        (HAN, {"type": "draw"}, "not_your_turn"),
        (KUSHAN, {"type": "petition"}, "wrong_prompt"),
        (KUSHAN, {"type": "tax", "area": "gandhara", "amount": 3}, "bad_tax"),
        (KUSHAN, {"type": "tax", "area": "guanzhong", "amount": 1}, "bad_tax"),
        (KUSHAN, {"nope": 1}, "malformed"),
        (KUSHAN, "draw", "malformed"),
        (7, {"type": "draw"}, "bad_seat"),
    ]
    for seat, action, code in cases:
        with pytest.raises(IllegalAction) as err:
            engine.apply(s, seat, action)
        assert err.value.code == code and err.value.reason.endswith(".")
    s["players"][KUSHAN]["years_left"] = 0
    with pytest.raises(IllegalAction) as err:
        engine.apply(s, KUSHAN, {"type": "draw"})
    assert err.value.code == "no_years"
    s = turn_of(game(), KUSHAN, hand="military")
    for action, code in [
        (
            {
                "type": "endeavour",
                "kind": "conquest",
                "base": "gandhara",
                "target": "kashmir",
                "talents": 99,
            },
            "cannot_afford",
        ),
        (
            {
                "type": "endeavour",
                "kind": "conquest",
                "base": "gandhara",
                "target": "kashmir",
                "talents": -1,
            },
            "bad_talents",
        ),
        (
            {
                "type": "endeavour",
                "kind": "conquest",
                "base": "gandhara",
                "target": "henan",
                "talents": 0,
            },
            "bad_target",
        ),
        (
            {
                "type": "endeavour",
                "kind": "festival",
                "base": "bactria",
                "target": "bactria",
                "talents": 0,
            },
            "wrong_advisor",
        ),
        (
            {
                "type": "endeavour",
                "kind": "conquest",
                "base": "nowhere",
                "target": "kashmir",
                "talents": 0,
            },
            "bad_target",
        ),
    ]:
        with pytest.raises(IllegalAction) as err:
            engine.apply(s, KUSHAN, action)
        assert err.value.code == code, (action, err.value.code)


def test_view_redacts_secrets():
    s, _, _ = play("four_empires", ("rome", "parthia", "kushan", "han"), 5, steps=200)
    s = turn_of(s, 0)
    s["players"][1]["holdings"] = [{"id": "k99001", "kind": "fate", "ref": "designated_heir"}]
    for seat in (None, 0):
        v = engine.view(s, seat)
        text = json.dumps(v)
        assert "rng" not in v and str(s["rng"]) not in text
        assert "designated_heir" not in text
        assert all(card["id"] not in text for card in s["players"][1]["deck"]["draw"])
        assert all(
            nb not in text
            for nb in s["market"]["deck"][:3]
            if nb not in str(v["market"]["row"]) and nb not in str(v["players"])
        )
        assert "k99001" not in text
    me = engine.view(s, 0)["me"]
    draw_ids = [c["id"] for c in s["players"][0]["deck"]["draw"]]
    listed = [c["id"] for c in me["draw_list"]]
    assert sorted(listed) == sorted(draw_ids)
    assert me["draw_list"] == sorted(me["draw_list"], key=lambda c: (c["kind"], c["ref"], c["id"]))
    assert "me" not in engine.view(s, None)
    with pytest.raises(IllegalAction):
        engine.view(s, 9)


@pytest.mark.parametrize(
    "scenario,seats",
    [("teaching", ("kushan", "han")), ("four_empires", ("rome", "parthia", "kushan", "han"))],
)
def test_private_view_is_the_seats_own_part_and_never_reads_the_map(scenario, seats):
    """``private_view`` is ``view(state, seat)["me"]`` built alone, from the player
    records: the realtime push splices it into the public view it encoded once, so it
    must give the same answer on a state whose map is empty."""
    _, _, sampled = play(scenario, seats, 11, steps=300, keep=True)
    assert sampled
    for s in sampled:
        for seat in range(len(seats)):
            me = engine.view(s, seat)["me"]
            assert engine.private_view(s, seat) == me
            assert engine.private_view({**s, "areas": {}}, seat) == me
    with pytest.raises(IllegalAction):
        engine.private_view(sampled[0], 9)


def test_default_action_is_always_legal():
    r = random.Random(3)
    s = engine.new_game("four_empires", ["rome", "parthia", "kushan"], 3)
    for _ in range(300):
        if s["over"]:
            break
        prompts = engine.pending(s)
        for p in prompts:
            assert engine.default_action(s, p) in engine.legal_actions(s, p["seat"])
        p = r.choice(prompts)
        legal = engine.legal_actions(s, p["seat"])
        s, _ = engine.apply(s, p["seat"], r.choice(legal))


def test_a_game_played_by_deadlines_ends_with_scores_and_ratings():
    s = engine.new_game("teaching", ["kushan", "han"], 2)
    n = 0
    while not s["over"]:
        p = engine.pending(s)[0]
        s, _ = engine.apply(s, p["seat"], engine.default_action(s, p))
        n += 1
        assert n < 2000
    out = engine.outcome(s)
    assert out is not None and set(out["ranking"]) == {0, 1}
    assert set(out["solitaire_rating"]) == {"0", "1"}
    assert engine.legal_actions(s, 0) == [] and engine.pending(s) == []
    with pytest.raises(IllegalAction):
        engine.apply(s, 0, {"type": "end_turn"})


def test_solo_game_skips_diplomacy_and_gets_a_rating():
    s = engine.new_game("teaching", ["han"], 4, {"end_turn": 1})
    assert s["phase"] == "turn" and len(s["players"]) == 1
    while not s["over"]:
        p = engine.pending(s)[0]
        s, _ = engine.apply(s, p["seat"], engine.default_action(s, p))
    assert engine.outcome(s)["solitaire_rating"]["0"] in {
        "Excellent",
        "Very Good",
        "Good",
        "Fair",
        "Poor",
        "Very Poor",
    }


def test_3_diplomatic_phase_war_and_peace():
    s = game()
    assert s["phase"] == "diplomacy" and engine.pending(s)[0]["kind"] == "diplomacy"
    seat = engine.pending(s)[0]["seat"]
    other = 1 - seat
    power = s["players"][other]["power"]
    s, _ = engine.apply(s, seat, {"type": "diplo", "move": "declare_war", "power": power})
    assert s["relations"]["pairs"]["0|1"]["status"] == "war"
    s, _ = engine.apply(
        s, other, {"type": "diplo", "move": "propose_peace", "power": s["players"][seat]["power"]}
    )
    assert engine.pending(s)[0] == {
        "seat": seat,
        "kind": "request",
        "label": engine.pending(s)[0]["label"],
        "request": "peace",
        "from": other,
    }
    s, _ = engine.apply(s, seat, {"type": "diplo", "move": "accept_peace", "power": power})
    assert s["relations"]["pairs"]["0|1"]["status"] == "peace"


def test_3_22_breaking_a_young_treaty_fails():
    s = game()
    s["relations"]["pairs"]["0|1"] = {"status": "peace", "since": 1}
    seat = engine.pending(s)[0]["seat"]
    s2, ev = engine.apply(
        s, seat, {"type": "diplo", "move": "declare_war", "power": s["players"][1 - seat]["power"]}
    )
    assert s2["relations"]["pairs"]["0|1"]["status"] == "peace"


def test_4_3_initiative_and_five_years():
    s = game()
    while s["phase"] == "diplomacy":
        p = engine.pending(s)[0]
        s, _ = engine.apply(s, p["seat"], {"type": "diplo", "move": "pass"})
    assert s["phase"] == "initiative"
    picker = engine.pending(s)[0]["seat"]
    assert picker == s["initiative"]["pickers"][0]
    s, _ = engine.apply(s, picker, {"type": "choose_slot", "slot": 1})
    assert s["order"][1] == picker and s["phase"] == "turn"
    assert all(p["years_left"] == 5 for p in s["players"])


def test_explain_a_petition_counts_bust_odds():
    s = turn_of(game(), KUSHAN)
    p = s["players"][KUSHAN]
    p["deck"]["draw"] = [
        {"id": "k1", "kind": "burden", "ref": "plot"},
        {"id": "k2", "kind": "advisor", "ref": "arts"},
        {"id": "k3", "kind": "burden", "ref": "plot"},
    ]
    s, _ = engine.apply(s, KUSHAN, {"type": "draw"})
    ex = engine.explain(s, KUSHAN, {"type": "petition"})
    assert ex["strikes"] == 1 and ex["bust_odds"] == pytest.approx(0.5) and ex["cost"] == 1


def test_explain_accepts_exactly_the_listed_endeavours():
    s = turn_of(game(), KUSHAN, hand="military")
    legal = [a for a in engine.legal_actions(s, KUSHAN) if a["type"] == "endeavour"]
    for a in legal:
        assert engine.explain(s, KUSHAN, a)["rating"] is not None
    for bad in (
        {**legal[0], "talents": 99},
        {**legal[0], "talents": True},
        {**legal[0], "target": "latium"},
        {**legal[0], "extra": 1},
        {**legal[0], "kind": "festival"},
    ):
        with pytest.raises(IllegalAction):
            engine.explain(s, KUSHAN, bad)
    with pytest.raises(IllegalAction):
        engine.explain(s, HAN, legal[0])


def test_bad_input_to_loads_and_explain_is_a_typed_error():
    with pytest.raises(engine.EngineError):
        engine.loads("{not json")
    with pytest.raises(engine.EngineError):
        engine.loads("[1, 2]")
    s = turn_of(game(), KUSHAN)
    for seat, action in [
        (5, {"type": "draw"}),
        ("0", {"type": "draw"}),
        (KUSHAN, {"type": "tax", "area": "gandhara", "amount": "2"}),
        (KUSHAN, {"type": "tax", "area": "moon"}),
        (KUSHAN, ["x"]),
    ]:
        with pytest.raises(IllegalAction):
            engine.explain(s, seat, action)


def test_views_do_not_depend_on_secrets():
    """Scramble everything secret from seat 1's point of view: its view must not change."""
    s, _, _ = play("four_empires", ("rome", "parthia", "kushan", "han"), 21, steps=120)
    s = turn_of(s, 0)
    s, _ = engine.apply(s, 0, {"type": "draw"})
    other = engine.loads(engine.dumps(s))
    other["rng"] = 12345
    for seat in (0, 2, 3):
        d = other["players"][seat]["deck"]
        d["draw"].reverse()
        other["players"][seat]["holdings"] = [
            {"id": "k424242", "kind": "fate", "ref": "hidden_treasury"}
        ] * len(other["players"][seat]["holdings"])
    if other["players"][0]["deck"]["hand"] is not None:
        other["players"][0]["deck"]["hand"] = dict(
            other["players"][0]["deck"]["hand"],
            ref="arts" if other["players"][0]["deck"]["hand"]["ref"] != "arts" else "military",
            kind="advisor",
        )
    other["market"]["deck"].reverse()
    other["fate"]["deck"].reverse()
    for viewer in (1, None):
        assert engine.view(other, viewer) == engine.view(s, viewer)


def test_replay_is_identical_in_another_process_with_another_hash_seed(tmp_path):
    """Set iteration order changes with PYTHONHASHSEED; the game must not."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    s, log, _ = play("four_empires", ("rome", "parthia", "kushan", "han"), 9, steps=400)
    (tmp_path / "log.json").write_text(json.dumps(log))
    from .pack import write_pack

    write_pack(tmp_path / "pack")
    code = (
        "import json, sys; from pathlib import Path; from app import engine; "
        "from app.engine.content import load_content, set_active; "
        f"set_active(load_content(Path({str(tmp_path / 'pack')!r}))); "
        f"log = json.loads(Path({str(tmp_path / 'log.json')!r}).read_text()); "
        "print(engine.state_hash(engine.replay('four_empires', ['rome', 'parthia', 'kushan', 'han'], 9, log)))"
    )
    root = Path(__file__).resolve().parents[2]
    for seed in ("1", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        assert out.stdout.strip() == engine.state_hash(s)
