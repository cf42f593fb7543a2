"""Checks that keep the content pack sound.

``validate(data_dir)`` reads the pack with the engine's own loader and returns a
``Report``: the counts the issue asks for and a list of errors, each a sentence
naming the file and the record at fault. Nothing here raises for bad data; a
broken pack is reported, not crashed on.

What is checked (docs/content-format.md):

* every file is present and of the documented shape and types;
* ids are unique slugs (sea zones: three upper-case letters);
* every reference resolves: ruler powers, scenario areas, courts, rulers, claims
  and ties; languages and religions; coasts and sea adjacency; burdens'
  endeavours; notables' ``rating_bonus`` endeavours;
* the minimum counts (110 land areas, 20 seas, 40 rulers in the main scenario,
  80 in all, 30 notables, 40 Fate cards, 15 innovations, the seven advisor types,
  two more eras beside the main scenario and a teaching scenario);
* sea adjacency is symmetric, links are listed once, and the whole map (land
  links, coasts and seas) is one connected graph;
* statures are integers 0-6;
* every effect ``op`` is one the engine interprets (``app.engine.effects.KNOWN_OPS``)
  and notables use only the notables' vocabulary;
* every land area and sea zone has a shape on the map
  (``app.content.geometry.map_shapes()``).
"""

from __future__ import annotations

import importlib
import json
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from app.engine.content import DATA_DIR, load_content

STATURES = (
    "military",
    "administration",
    "diplomacy",
    "architecture",
    "arts",
    "philosophy",
    "intrigue",
)

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


# ------------------------------------------------------------------ optional modules


def _known_ops(rep: Report) -> tuple[frozenset[str] | None, frozenset[str]]:
    """(KNOWN_OPS, notable ops) from the engine; a missing module is an error."""
    try:
        effects = importlib.import_module("app.engine.effects")
    except Exception as exc:  # noqa: BLE001 - any import failure is reported, not raised
        rep.error(f"app.engine.effects cannot be imported ({exc}); effect ops are unchecked")
        return None, CONTRACT_NOTABLE_OPS
    known = getattr(effects, "KNOWN_OPS", None)
    if not isinstance(known, frozenset | set):
        rep.error("app.engine.effects has no KNOWN_OPS set; effect ops are unchecked")
        return None, CONTRACT_NOTABLE_OPS
    notable = getattr(effects, "NOTABLE_OPS", None)
    return frozenset(known), frozenset(notable) if notable else CONTRACT_NOTABLE_OPS


def _shape_ids(shapes: Any) -> tuple[set[str], set[str]]:
    """Area and sea ids that have a shape, from whatever map_shapes() returns.

    Accepted forms: the pair ``(area ids, sea ids)`` that ``map_shapes()`` returns;
    ``{"areas": {...}, "seas": {...}}``; a mapping or collection
    keyed ``area-{id}`` / ``sea-{ID}`` (the SVG path ids); or one keyed by bare ids
    (sea ids are upper case, so they cannot be confused with areas).
    """
    areas: set[str] = set()
    seas: set[str] = set()
    if (
        isinstance(shapes, tuple)
        and len(shapes) == 2
        and all(isinstance(part, set | frozenset | list | dict) for part in shapes)
    ):
        # geometry.map_shapes() returns (area ids, sea ids).
        return {str(a) for a in shapes[0]}, {str(s) for s in shapes[1]}
    if isinstance(shapes, dict) and ("areas" in shapes or "seas" in shapes):
        areas.update(str(k) for k in shapes.get("areas") or ())
        seas.update(str(k) for k in shapes.get("seas") or ())
        return areas, seas
    for key in shapes or ():
        key = str(key)
        if key.startswith("area-"):
            areas.add(key[5:])
        elif key.startswith("sea-"):
            seas.add(key[4:])
        elif SEA_ID.match(key):
            seas.add(key)
        else:
            areas.add(key)
    return areas, seas


def _map_shapes(rep: Report) -> tuple[set[str], set[str]] | None:
    try:
        geometry = importlib.import_module("app.content.geometry")
        shapes = geometry.map_shapes()
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        rep.error(
            f"app.content.geometry.map_shapes() is not available ({exc}); map shapes are unchecked"
        )
        return None
    return _shape_ids(shapes)


# ------------------------------------------------------------------ loading


def _load(rep: Report, directory: Path) -> dict[str, Any]:
    """All files of the pack, through the engine's loader; bad JSON is reported per file."""
    try:
        files = dict(load_content(directory).files)
    except (ValueError, OSError):
        files = {}
        for path in sorted(directory.glob("*.json")):
            try:
                files[path.stem] = json.loads(path.read_bytes())
            except (ValueError, OSError) as exc:
                rep.error(f"{path.name}: not valid JSON ({exc})")
    for name in REQUIRED_FILES:
        if name not in files:
            rep.error(f"{name}.json is missing from the pack")
        elif files[name] is None:
            rep.error(f"{name}.json holds null instead of its data")
    return files


# ------------------------------------------------------------------ geography


