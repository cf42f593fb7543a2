"""Typed engine errors: every refusal carries a reason a person can read."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of everything the engine raises on bad input."""


class IllegalAction(EngineError):
    """An action the rules refuse. `reason` is shown to the player as is."""

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class UnknownScenario(EngineError):
    def __init__(self, scenario_id: str) -> None:
        super().__init__(f"There is no scenario called {scenario_id!r}.")
        self.scenario_id = scenario_id


class ContentMismatch(EngineError):
    """A saved game was made with another content pack."""


class BadSetup(EngineError):
    """new_game was asked for seats or options the scenario does not allow."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
