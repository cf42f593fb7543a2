"""The bot levels a player can choose: the one source of their ids, names and descriptions.

``LEVELS`` is what the lobby offers. ``ALIASES`` keeps the ids of earlier
releases working ("heuristic" games are standard games); ``random`` stays a
level for tests and tournaments (a baseline), not offered in the lobby.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    id: str
    label: str
    description: str


LEVELS: tuple[Level, ...] = (
    Level(
        "novice",
        "Novice",
        "A gentle opponent: builds its empire sensibly but makes slips, never starts a war "
        "and always takes peace.",
    ),
    Level(
        "standard",
        "Standard",
        "Plays the whole game: expands, taxes, wages war on weak neighbours, forms coalitions "
        "and votes in its own interest.",
    ),
    Level(
        "strong",
        "Strong",
        "Thinks ahead: tries its options in many imagined futures (Monte Carlo search) and "
        "plays the best; takes up to a few seconds a move.",
    ),
)

# Earlier ids -> the level that plays them now.
ALIASES: dict[str, str] = {"heuristic": "standard"}

# Levels that are valid but not offered in the lobby: the random baseline, and
# "silent", the standard bot that never makes an offer or a counter (the ablation
# that measures what its offers are worth, docs/bots.md), and "strong_silent", the same
# ablation of the Strong bot.
HIDDEN: tuple[str, ...] = ("random", "silent", "strong_silent")

LOBBY_LEVELS: tuple[str, ...] = tuple(level.id for level in LEVELS)
ALL_LEVELS: tuple[str, ...] = LOBBY_LEVELS + HIDDEN + tuple(ALIASES)


def canonical(level: str) -> str:
    """The level an id plays (an alias resolved); unknown ids come back unchanged."""
    return ALIASES.get(level, level)


def label(level: str) -> str:
    """A player-facing name for any level id, alias or not."""
    wanted = canonical(level)
    for item in LEVELS:
        if item.id == wanted:
            return item.label
    return wanted.capitalize()


def describe(level: str) -> str:
    wanted = canonical(level)
    for item in LEVELS:
        if item.id == wanted:
            return item.description
    return ""


def parse_lineup(text: str) -> list[str]:
    """A line-up as the commands take it: a comma list of levels, ``LEVEL*n`` repeating
    one (``strong,standard*5`` is one Strong seat and five Standard ones). A count that
    is not a whole number raises ValueError."""
    out: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        level, _, times = part.partition("*")
        out += [level.strip()] * (int(times) if times else 1)
    return out