@dataclass
class _Geo:
    areas: set[str] = field(default_factory=set)
    seas: set[str] = field(default_factory=set)
    languages: set[str] = field(default_factory=set)
    religions: set[str] = field(default_factory=set)


def _check_families(rep: Report, name: str, data: Any, inner: str) -> set[str]:
    ids: set[str] = set()
    if not isinstance(data, dict):
        if data is not None:
            rep.error(f"{name}.json: must be an object of families")
        return ids
    for fam, body in data.items():
        where = f"{name}.json family {fam!r}"
        if not SLUG.match(str(fam)):
            rep.error(f"{where}: family id must be a slug")
        if not isinstance(body, dict):
            rep.error(f"{where}: must be an object")
            continue
        _need_text(rep, where, body, "name")
        members = body.get(inner)
        if not isinstance(members, dict) or not members:
            rep.error(f"{where}: {inner!r} must be a non-empty object")
            continue
        for mid, info in members.items():
            mwhere = f"{where} {inner[:-1]} {mid!r}"
            if not SLUG.match(str(mid)):
                rep.error(f"{mwhere}: id must be a slug")
            if mid in ids:
                rep.error(f"{name}.json: {mid!r} appears in more than one family")
            ids.add(mid)
            if inner == "languages":
                if not _text(info):
                    rep.error(f"{mwhere}: the name must be a non-empty string")
            elif not isinstance(info, dict):
                rep.error(f"{mwhere}: must be {{name, proselytism, conviction}}")
            else:
                _need_text(rep, mwhere, info, "name")
                _need_int(rep, mwhere, info, "proselytism")
                _need_int(rep, mwhere, info, "conviction")
    return ids


def _check_geography(rep: Report, files: dict[str, Any]) -> _Geo:
    g = _Geo()
    g.languages = _check_families(rep, "languages", files.get("languages"), "languages")
    g.religions = _check_families(rep, "religions", files.get("religions"), "religions")

    seas = _records(rep, "seas", files.get("seas", []))
    g.seas = _unique_ids(rep, "seas", seas, SEA_ID)
    areas = _records(rep, "areas", files.get("areas", []))
    g.areas = _unique_ids(rep, "areas", areas)
    rep.counts["land_areas"] = len(g.areas)
    rep.counts["sea_zones"] = len(g.seas)

    sea_adj: dict[str, set[str]] = {s: set() for s in g.seas}
    for label, sea in seas:
        where = f"seas.json {label}"
        _need_text(rep, where, sea, "name")
        _check_latlon(rep, where, sea)
        adjacent = _id_list(rep, where, sea, "adjacent", g.seas, "sea")
        if sea.get("id") in adjacent:
            rep.error(f"{where}: a sea cannot be adjacent to itself")
        if sea.get("id") in sea_adj:
            sea_adj[sea["id"]].update(a for a in adjacent if a in g.seas)
    for s, listed in sorted(sea_adj.items()):
        for t in sorted(listed):
            if s not in sea_adj.get(t, set()):
                rep.error(f"seas.json: {s} lists {t} as adjacent but {t} does not list {s}")

    graph: dict[str, set[str]] = {f"area:{a}": set() for a in g.areas}
    graph.update({f"sea:{s}": {f"sea:{t}" for t in adj} for s, adj in sea_adj.items()})
    for label, area in areas:
        where = f"areas.json {label}"
        _need_text(rep, where, area, "name", "region", "terrain")
        _check_latlon(rep, where, area)
        _need_int(rep, where, area, "population", 1, 3)
        _need_int(rep, where, area, "social", -3, 3)
        if area.get("language") not in g.languages:
            rep.error(f"{where}: unknown language {area.get('language')!r}")
        if area.get("religion") not in g.religions:
            rep.error(f"{where}: unknown religion {area.get('religion')!r}")
        if "places" in area and not isinstance(area["places"], str):
            rep.error(f"{where}: 'places' must be a string")
        coasts = _id_list(rep, where, area, "coasts", g.seas, "sea")
        node = f"area:{area.get('id')}"
        if node in graph:
            for s in coasts:
                if s in g.seas:
                    graph[node].add(f"sea:{s}")
                    graph[f"sea:{s}"].add(node)

    pairs: set[frozenset[str]] = set()
    for i, link in enumerate(
        files.get("links", []) if isinstance(files.get("links"), list) else []
    ):
        where = f"links.json #{i}"
        if not isinstance(link, dict):
            rep.error(f"{where}: not an object")
            continue
        a, b = link.get("a"), link.get("b")
        where = f"links.json {a}-{b}"
        if a not in g.areas or b not in g.areas:
            rep.error(f"{where}: both ends must be land areas")
            continue
        if a == b:
            rep.error(f"{where}: an area cannot link to itself")
            continue
        kind = link.get("kind")
        if kind not in LINK_KINDS:
            rep.error(f"{where}: kind {kind!r} is not one of {sorted(LINK_KINDS)}")
        if kind in NAMED_LINK_KINDS and not _text(link.get("name")):
            rep.error(f"{where}: a {kind} must be named")
        if "name" in link and not isinstance(link["name"], str):
            rep.error(f"{where}: 'name' must be a string")
        pair = frozenset((a, b))
        if pair in pairs:
            rep.error(
                f"{where}: the pair is listed more than once (links are listed once per pair)"
            )
        pairs.add(pair)
        graph[f"area:{a}"].add(f"area:{b}")
        graph[f"area:{b}"].add(f"area:{a}")
    if not isinstance(files.get("links", []), list):
        rep.error("links.json: must be a list of {a, b, kind}")
    rep.counts["links"] = len(pairs)

    if graph:
        start = next(iter(sorted(graph)))
        seen = {start}
        queue = deque([start])
        while queue:
            for nxt in graph[queue.popleft()]:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        cut_off = sorted(set(graph) - seen)
        if cut_off:
            shown = ", ".join(n.split(":", 1)[1] for n in cut_off[:12])
            more = f" and {len(cut_off) - 12} more" if len(cut_off) > 12 else ""
            rep.error(f"map: not connected; cut off from {start.split(':', 1)[1]}: {shown}{more}")
    for s in sorted(g.seas):
        if not any(f"area:{a}" in graph[f"sea:{s}"] for a in g.areas):
            rep.warnings.append(f"seas.json {s}: no land area has it as a coast")

    barriers = _records(rep, "barriers", files.get("barriers", []))
    _unique_ids(rep, "barriers", barriers)
    for label, barrier in barriers:
        where = f"barriers.json {label}"
        _need_text(rep, where, barrier, "name")
        if barrier.get("kind") not in BARRIER_KINDS:
            rep.error(f"{where}: kind must be one of {sorted(BARRIER_KINDS)}")
        polygon = barrier.get("polygon")
        if polygon is not None and not (
            isinstance(polygon, list)
            and len(polygon) >= 3
            and all(
                isinstance(p, list) and len(p) == 2 and all(_is_num(c) for c in p) for p in polygon
            )
        ):
            rep.error(f"{where}: polygon must be a list of at least three [lon, lat] pairs")
    return g


