"""The scenarios the property tests play, read from the content pack."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, settings

from app.engine.content import content


def scenarios() -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in content().get("scenarios", [])}


def seats_of(scenario_id: str) -> list[str]:
    """The scenario's powers, as many as it seats at most (in the pack's order)."""
    scenario = scenarios()[scenario_id]
    powers = [p["id"] for p in scenario.get("powers", [])]
    return powers[: scenario.get("max_players") or None]


def teaching() -> str:
    """The short teaching scenario (Kushan vs Han)."""
    for scenario_id, scenario in scenarios().items():
        if scenario.get("teaching"):
            return scenario_id
    raise LookupError("the content pack has no teaching scenario")


def game_settings(examples: int) -> settings:
    """Hypothesis settings for tests whose example is a whole game.

    No deadline (a game takes long), no shrinking (the example is a seed:
    shrinking it finds nothing simpler and costs minutes), no example database
    (the failing seed is in the message).
    """
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        phases=[Phase.explicit, Phase.generate],
    )
