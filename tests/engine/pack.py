"""A tiny synthetic content pack, so engine tests do not depend on the full map."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "app" / "content" / "data"
MINE = ("fate", "innovations", "burdens", "buildings", "counters")

S = ("military", "administration", "diplomacy", "architecture", "arts", "philosophy", "intrigue")


def st(*vals: int) -> dict[str, int]:
    return dict(zip(S, vals, strict=True))


def area(
    id_: str,
    pop: int,
    social: int,
    lang: str,
    rel: str,
    terrain: str = "plain",
    coasts: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "id": id_,
        "name": id_.replace("_", " ").title(),
        "region": "test",
        "lat": 0,
        "lon": 0,
        "population": pop,
        "social": social,
        "language": lang,
        "religion": rel,
        "terrain": terrain,
        "coasts": coasts or [],
        "places": "",
    }


def files() -> dict[str, Any]:
    areas = [
        area("guanzhong", 3, 2, "chinese", "confucian"),
        area("henan", 2, 2, "chinese", "confucian", coasts=["EAS"]),
        area("hexi", 1, 0, "chinese", "confucian"),
        area("bactria", 2, 2, "bactrian", "buddhist"),
        area("gandhara", 3, 2, "gandhari", "buddhist", coasts=["IND"]),
        area("sogdia", 1, 1, "sogdian", "mazdean"),
        area("tarim", 1, 0, "tocharian", "buddhist", "desert"),
        area("ferghana", 1, 0, "sogdian", "mazdean"),
        area("wusun", 1, -1, "wusun", "tengri", "steppe"),
        area("mongolia", 2, -1, "xiongnu", "tengri", "steppe"),
        area("kashmir", 2, 1, "gandhari", "vedic"),
        area("latium", 3, 3, "latin", "roman", coasts=["TYR"]),
        area("syria", 2, 2, "aramaic", "semitic", coasts=["LEV"]),
        area("mesopotamia", 2, 2, "aramaic", "mazdean"),
        area("media", 2, 1, "persian", "mazdean"),
        area("khorasan", 1, 1, "parthian", "mazdean"),
        area("sindh", 2, 0, "gandhari", "vedic", coasts=["IND"]),
    ]
    seas = [
        {"id": "EAS", "name": "East Sea", "lat": 0, "lon": 0, "adjacent": ["IND"]},
        {"id": "IND", "name": "Indian Ocean", "lat": 0, "lon": 0, "adjacent": ["EAS", "LEV"]},
        {"id": "LEV", "name": "Levant Sea", "lat": 0, "lon": 0, "adjacent": ["IND", "TYR"]},
        {"id": "TYR", "name": "Tyrrhenian", "lat": 0, "lon": 0, "adjacent": ["LEV"]},
    ]
    pairs = [
        ("guanzhong", "henan"),
        ("guanzhong", "hexi"),
        ("hexi", "tarim"),
        ("tarim", "ferghana"),
        ("ferghana", "sogdia"),
        ("sogdia", "bactria"),
        ("bactria", "gandhara"),
        ("gandhara", "kashmir"),
        ("tarim", "wusun"),
        ("wusun", "mongolia"),
        ("mongolia", "hexi"),
        ("kashmir", "tarim"),
        ("latium", "syria"),
        ("syria", "mesopotamia"),
        ("mesopotamia", "media"),
        ("media", "khorasan"),
        ("khorasan", "bactria"),
        ("gandhara", "sindh"),
    ]
    links = [{"a": a, "b": b, "kind": "land"} for a, b in pairs]
    languages = {
        "sinitic": {"name": "Sinitic", "languages": {"chinese": "Chinese"}},
        "iranian": {
            "name": "Iranian",
            "languages": {
                "bactrian": "Bactrian",
                "sogdian": "Sogdian",
                "persian": "Persian",
                "parthian": "Parthian",
            },
        },
        "indic": {"name": "Indic", "languages": {"gandhari": "Gandhari"}},
        "tocharian": {"name": "Tocharian", "languages": {"tocharian": "Tocharian"}},
        "steppe": {"name": "Steppe", "languages": {"wusun": "Wusun", "xiongnu": "Xiongnu"}},
        "italic": {"name": "Italic", "languages": {"latin": "Latin"}},
        "semitic": {"name": "Semitic", "languages": {"aramaic": "Aramaic"}},
    }
    religions = {
        "chinese": {
            "name": "Chinese",
            "religions": {"confucian": {"name": "Confucian", "proselytism": 1, "conviction": 3}},
        },
        "indic": {
            "name": "Indic",
            "religions": {
                "buddhist": {"name": "Buddhism", "proselytism": 3, "conviction": 2},
                "vedic": {"name": "Vedic", "proselytism": 1, "conviction": 4},
            },
        },
        "iranian": {
            "name": "Iranian",
            "religions": {"mazdean": {"name": "Mazdean", "proselytism": 1, "conviction": 3}},
        },
        "steppe": {
            "name": "Steppe",
            "religions": {"tengri": {"name": "Tengri", "proselytism": 0, "conviction": 1}},
        },
        "hellenic": {
            "name": "Hellenic-Roman",
            "religions": {"roman": {"name": "Roman", "proselytism": 1, "conviction": 2}},
        },
        "semitic": {
            "name": "Semitic",
            "religions": {"semitic": {"name": "Syrian cults", "proselytism": 1, "conviction": 2}},
        },
    }
    advisors = {s: {"name": s.title(), "stature": s, "endeavours": [], "text": ""} for s in S}
    rulers = [
        {
            "id": "guangwu",
            "name": "Guangwu",
            "power": "han",
            "reign_start": 25,
            "reign_end": 57,
            "statures": st(4, 4, 3, 2, 2, 3, 2),
            "note": "",
            "language": "chinese",
            "religion": "confucian",
            "born": 10,
        },
        {
            "id": "ming",
            "name": "Ming",
            "power": "han",
            "reign_start": 57,
            "reign_end": 75,
            "statures": st(2, 4, 3, 2, 3, 4, 2),
            "note": "",
            "language": "chinese",
            "religion": "confucian",
        },
        {
            "id": "zhang",
            "name": "Zhang",
            "power": "han",
            "reign_start": 75,
            "reign_end": 88,
            "statures": st(2, 3, 3, 2, 3, 3, 2),
            "note": "",
            "language": "chinese",
            "religion": "confucian",
        },
        {
            "id": "kujula",
            "name": "Kujula Kadphises",
            "power": "kushan",
            "reign_start": 30,
            "reign_end": 80,
            "statures": st(5, 2, 3, 1, 2, 2, 3),
            "note": "",
            "language": "bactrian",
            "religion": "buddhist",
            "born": 10,
        },
        {
            "id": "vima_takto",
            "name": "Vima Takto",
            "power": "kushan",
            "reign_start": 80,
            "reign_end": 95,
            "statures": st(4, 3, 2, 2, 2, 2, 3),
            "note": "",
            "language": "bactrian",
            "religion": "buddhist",
        },
        {
            "id": "vespasian",
            "name": "Vespasian",
            "power": "rome",
            "reign_start": 69,
            "reign_end": 79,
            "statures": st(5, 5, 3, 4, 2, 2, 3),
            "note": "",
            "language": "latin",
            "religion": "roman",
            "born": 9,
        },
        {
            "id": "titus",
            "name": "Titus",
            "power": "rome",
            "reign_start": 79,
            "reign_end": 81,
            "statures": st(4, 4, 3, 3, 3, 2, 2),
            "note": "",
            "language": "latin",
            "religion": "roman",
        },
        {
            "id": "vologases",
            "name": "Vologases I",
            "power": "parthia",
            "reign_start": 51,
            "reign_end": 78,
            "statures": st(4, 3, 4, 2, 2, 2, 3),
            "note": "",
            "language": "parthian",
            "religion": "mazdean",
        },
    ]
    notables = [
        {
            "id": "ban_chao",
            "name": "Ban Chao",
            "type": "military",
            "bonus": 2,
            "ability": {"op": "rating_bonus", "endeavour": "conquest", "amount": 1},
            "cost": 3,
            "era": [50, 110],
            "note": "",
        },
        {
            "id": "zhang_qian",
            "name": "Zhang Qian",
            "type": "diplomacy",
            "bonus": 2,
            "ability": {"op": "ignore_sea_cost"},
            "cost": 2,
            "era": [-150, 200],
            "note": "",
        },
        {
            "id": "agrippa",
            "name": "Agrippa",
            "type": "military",
            "bonus": 2,
            "ability": {"op": "defense_bonus", "amount": 1},
            "cost": 3,
            "era": [-50, 200],
            "note": "",
        },
        {
            "id": "vitruvius",
            "name": "Vitruvius",
            "type": "architecture",
            "bonus": 2,
            "ability": {"op": "counter_plus", "amount": 1},
            "cost": 2,
            "era": [-50, 200],
            "note": "",
        },
        {
            "id": "nagarjuna",
            "name": "Nagarjuna",
            "type": "philosophy",
            "bonus": 2,
            "ability": {"op": "free_petition"},
            "cost": 2,
            "era": [0, 250],
            "note": "",
        },
        {
            "id": "maecenas",
            "name": "Maecenas",
            "type": "arts",
            "bonus": 1,
            "ability": {"op": "popularity_per_turn", "amount": 1},
            "cost": 3,
            "era": [-50, 200],
            "note": "",
        },
        {
            "id": "sejanus",
            "name": "Sejanus",
            "type": "intrigue",
            "bonus": 2,
            "ability": {"op": "burden_shield"},
            "cost": 2,
            "era": [-50, 200],
            "note": "",
        },
        {
            "id": "cai_lun",
            "name": "Cai Lun",
            "type": "philosophy",
            "bonus": 1,
            "ability": {"op": "influence_per_turn", "amount": 1},
            "cost": 2,
            "era": [50, 200],
            "note": "",
        },
        {
            "id": "dou_xian",
            "name": "Dou Xian",
            "type": "administration",
            "bonus": 1,
            "ability": {"op": "tax_bonus", "amount": 1},
            "cost": 2,
            "era": [50, 200],
            "note": "",
        },
        {
            "id": "wang_chong",
            "name": "Wang Chong",
            "type": "philosophy",
            "bonus": 1,
            "ability": {"op": "rebellion_modifier", "amount": -1},
            "cost": 2,
            "era": [0, 200],
            "note": "",
        },
        {
            "id": "ashvaghosha",
            "name": "Ashvaghosha",
            "type": "arts",
            "bonus": 1,
            "ability": {"op": "parley_votes", "amount": 2},
            "cost": 1,
            "era": [0, 200],
            "note": "",
        },
        {
            "id": "kanishka_banker",
            "name": "A Gandharan Banker",
            "type": "administration",
            "bonus": 0,
            "ability": {"op": "cheaper_market", "amount": 1},
            "cost": 1,
            "era": [0, 200],
            "note": "",
        },
        {
            "id": "zhang_heng",
            "name": "Zhang Heng",
            "type": "philosophy",
            "bonus": 2,
            "ability": {"op": "extra_year"},
            "cost": 4,
            "era": [50, 200],
            "note": "",
        },
    ]

    def pw(
        id_: str, court: str, areas_: list[str], rulers_: list[str], **kw: Any
    ) -> dict[str, Any]:
        d = {
            "id": id_,
            "name": id_.title(),
            "colour": "#888",
            "pattern": "solid",
            "court": court,
            "areas": areas_,
            "rulers": rulers_,
            "talents": 8,
            "influence": 3,
            "popularity": 5,
            "claims": [],
            "ties": [],
        }
        d.update(kw)
        return d

    han = pw(
        "han",
        "guanzhong",
        ["guanzhong", "henan", "hexi"],
        ["guangwu", "ming", "zhang"],
        claims=["guanzhong", "henan"],
    )
    kushan = pw(
        "kushan",
        "bactria",
        ["bactria", "gandhara", "sogdia"],
        ["kujula", "vima_takto"],
        claims=["bactria"],
        ties=["gandhara"],
    )
    rome = pw("rome", "latium", ["latium", "syria"], ["vespasian", "titus"], claims=["latium"])
    parthia = pw(
        "parthia", "media", ["media", "mesopotamia", "khorasan"], ["vologases"], claims=["media"]
    )
    scenarios = [
        {
            "id": "teaching",
            "name": "Teaching: Kushan and Han",
            "era": "first",
            "start_year": 50,
            "end_year": 90,
            "turns": 2,
            "min_players": 1,
            "max_players": 2,
            "teaching": True,
            "powers": [kushan, han],
            "independents": {},
            "notes": "",
        },
        {
            "id": "four_empires",
            "name": "The Four Empires",
            "era": "first",
            "start_year": 70,
            "end_year": 150,
            "turns": 3,
            "min_players": 1,
            "max_players": 4,
            "teaching": False,
            "powers": [rome, parthia, kushan, han],
            "independents": {},
            "notes": "",
        },
    ]
    out: dict[str, Any] = {
        "areas": areas,
        "seas": seas,
        "links": links,
        "languages": languages,
        "religions": religions,
        "advisors": advisors,
        "rulers": rulers,
        "notables": notables,
        "scenarios": scenarios,
        "world": world(),
    }
    return out


def world() -> dict[str, Any]:
    """The real pack's usurper, nomad and heirless knobs, with two hordes of this map:
    the Xiongnu of Mongolia (whose reach takes in Han's Hexi) and the Wusun (Tarim)."""
    data: dict[str, Any] = json.loads((DATA / "world.json").read_text())
    data["nomads"]["hordes"] = [
        {
            "id": "xiongnu",
            "names": [[-300, "Xiongnu"], [100, "Xianbei"]],
            "homeland": ["mongolia"],
            "strength": 4,
            "min_strength": 2,
            "max_strength": 7,
        },
        {
            "id": "wusun",
            "names": [[-300, "Wusun"]],
            "homeland": ["wusun"],
            "strength": 2,
            "min_strength": 1,
            "max_strength": 5,
        },
    ]
    return data


def write_pack(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for stem, data in files().items():
        (directory / f"{stem}.json").write_text(json.dumps(data))
    for stem in MINE:
        shutil.copy(DATA / f"{stem}.json", directory / f"{stem}.json")
    return directory