def _check_latlon(rep: Report, where: str, rec: dict[str, Any]) -> None:
    lat, lon = rec.get("lat"), rec.get("lon")
    if not _is_num(lat) or not -90 <= lat <= 90:
        rep.error(f"{where}: 'lat' must be a number in -90..90")
    if not _is_num(lon) or not -180 <= lon <= 180:
        rep.error(f"{where}: 'lon' must be a number in -180..180")


# ------------------------------------------------------------------ cards


def _check_effect(rep: Report, where: str, effect: Any, known: frozenset[str] | None) -> None:
    """An effect is ``{op, ...}``; nested effects (in lists or dicts) are checked too."""
    if not isinstance(effect, dict) or not isinstance(effect.get("op"), str):
        rep.error(f"{where}: the effect must be an object with a string 'op'")
        return
    op = effect["op"]
    if known is not None and op not in known:
        rep.error(f"{where}: unknown effect op {op!r} (not in app.engine.effects.KNOWN_OPS)")
    if "amount" in effect and not _is_int(effect["amount"]):
        rep.error(f"{where}: 'amount' of {op!r} must be an integer")
    for key, value in effect.items():
        if key == "op":
            continue
        inner = value if isinstance(value, list) else [value]
        for item in inner:
            if isinstance(item, dict) and "op" in item:
                _check_effect(rep, f"{where} ({key})", item, known)


def _check_advisors(rep: Report, data: Any) -> dict[str, list[str]]:
    """The seven common advisor types; returns type -> endeavour kinds."""
    kinds: dict[str, list[str]] = {}
    if not isinstance(data, dict):
        if data is not None:
            rep.error("advisors.json: must be an object keyed by advisor type")
        return kinds
    if set(data) != set(STATURES):
        missing = sorted(set(STATURES) - set(data))
        extra = sorted(set(data) - set(STATURES))
        rep.error(
            f"advisors.json: must hold exactly the seven types (missing {missing}, unknown {extra})"
        )
    owner: dict[str, str] = {}
    for type_, body in data.items():
        where = f"advisors.json {type_!r}"
        if not isinstance(body, dict):
            rep.error(f"{where}: must be an object")
            continue
        _need_text(rep, where, body, "name", "text")
        if body.get("stature") != type_:
            rep.error(f"{where}: 'stature' must be {type_!r}")
        endeavours = body.get("endeavours")
        if (
            not isinstance(endeavours, list)
            or not endeavours
            or not all(isinstance(e, str) and SLUG.match(e) for e in endeavours)
        ):
            rep.error(f"{where}: 'endeavours' must be a non-empty list of slugs")
            continue
        for kind in endeavours:
            # "purge" is shared by philosophers and secret agents; others are one type's.
            if kind in owner and kind != "purge":
                rep.error(f"{where}: endeavour {kind!r} already belongs to {owner[kind]!r}")
            owner.setdefault(kind, type_)
        kinds[type_] = list(endeavours)
    rep.counts["advisor_types"] = len([t for t in kinds if t in STATURES])
    return kinds


