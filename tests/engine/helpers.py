"""Crafting states for rule tests: plain JSON, so a test sets exactly the
situation a rule speaks of."""

from __future__ import annotations

from typing import Any

from app import engine
from app.engine import rng

KUSHAN, HAN = 0, 1


def game(
    scenario: str = "teaching", seats: tuple[str, ...] = ("kushan", "han"), seed: int = 1
) -> dict[str, Any]:
    return engine.new_game(scenario, list(seats), seed)


def turn_of(s: dict[str, Any], seat: int, hand: str | None = None) -> dict[str, Any]:
    """Put the game in `seat`'s player turn (step start, or drawn with a common advisor)."""
    s["phase"] = "turn"
    s["diplo"] = None
    s["initiative"] = None
    s["interrupt"] = s["parley"] = s["request"] = None
    if s.get("grand"):  # no offer or verdict pending (20.14, 20.41), no parley due (20.44)
        s["grand"].update(offer=None, verdict=None, due=[])
    s["active"] = seat
    s["order"] = [seat] + [i for i in range(len(s["players"])) if i != seat]
    s["step"] = "start"
    p = s["players"][seat]
    p.update(
        years_left=5,
        tax_state="open",
        taxed=[],
        recruited=False,
        petitions=0,
        strikes=0,
        had_turn=False,
    )
    for i, q in enumerate(s["players"]):
        if i != seat:
            q.update(years_left=5, had_turn=True, defenses=0)
    if hand is not None:
        give(s, seat, hand)
    return s


def give(s: dict[str, Any], seat: int, hand: str, kind: str = "advisor") -> None:
    p = s["players"][seat]
    if p["deck"]["hand"] is not None:
        p["deck"]["discard"].append(p["deck"]["hand"])
    p["deck"]["hand"] = {"id": "k9999", "kind": kind, "ref": hand}
    s["step"] = "drawn"


def counters(s: dict[str, Any], *values: int) -> None:
    """Rig the result-counter pool so the next draws are exactly these values."""
    s["counters"]["pool"] = sorted(values)
    s["counters"]["out"] = []


def war(s: dict[str, Any], a: int = 0, b: int = 1) -> None:
    lo, hi = sorted((a, b))
    s["relations"]["pairs"][f"{lo}|{hi}"]["status"] = "war"


def dice(s: dict[str, Any], *faces: int, skip: int = 0) -> None:
    """Find an RNG state whose next d6 rolls (after `skip` raw draws, e.g. a
    one-counter pool) are exactly `faces`."""
    for k in range(1, 2_000_000):
        probe = {"rng": k}
        for _ in range(skip):
            rng.below(probe, 1)
        if all(rng.die(probe) == f for f in faces):
            s["rng"] = k
            return
    raise AssertionError("no rng state found")


def act(s: dict[str, Any], seat: int, **action: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return engine.apply(s, seat, action)


def endeavour(
    s: dict[str, Any],
    seat: int,
    kind: str,
    base: str,
    target: str,
    talents: int = 0,
    option: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    a: dict[str, Any] = {
        "type": "endeavour",
        "kind": kind,
        "base": base,
        "target": target,
        "talents": talents,
    }
    if option is not None:
        a["option"] = option
    return engine.apply(s, seat, a)


def rating_of(
    s: dict[str, Any],
    seat: int,
    kind: str,
    base: str,
    target: str,
    talents: int = 0,
    option: str | None = None,
) -> dict[str, Any]:
    a: dict[str, Any] = {
        "type": "endeavour",
        "kind": kind,
        "base": base,
        "target": target,
        "talents": talents,
    }
    if option is not None:
        a["option"] = option
    return engine.explain(s, seat, a)


def terms(explained: dict[str, Any]) -> dict[str, int]:
    return {t["rule"]: t["value"] for t in explained["terms"]}
