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
from pathlib import Path
from typing import Any

from app.content.checks import (
    AMOUNT_OPS,
    BARRIER_KINDS,
    CONTRACT_NOTABLE_OPS,
    FATE_KINDS,
    LINK_KINDS,
    MAIN_SCENARIO,
    MINIMUMS,
    NAMED_LINK_KINDS,
    REQUIRED_FILES,
    SEA_ID,
    SLUG,
    Geo,
    Report,
    _id_list,
    _is_int,
    _is_num,
    _need_int,
    _need_text,
    _records,
    _text,
    _unique_ids,
)
from app.content.scenario_checks import check_rulers, check_scenarios, check_world
from app.engine.content import DATA_DIR, load_content
from app.engine.core import STATURES

# re-exported: the checks' vocabulary, read by tests and tools from here
__all__ = ["MAIN_SCENARIO", "STATURES", "Report", "_id_list", "_shape_ids", "validate"]

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


def _check_geography(rep: Report, files: dict[str, Any]) -> Geo:
    g = Geo()
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


# ------------------------------------------------------------------ entry point


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
    rulers = check_rulers(rep, files.get("rulers"), g)
    burdens = files.get("burdens")
    burden_ids = {
        str(b.get("id"))
        for b in (burdens if isinstance(burdens, list) else [])
        if isinstance(b, dict)
    }
    check_scenarios(rep, files.get("scenarios"), g, rulers, notables, burden_ids)
    if "world" in files:
        check_world(rep, files["world"], g)

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