def _check_cards(
    rep: Report,
    files: dict[str, Any],
    endeavours: dict[str, list[str]],
    known: frozenset[str] | None,
) -> None:
    all_kinds = {k for ks in endeavours.values() for k in ks}

    burdens = _records(rep, "burdens", files.get("burdens", []))
    _unique_ids(rep, "burdens", burdens)
    for label, burden in burdens:
        where = f"burdens.json {label}"
        _need_text(rep, where, burden, "name", "kind", "text")
        removed = burden.get("removed_by")
        if not isinstance(removed, list) or not removed:
            rep.error(f"{where}: 'removed_by' must be a non-empty list of endeavour kinds")
        elif all_kinds:
            for kind in removed:
                if kind not in all_kinds:
                    rep.error(f"{where}: 'removed_by' names unknown endeavour {kind!r}")
    rep.counts["burdens"] = len(burdens)
    if not burdens:
        rep.error("burdens.json: there must be at least one burden card")

    fate = _records(rep, "fate", files.get("fate", []))
    _unique_ids(rep, "fate", fate)
    copies = 0
    for label, card in fate:
        where = f"fate.json {label}"
        _need_text(rep, where, card, "name", "text")
        if card.get("kind") not in FATE_KINDS:
            rep.error(f"{where}: kind must be 'event' or 'holding'")
        if _need_int(rep, where, card, "copies", 1):
            copies += card["copies"]
        _check_effect(rep, where, card.get("effect"), known)
    rep.counts["fate_cards"] = len(fate)
    rep.counts["fate_copies"] = copies

    innovations = _records(rep, "innovations", files.get("innovations", []))
    _unique_ids(rep, "innovations", innovations)
    for label, card in innovations:
        where = f"innovations.json {label}"
        _need_text(rep, where, card, "name", "text")
        _need_int(rep, where, card, "cost", 0)
        _check_effect(rep, where, card.get("effect"), known)
    rep.counts["innovations"] = len(innovations)

    buildings = _records(rep, "buildings", files.get("buildings", []))
    _unique_ids(rep, "buildings", buildings)
    for label, card in buildings:
        where = f"buildings.json {label}"
        _need_text(rep, where, card, "name", "text")
        if card.get("advisor") not in STATURES:
            rep.error(f"{where}: 'advisor' must be one of the seven types")
        _need_int(rep, where, card, "cost", 0)
        _need_int(rep, where, card, "max_per_area", 1)
        _check_effect(rep, where, card.get("effect"), known)
    rep.counts["buildings"] = len(buildings)
    if not buildings:
        rep.error("buildings.json: there must be at least one building")

    counters = files.get("counters")
    if counters is not None and not isinstance(counters, dict):
        rep.error("counters.json: must be an object {values, refill}")
    elif counters is not None:
        values = counters.get("values") if isinstance(counters, dict) else None
        if not isinstance(values, dict) or not values:
            rep.error("counters.json: 'values' must be an object of counter value -> number")
        else:
            total = 0
            for value, number in values.items():
                if not re.match(r"^[+-]?\d+$", str(value)):
                    rep.error(f"counters.json: counter value {value!r} is not an integer")
                if not _is_int(number) or number < 0:
                    rep.error(
                        f"counters.json: the number of {value!r} counters must be an integer >= 0"
                    )
                else:
                    total += number
            if total <= 0:
                rep.error("counters.json: the pool is empty")
            rep.counts["result_counters"] = total
        if isinstance(counters, dict) and not _text(counters.get("refill")):
            rep.error("counters.json: 'refill' must be a non-empty string")


def _check_notables(
    rep: Report,
    data: Any,
    endeavours: dict[str, list[str]],
    known: frozenset[str] | None,
    notable_ops: frozenset[str],
) -> list[dict[str, Any]]:
    notables = _records(rep, "notables", data if data is not None else [])
    _unique_ids(rep, "notables", notables)
    for label, rec in notables:
        where = f"notables.json {label}"
        _need_text(rep, where, rec, "name", "note")
        type_ = rec.get("type")
        if type_ not in STATURES:
            rep.error(f"{where}: type {type_!r} is not one of the seven advisor types")
        _need_int(rep, where, rec, "bonus", 1, 2)
        _need_int(rep, where, rec, "cost", 2, 6)
        era = rec.get("era")
        if not (
            isinstance(era, list)
            and len(era) == 2
            and all(_is_int(y) for y in era)
            and era[0] <= era[1]
        ):
            rep.error(f"{where}: 'era' must be [start_year, end_year] with start <= end")
        ability = rec.get("ability")
        _check_effect(rep, where, ability, known)
        if not isinstance(ability, dict):
            continue
        op = ability.get("op")
        if op not in notable_ops:
            rep.error(f"{where}: ability op {op!r} is not one of the notables' ops")
        if op in AMOUNT_OPS and not _is_int(ability.get("amount")):
            rep.error(f"{where}: ability {op!r} needs an integer 'amount'")
        if op == "rating_bonus":
            if not _is_int(ability.get("amount")):
                rep.error(f"{where}: ability 'rating_bonus' needs an integer 'amount'")
            kind = ability.get("endeavour")
            own = endeavours.get(str(type_), [])
            if endeavours and kind not in own:
                rep.error(
                    f"{where}: rating_bonus endeavour {kind!r} is not one a {type_} advisor undertakes {own}"
                )
    rep.counts["notables"] = len(notables)
    return [rec for _, rec in notables]


