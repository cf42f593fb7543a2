"""4.9 overreach: at each round's end the power with the most points (26.1), once it
leads by the scenario's margin, makes a rebellion check (17.3) in its most restless area
(never its court) at +1 per so many points of lead. The teaching game has it (4 and 2);
the six-power scenarios do not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app import engine
from app.engine import overreach, usurpers
from app.engine.content import Content, load_content
from app.engine.core import owned
from app.engine.economy import rebellion_terms

from .helpers import HAN, KUSHAN, dice, game
from .pack import write_pack


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Content:
    """The synthetic pack, its teaching game with the installed pack's overreach."""
    directory = write_pack(Path(tmp_path_factory.mktemp("pack")))
    path = directory / "scenarios.json"
    scenarios = json.loads(path.read_text())
    for sc in scenarios:
        if sc["id"] == "teaching":
            sc["overreach"] = {"from_lead": 4, "per": 2, "checks": 1}
    path.write_text(json.dumps(scenarios))
    return load_content(directory)


def widened(s: dict[str, Any], *areas: str) -> dict[str, Any]:
    """The Kushans hold `areas` too (taken from whoever held them)."""
    for a in areas:
        s["areas"][a]["owner"] = KUSHAN
    return s


def value(s: dict[str, Any], seat: int, area: str) -> int:
    return sum(int(t["value"]) for t in rebellion_terms(s, seat, area, 0))


def test_4_9_the_teaching_game_starts_below_the_margin():
    s = game()
    totals = {seat: v["total"] for seat, v in engine.score(s).items()}
    assert abs(totals[KUSHAN] - totals[HAN]) < 4  # 26.1: the levels (26.2) play no part
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    assert not [e for e in events if e["rule"] == "4.9"]
    assert engine.view(s, None)["world"]["overreach"] == {
        "from_lead": 4,
        "per": 2,
        "checks": 1,
        "seat": None,
        "lead": abs(totals[KUSHAN] - totals[HAN]),
        "bonus": 0,
        "area": None,
    }


def test_4_9_a_leader_by_the_margin_checks_its_most_restless_area():
    s = widened(game(), "ferghana", "tarim", "kashmir", "wusun", "khorasan", "mongolia")
    seat, lead = overreach.leader(s) or (None, 0)
    assert seat == KUSHAN and lead >= 4
    court = s["players"][KUSHAN]["court"]
    area = overreach.restless(s, KUSHAN)
    mine = [a for a in owned(s, KUSHAN) if a != court]
    assert area in mine and area != court
    assert value(s, KUSHAN, area) == max(value(s, KUSHAN, a) for a in mine)
    seen = engine.view(s, HAN)["world"]["overreach"]
    assert (seen["seat"], seen["lead"], seen["bonus"], seen["area"]) == (
        KUSHAN,
        lead,
        lead // 2,
        area,
    )
    dice(s, 6, 6)
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    [note] = [e for e in events if e["kind"] == "overreach"]
    assert note["data"] == {"seat": KUSHAN, "lead": lead, "bonus": lead // 2}
    [check] = [e for e in events if e["kind"] == "rebellion" and e["rule"] == "4.9"]
    assert check["data"]["area"] == area
    assert {"term": "overreach", "value": lead // 2, "rule": "4.9"} in check["data"]["terms"]
    # 17.4: 12 on the dice and a value of at least 2 is a rebellion: the area is lost
    # and an Unrest burden enters the deck.
    assert check["data"]["result"] == "rebellion"
    assert s["areas"][area]["owner"] is None and s["areas"][area]["rebel_of"] == KUSHAN
    deck = s["players"][KUSHAN]["deck"]
    cards = deck["draw"] + deck["discard"]
    assert any(c["kind"] == "burden" and c["ref"] == "unrest" for c in cards)


def test_4_9_once_per_round_end_and_quiet_dice_change_nothing():
    s = widened(game(), "ferghana", "tarim", "kashmir", "wusun", "khorasan", "mongolia")
    area = overreach.restless(s, KUSHAN)
    _, lead = overreach.leader(s) or (None, 0)
    assert 2 + value(s, KUSHAN, area) + lead // 2 <= 10  # 17.3: no effect on 1+1
    dice(s, 1, 1)
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    [check] = [e for e in events if e["kind"] == "rebellion" and e["rule"] == "4.9"]
    assert check["data"]["result"] == "none"
    assert all(
        s["areas"][a]["owner"] == KUSHAN
        for a in ("ferghana", "tarim", "kashmir", "wusun", "khorasan", "mongolia")
    )
    count = len(events)
    usurpers.act(s, events)  # the same round's end again (after a raid's answer)
    assert len(events) == count


def test_4_9_the_court_never_checks():
    s = game()
    court = s["players"][KUSHAN]["court"]
    for a in owned(s, KUSHAN):
        if a != court:
            s["areas"][a]["owner"] = None
    assert owned(s, KUSHAN) == [court]
    assert overreach.restless(s, KUSHAN) is None


def test_4_9_scenarios_without_the_knob_have_none():
    s = engine.new_game("four_empires", ["rome", "parthia", "kushan", "han"], 1)
    assert engine.view(s, None)["world"]["overreach"] is None
    events: list[dict[str, Any]] = []
    usurpers.act(s, events)
    assert not [e for e in events if e["rule"] == "4.9"]
