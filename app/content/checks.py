"""The vocabulary of the content checks (``validate``): the pack's documented
constants and minimums, the ``Report`` they fill, readers of records that report
instead of raising, and ``Geo``, the geography the later checks resolve against."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, TypeGuard

REQUIRED_FILES = (
    "areas",
    "seas",
    "links",
    "barriers",
    "languages",
    "religions",
    "advisors",
    "rulers",
    "notables",
    "burdens",
    "fate",
    "innovations",
    "buildings",
    "counters",
    "scenarios",
)

# The notables' ability vocabulary agreed in docs/engine-contract.md. The
# engine's own list (effects.NOTABLE_OPS) wins when it is there.
CONTRACT_NOTABLE_OPS = frozenset(
    {
        "rating_bonus",
        "free_petition",
        "ignore_sea_cost",
        "counter_plus",
        "tax_bonus",
        "popularity_per_turn",
        "influence_per_turn",
        "defense_bonus",
        "parley_votes",
        "rebellion_modifier",
        "cheaper_market",
        "extra_year",
        "burden_shield",
    }
)
# Ops whose ``amount`` is required.
AMOUNT_OPS = frozenset(
    {
        "counter_plus",
        "tax_bonus",
        "popularity_per_turn",
        "influence_per_turn",
        "defense_bonus",
        "parley_votes",
        "rebellion_modifier",
        "cheaper_market",
    }
)

MAIN_SCENARIO = "four_empires"
MAIN_POWERS = ("rome", "parthia", "kushan", "han", "xiongnu", "satavahana")
LINK_KINDS = frozenset({"land", "strait", "pass", "river"})
NAMED_LINK_KINDS = frozenset({"strait", "pass"})
BARRIER_KINDS = frozenset({"desert", "mountain", "plateau"})
FATE_KINDS = frozenset({"event", "holding"})
PATTERNS = frozenset({"hatch", "dots", "cross", "stripe", "plain", "grid", "rings", "waves"})
RELATION_STATUSES = frozenset({"war", "peace", "neutral"})

MINIMUMS = {
    "land_areas": 110,
    "sea_zones": 20,
    "rulers": 80,
    "rulers_main_scenario": 40,
    "notables": 30,
    "fate_cards": 40,
    "innovations": 15,
}

SLUG = re.compile(r"^[a-z0-9_]+$")
SEA_ID = re.compile(r"^[A-Z]{3}$")
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass
class Report:
    """What ``validate`` found: counts, errors (fatal) and warnings (advice)."""

    counts: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def error(self, text: str) -> None:
        self.errors.append(text)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.counts)
        out["ok"] = self.ok
        out["errors"] = list(self.errors)
        out["warnings"] = list(self.warnings)
        return out


# ------------------------------------------------------------------ helpers


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_num(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _label(record: Any, index: int) -> str:
    if isinstance(record, dict) and isinstance(record.get("id"), str):
        return repr(record["id"])
    return f"#{index}"


def _records(rep: Report, name: str, data: Any) -> list[tuple[str, dict[str, Any]]]:
    """The file's records as (label, record) pairs; non-dict entries are errors."""
    if not isinstance(data, list):
        rep.error(f"{name}.json: must be a list of records")
        return []
    out = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            rep.error(f"{name}.json: entry #{i} is not an object")
            continue
        out.append((_label(rec, i), rec))
    return out


def _unique_ids(
    rep: Report,
    name: str,
    records: list[tuple[str, dict[str, Any]]],
    pattern: re.Pattern[str] = SLUG,
) -> set[str]:
    seen: set[str] = set()
    for label, rec in records:
        rid = rec.get("id")
        if not isinstance(rid, str) or not pattern.match(rid):
            rep.error(f"{name}.json {label}: id must match {pattern.pattern}")
            continue
        if rid in seen:
            rep.error(f"{name}.json: id {rid!r} is used more than once")
        seen.add(rid)
    return seen


def _need_text(rep: Report, where: str, rec: dict[str, Any], *keys: str) -> None:
    for key in keys:
        if not _text(rec.get(key)):
            rep.error(f"{where}: {key!r} must be a non-empty string")


def _need_int(
    rep: Report,
    where: str,
    rec: dict[str, Any],
    key: str,
    lo: int | None = None,
    hi: int | None = None,
) -> bool:
    value = rec.get(key)
    if not _is_int(value):
        rep.error(f"{where}: {key!r} must be an integer")
        return False
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"{lo if lo is not None else '…'}..{hi if hi is not None else '…'}"
        rep.error(f"{where}: {key!r} is {value}, outside {span}")
        return False
    return True


def _id_list(
    rep: Report,
    where: str,
    rec: dict[str, Any],
    key: str,
    known: set[str],
    what: str,
    repeats: bool = False,
) -> list[str]:
    """A list of known ids, each once unless ``repeats`` (a deck may hold several
    cards of one burden, 5.1)."""
    value = rec.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        rep.error(f"{where}: {key!r} must be a list of {what} ids")
        return []
    for v in value:
        if v not in known:
            rep.error(f"{where}: {key!r} names unknown {what} {v!r}")
    if not repeats and len(set(value)) != len(value):
        rep.error(f"{where}: {key!r} lists an id twice")
    return value


@dataclass
class Geo:
    areas: set[str] = field(default_factory=set)
    seas: set[str] = field(default_factory=set)
    languages: set[str] = field(default_factory=set)
    religions: set[str] = field(default_factory=set)