# ------------------------------------------------------------------ rulers and scenarios


def _check_rulers(rep: Report, data: Any, g: _Geo) -> dict[str, dict[str, Any]]:
    rulers = _records(rep, "rulers", data if data is not None else [])
    _unique_ids(rep, "rulers", rulers)
    by_id: dict[str, dict[str, Any]] = {}
    for label, rec in rulers:
        where = f"rulers.json {label}"
        _need_text(rep, where, rec, "name", "power", "note")
        ok_start = _need_int(rep, where, rec, "reign_start")
        ok_end = _need_int(rep, where, rec, "reign_end")
        if ok_start and ok_end and rec["reign_start"] > rec["reign_end"]:
            rep.error(f"{where}: reign_start is after reign_end")
        statures = rec.get("statures")
        if not isinstance(statures, dict):
            rep.error(f"{where}: 'statures' must be an object of the seven statures")
        else:
            if set(statures) != set(STATURES):
                rep.error(f"{where}: 'statures' must hold exactly {list(STATURES)}")
            for name in STATURES:
                value = statures.get(name)
                if name in statures and (not _is_int(value) or not 0 <= value <= 6):
                    rep.error(f"{where}: stature {name!r} is {value!r}; statures are integers 0-6")
        if g.languages and rec.get("language") not in g.languages:
            rep.error(f"{where}: unknown language {rec.get('language')!r}")
        if g.religions and rec.get("religion") not in g.religions:
            rep.error(f"{where}: unknown religion {rec.get('religion')!r}")
        if "born" in rec:
            born = rec["born"]
            if not _is_int(born):
                rep.error(f"{where}: 'born' must be a year (integer)")
            elif ok_start and not 0 <= rec["reign_start"] - born <= 90:
                rep.error(f"{where}: born {born} does not fit a reign from {rec['reign_start']}")
        if "age_at_accession" in rec:
            _need_int(rep, where, rec, "age_at_accession", 0, 90)
        if "heir_note" in rec and not _text(rec["heir_note"]):
            rep.error(f"{where}: 'heir_note' must be a non-empty string when present")
        if isinstance(rec.get("id"), str):
            by_id[rec["id"]] = rec
    rep.counts["rulers"] = len(by_id)
    return by_id


