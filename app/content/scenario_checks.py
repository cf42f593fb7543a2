"""Content checks of rulers, scenarios and ``world.json`` (docs/content-format.md):
every ruler's power and statures, every scenario's powers, areas, courts, rulers,
claims, ties and relations, and the world's knobs and hordes."""

from __future__ import annotations

from typing import Any

from app.content.checks import (
    COLOUR,
    MAIN_POWERS,
    MAIN_SCENARIO,
    PATTERNS,
    RELATION_STATUSES,
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
from app.engine.core import STATURES


def check_rulers(rep: Report, data: Any, g: Geo) -> dict[str, dict[str, Any]]:
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


def check_scenarios(
    rep: Report,
    data: Any,
    g: Geo,
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
            if (
                type(level) not in (int, float)
                or not -100 <= level <= 100
                or not float(level * 2).is_integer()
            ):
                rep.error(
                    f"{pwhere}: victory_level must be a whole or half number from -100 to 100"
                )
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


def check_world(rep: Report, data: Any, g: Geo) -> None:
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


def _check_hordes(rep: Report, hordes: list[Any], g: Geo) -> None:
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
