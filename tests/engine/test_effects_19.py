"""Every effect op is interpreted, and every Fate card of the pack resolves."""

from __future__ import annotations

from pathlib import Path

from app import engine
from app.engine.effects import KNOWN_OPS
from app.engine.fate import holding_actions, resolve_event

from .helpers import HAN, KUSHAN, game, turn_of

ENGINE = Path(__file__).resolve().parents[2] / "app" / "engine"


def test_every_known_op_is_interpreted_by_the_engine():
    source = "".join(p.read_text() for p in ENGINE.glob("*.py") if p.name != "effects.py")
    missing = [op for op in sorted(KNOWN_OPS) if f'"{op}"' not in source]
    assert missing == []


def test_every_pack_effect_uses_a_known_op(synthetic):
    for stem in ("fate", "innovations", "buildings", "notables"):
        for item in synthetic.get(stem, []):
            eff = item.get("effect") or item.get("ability")
            assert eff["op"] in KNOWN_OPS, (stem, item["id"])


def test_every_fate_event_resolves_and_every_holding_can_be_played(synthetic):
    for card in synthetic["fate"]:
        s = turn_of(game(), KUSHAN)
        s["players"][KUSHAN]["emperor"]["age"] = 80
        if card["kind"] == "event":
            resolve_event(s, KUSHAN, card["effect"], [])
            continue
        s["players"][KUSHAN]["holdings"] = [{"id": "k6000", "kind": "fate", "ref": card["id"]}]
        s["areas"]["tarim"]["ties"] = [KUSHAN, HAN]
        s["areas"]["gandhara"]["ties"] = []
        step = "drawn" if card["effect"]["op"] == "redraw_counter" else "start"
        if step == "drawn":
            turn_of(s, KUSHAN, hand="arts")
        plays = holding_actions(s, KUSHAN, step)
        assert plays, card["id"]
        engine.apply(s, KUSHAN, plays[0])