def _check_scenarios(
    rep: Report,
    data: Any,
    g: _Geo,
    rulers: dict[str, dict[str, Any]],
    notables: list[dict[str, Any]],
    burden_ids: set[str] | None = None,
) -> None:
    burden_ids = burden_ids or set()
    scenarios = _records(rep, "scenarios", data if data is not None else [])
    ids = _unique_ids(rep, "scenarios", scenarios)
    notable_ids = {str(n.get("id")) for n in notables}
    rep.counts["scenarios"] = len(ids)
    powers_seen: set[str] = set()
    eras: set[str] = set()
    teaching = 0
    for label, sc in scenarios:
        where = f"scenarios.json {label}"
        _need_text(rep, where, sc, "name", "era", "description")
        if "notes" in sc and not isinstance(sc["notes"], str):
            rep.error(f"{where}: 'notes' must be a string")
        ints_ok = all(
            _need_int(rep, where, sc, key, lo)
            for key, lo in (
                ("start_year", None),
                ("end_year", None),
                ("turns", 1),
                ("years_per_turn", 1),
            )
        )
        if ints_ok:
            span = sc["end_year"] - sc["start_year"]
            if span <= 0:
                rep.error(f"{where}: end_year must be after start_year")
            elif abs(span - sc["turns"] * sc["years_per_turn"]) > sc["years_per_turn"]:
                rep.error(
                    f"{where}: {sc['turns']} turns of {sc['years_per_turn']} years do not span {sc['start_year']}..{sc['end_year']}"
                )
        players_ok = _need_int(rep, where, sc, "min_players", 1, 6) & _need_int(
            rep, where, sc, "max_players", 1, 6
        )
        if not isinstance(sc.get("teaching"), bool):
            rep.error(f"{where}: 'teaching' must be true or false")
        elif sc["teaching"]:
            teaching += 1
        elif sc.get("id") != MAIN_SCENARIO and _text(sc.get("era")):
            eras.add(sc["era"])

        if "default_turns" in sc:
            dt = sc["default_turns"]
            turns = sc.get("turns")
            span = turns if isinstance(turns, int) else 1
            if type(dt) is not int or not 1 <= dt <= span:
                rep.error(f"{where}: default_turns must be a whole number from 1 to turns")
        powers = _records(rep, f"scenarios.json {label} powers", sc.get("powers", []))
        power_ids = _unique_ids(rep, f"scenarios {label} powers", powers)
        powers_seen |= power_ids
        held: dict[str, str] = {}
        colours: dict[str, str] = {}
        for plabel, power in powers:
            pwhere = f"{where} power {plabel}"
            _need_text(rep, pwhere, power, "name")
            colour = power.get("colour")
            if not isinstance(colour, str) or not COLOUR.match(colour):
                rep.error(f"{pwhere}: colour must be '#rrggbb'")
            elif colour.lower() in colours:
                rep.error(f"{pwhere}: colour {colour} is already {colours[colour.lower()]!r}'s")
            else:
                colours[colour.lower()] = str(power.get("id"))
            if power.get("pattern") not in PATTERNS:
                rep.error(f"{pwhere}: pattern must be one of {sorted(PATTERNS)}")
            areas = _id_list(rep, pwhere, power, "areas", g.areas, "area")
            if not areas:
                rep.error(f"{pwhere}: holds no areas")
            for area in areas:
                if area in held:
                    rep.error(f"{pwhere}: area {area!r} is also held by {held[area]!r}")
                held[area] = str(power.get("id"))
            if power.get("court") not in areas:
                rep.error(f"{pwhere}: court {power.get('court')!r} must be one of its own areas")
            _id_list(rep, pwhere, power, "claims", g.areas, "area")
            if "burdens" in power:
                _id_list(rep, pwhere, power, "burdens", burden_ids, "burden", repeats=True)
            if "notables" in power:
                _id_list(rep, pwhere, power, "notables", notable_ids, "notable")
            _id_list(rep, pwhere, power, "ties", g.areas, "area")
            for key in ("talents", "influence"):
                _need_int(rep, pwhere, power, key, 0)
            _need_int(rep, pwhere, power, "popularity")
            level = power.get("victory_level", 0)
            if type(level) is not int or not -100 <= level <= 100:
                rep.error(f"{pwhere}: victory_level must be a whole number from -100 to 100")
            line = _id_list(rep, pwhere, power, "rulers", set(rulers), "ruler")
            if not line:
                rep.error(f"{pwhere}: needs at least one ruler")
            previous = None
            for rid in line:
                ruler = rulers.get(rid)
                if ruler is None:
                    continue
                if ruler.get("power") != power.get("id"):
                    rep.error(f"{pwhere}: ruler {rid!r} belongs to power {ruler.get('power')!r}")
                start = ruler.get("reign_start")
                if previous is not None and _is_int(start) and start < previous:
                    rep.error(
                        f"{pwhere}: ruler {rid!r} is out of dynasty order (reigns begin earlier than the one before)"
                    )
                if _is_int(start):
                    previous = start
            first = rulers.get(line[0]) if line else None
            if (
                first is not None
                and ints_ok
                and _is_int(first.get("reign_end"))
                and first["reign_end"] < sc["start_year"]
            ):
                rep.error(
                    f"{pwhere}: the starting emperor {line[0]!r} reigned only until {first['reign_end']}"
                )

        independents = sc.get("independents", {})
        if not isinstance(independents, dict):
            rep.error(f"{where}: 'independents' must be an object keyed by area id")
        else:
            for area, info in independents.items():
                if area not in g.areas:
                    rep.error(f"{where}: independents names unknown area {area!r}")
                elif area in held:
                    rep.error(f"{where}: independent area {area!r} is held by {held[area]!r}")
                if not isinstance(info, dict):
                    rep.error(f"{where}: independents {area!r} must be an object")
                elif "social" in info and (
                    not _is_int(info["social"]) or not -3 <= info["social"] <= 3
                ):
                    rep.error(f"{where}: independents {area!r} social must be -3..3")

        relations = sc.get("relations", {})
        if not isinstance(relations, dict):
            rep.error(f"{where}: 'relations' must map 'power|power' to war, peace or neutral")
        else:
            for pair, status in relations.items():
                ends = str(pair).split("|")
                if len(ends) != 2 or ends[0] == ends[1] or not all(e in power_ids for e in ends):
                    rep.error(f"{where}: relations key {pair!r} must be two of its powers, 'a|b'")
                if status not in RELATION_STATUSES:
                    rep.error(
                        f"{where}: relation {pair!r} is {status!r}, not one of {sorted(RELATION_STATUSES)}"
                    )

        overrides = sc.get("area_overrides", {})
        if not isinstance(overrides, dict):
            rep.error(f"{where}: 'area_overrides' must be an object keyed by area id")
        else:
            for area, info in overrides.items():
                owhere = f"{where} area_overrides {area!r}"
                if area not in g.areas:
                    rep.error(f"{owhere}: unknown area")
                if not isinstance(info, dict):
                    rep.error(f"{owhere}: must be an object of language, religion, social")
                    continue
                unknown = sorted(set(info) - {"language", "religion", "social"})
                if unknown:
                    rep.error(f"{owhere}: unknown keys {unknown}")
                if "language" in info and info["language"] not in g.languages:
                    rep.error(f"{owhere}: unknown language {info['language']!r}")
                if "religion" in info and info["religion"] not in g.religions:
                    rep.error(f"{owhere}: unknown religion {info['religion']!r}")
                if "social" in info:
                    _need_int(rep, owhere, info, "social", -3, 3)

        if "overreach" in sc:  # 4.9
            over = sc["overreach"]
            owhere = f"{where}.overreach"
            if not isinstance(over, dict):
                rep.error(f"{owhere}: must be an object {{from_lead, per, checks}}")
            else:
                unknown = sorted(set(over) - {"from_lead", "per", "checks"})
                if unknown:
                    rep.error(f"{owhere}: unknown keys {unknown}")
                _need_int(rep, owhere, over, "from_lead", 1, 100)
                _need_int(rep, owhere, over, "per", 1, 100)
                _need_int(rep, owhere, over, "checks", 1, 5)

        seat_sets = sc.get("seat_sets")
        if not isinstance(seat_sets, dict):
            rep.error(f"{where}: 'seat_sets' must map each player count to the powers seated")
        elif players_ok:
            lo, hi = sc["min_players"], sc["max_players"]
            if lo > hi:
                rep.error(f"{where}: min_players is above max_players")
            expected = {str(n) for n in range(lo, hi + 1)}
            if set(seat_sets) != expected:
                rep.error(
                    f"{where}: seat_sets must have exactly the keys {sorted(expected, key=int)}"
                )
            for count, seated in seat_sets.items():
                if not isinstance(seated, list) or not all(isinstance(p, str) for p in seated):
                    rep.error(f"{where}: seat_sets[{count!r}] must be a list of power ids")
                    continue
                if str(len(seated)) != count or len(set(seated)) != len(seated):
                    rep.error(f"{where}: seat_sets[{count!r}] must list {count} different powers")
                for p in seated:
                    if p not in power_ids:
                        rep.error(f"{where}: seat_sets[{count!r}] names unknown power {p!r}")

        if ints_ok and notables:
            in_era = [
                n
                for n in notables
                if isinstance(n.get("era"), list)
                and len(n["era"]) == 2
                and n["era"][0] <= sc["end_year"]
                and n["era"][1] >= sc["start_year"]
            ]
            rep.counts[f"notables_{sc.get('id')}"] = len(in_era)
            if len(in_era) < 8:
                rep.warnings.append(
                    f"{where}: only {len(in_era)} notables have an era inside the scenario"
                )

        listed_here: set[str] = set()
        for _, power in powers:
            line_ids = power.get("rulers")
            if isinstance(line_ids, list):
                listed_here.update(r for r in line_ids if isinstance(r, str) and r in rulers)
        if isinstance(sc.get("id"), str) and sc.get("id") != MAIN_SCENARIO:
            rep.counts[f"rulers_{sc['id']}"] = len(listed_here)

        if sc.get("id") == MAIN_SCENARIO:
            missing = [p for p in MAIN_POWERS if p not in power_ids]
            if missing:
                rep.error(f"{where}: the main scenario lacks the powers {missing}")
            rep.counts["rulers_main_scenario"] = len(listed_here)

    if MAIN_SCENARIO not in ids:
        rep.error(f"scenarios.json: the main scenario {MAIN_SCENARIO!r} is missing")
        rep.counts.setdefault("rulers_main_scenario", 0)
    if teaching < 1:
        rep.error("scenarios.json: there is no teaching scenario")
    if len(eras) < 2:
        rep.error(
            f"scenarios.json: needs at least two more eras beside the main scenario (found {sorted(eras)})"
        )
    rep.counts["eras"] = len(eras) + (1 if MAIN_SCENARIO in ids else 0)
    if data is None:
        return  # the missing file is already reported; do not blame every ruler for it
    orphans: dict[str, list[str]] = {}
    for rid, ruler in sorted(rulers.items()):
        if ruler.get("power") not in powers_seen:
            orphans.setdefault(str(ruler.get("power")), []).append(rid)
    for orphan, rids in sorted(orphans.items()):
        rep.error(f"rulers.json: power {orphan!r} ({', '.join(rids)}) is in no scenario")


