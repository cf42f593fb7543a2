"""The random bot: uniform over the legal actions."""

from __future__ import annotations

import random
from typing import Any


def choose_random(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    return legal[rng.randrange(len(legal))]