# ------------------------------------------------------------------ entry point


# The knobs of world.json (rules 17.5, 19.34, 24): section -> key -> kind.
WORLD_KNOBS: dict[str, dict[str, str]] = {
    "usurpers": {
        "margin": "int",
        "rating": "range",
        "stir_first": "int",
        "agitation": "int",
        "expand_at": "int",
        "max_areas": "int",
        "buy_off": "object",
    },
    "nomads": {"raid": "object", "tribute": "object", "hordes": "list"},
    "heirless": {"unrest_areas": "int"},
}
WORLD_INNER: dict[str, tuple[str, ...]] = {
    "buy_off": ("per_rating", "per_population"),
    "raid": ("sack_at", "raid_at", "growth", "setback", "victory_popularity"),
    "tribute": ("per_strength", "min"),
}


def _check_world(rep: Report, data: Any, g: _Geo) -> None:
    """world.json: the usurpers', hordes' and heirless deaths' knobs (optional file;
    when present, every section and knob is required)."""
    if not isinstance(data, dict):
        rep.error("world.json: must be an object {usurpers, nomads, heirless}")
        return
    for section, keys in WORLD_KNOBS.items():
        sec = data.get(section)
        if not isinstance(sec, dict):
            rep.error(f"world.json: {section!r} must be an object")
            continue
        for key, kind in keys.items():
            value = sec.get(key)
            where = f"world.json {section}.{key}"
            if kind == "int" and not _is_int(value):
                rep.error(f"{where} must be an integer")
            elif kind == "range" and not (
                isinstance(value, list)
                and len(value) == 2
                and all(_is_int(v) for v in value)
                and value[0] <= value[1]
            ):
                rep.error(f"{where} must be [min, max] integers")
            elif kind == "object":
                if not isinstance(value, dict):
                    rep.error(f"{where} must be an object")
                    continue
                for inner in WORLD_INNER[key]:
                    if not _is_num(value.get(inner)):
                        rep.error(f"{where}.{inner} must be a number")
            elif kind == "list":
                if not isinstance(value, list):
                    rep.error(f"{where} must be a list of hordes")
                    continue
                _check_hordes(rep, value, g)
    for key in data:
        if key not in WORLD_KNOBS and key != "note":
            rep.error(f"world.json: unknown section {key!r}")


def _check_hordes(rep: Report, hordes: list[Any], g: _Geo) -> None:
    seen: set[str] = set()
    for i, h in enumerate(hordes):
        where = f"world.json horde #{i}"
        if not isinstance(h, dict):
            rep.error(f"{where} is not an object")
            continue
        hid = h.get("id")
        if not isinstance(hid, str) or not SLUG.match(hid):
            rep.error(f"{where}: id must be a slug")
        elif hid in seen:
            rep.error(f"{where}: id {hid!r} is used more than once")
        else:
            seen.add(hid)
        home = h.get("homeland")
        if not isinstance(home, list) or not home:
            rep.error(f"{where}: homeland must be a non-empty list of areas")
        else:
            for a in home:
                if a not in g.areas:
                    rep.error(f"{where}: homeland area {a!r} is not on the map")
        names = h.get("names")
        if (
            not isinstance(names, list)
            or not names
            or not all(
                isinstance(n, list) and len(n) == 2 and _is_int(n[0]) and _text(n[1]) for n in names
            )
        ):
            rep.error(f"{where}: names must be a list of [from_year, name]")
        raw = [h.get(k) for k in ("min_strength", "strength", "max_strength")]
        nums = [n for n in raw if _is_int(n)]
        if len(nums) != 3:
            rep.error(f"{where}: min_strength, strength and max_strength must be integers")
        elif not nums[0] <= nums[1] <= nums[2]:
            rep.error(f"{where}: min_strength <= strength <= max_strength")


def validate(data_dir: Path | None = None, *, check_map: bool = True) -> Report:
    """Check the pack in ``data_dir`` (default: the installed pack).

    ``check_map=False`` skips the map-shape check (parsing the SVG), for callers
    that validate many variants of one pack against the same map.
    """
    rep = Report()
    directory = Path(data_dir) if data_dir is not None else DATA_DIR
    if not directory.is_dir():
        rep.error(f"{directory} is not a directory")
        return rep
    files = _load(rep, directory)
    known, notable_ops = _known_ops(rep)
    g = _check_geography(rep, files)
    endeavours = _check_advisors(rep, files.get("advisors"))
    _check_cards(rep, files, endeavours, known)
    notables = _check_notables(rep, files.get("notables"), endeavours, known, notable_ops)
    rulers = _check_rulers(rep, files.get("rulers"), g)
    burdens = files.get("burdens")
    burden_ids = {
        str(b.get("id"))
        for b in (burdens if isinstance(burdens, list) else [])
        if isinstance(b, dict)
    }
    _check_scenarios(rep, files.get("scenarios"), g, rulers, notables, burden_ids)
    if "world" in files:
        _check_world(rep, files["world"], g)

    shapes = _map_shapes(rep) if check_map else None
    if shapes is not None:
        shaped_areas, shaped_seas = shapes
        for area in sorted(g.areas - shaped_areas):
            rep.error(f"map: land area {area!r} has no shape")
        for sea in sorted(g.seas - shaped_seas):
            rep.error(f"map: sea zone {sea!r} has no shape")

    for key, minimum in MINIMUMS.items():
        have = rep.counts.get(key, 0)
        rep.counts[key] = have
        if have < minimum:
            rep.error(f"counts: {key} is {have}, at least {minimum} are required")
    if rep.counts.get("advisor_types", 0) != len(STATURES):
        rep.error("counts: advisors.json must define the seven advisor types")
    return rep
