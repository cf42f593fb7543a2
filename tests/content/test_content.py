"""The content validator (`imperial-glory content check`) and the people of the pack.

The installed pack must pass every check; a copy of it broken in exactly one way
must be reported with an error that names the fault. The CLI is run once as a real
subprocess to check its single JSON object and exit status.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.content import cli
from app.content.validate import STATURES, Report, _id_list, _shape_ids, validate
from app.engine.content import DATA_DIR, load_content

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def baseline() -> Report:
    return validate()


@pytest.fixture(scope="module")
def pack() -> Any:
    return load_content()


def _copy_pack(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def _edit(directory: Path, name: str, change: Callable[[Any], object]) -> None:
    path = directory / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def _scenario(data: list[dict[str, Any]], sid: str) -> dict[str, Any]:
    return next(s for s in data if s["id"] == sid)


def _power(data: list[dict[str, Any]], sid: str, pid: str) -> dict[str, Any]:
    return next(p for p in _scenario(data, sid)["powers"] if p["id"] == pid)


# ---------------------------------------------------------------- the installed pack


def test_installed_pack_passes(baseline: Report) -> None:
    assert baseline.errors == []
    assert baseline.ok


def test_installed_pack_counts(baseline: Report) -> None:
    c = baseline.counts
    assert c["land_areas"] >= 110
    assert c["sea_zones"] >= 20
    assert c["rulers"] >= 80
    assert c["rulers_main_scenario"] >= 40
    assert c["notables"] >= 30
    assert c["fate_cards"] >= 40
    assert c["innovations"] >= 15
    assert c["advisor_types"] == 7
    assert c["scenarios"] >= 4
    assert c["eras"] >= 3  # the main scenario and at least two more


# ---------------------------------------------------------------- people and scenarios


def test_main_scenario_has_the_six_powers_and_their_dynasties(pack: Any) -> None:
    main = _scenario(pack["scenarios"], "four_empires")
    assert (main["start_year"], main["end_year"]) == (50, 220)
    lines = {p["id"]: p["rulers"] for p in main["powers"]}
    assert set(lines) == {"rome", "parthia", "kushan", "han", "xiongnu", "satavahana"}
    expected_in_order = {
        "rome": [
            "claudius",
            "nero",
            "vespasian",
            "titus",
            "domitian",
            "nerva",
            "trajan",
            "hadrian",
            "antoninus_pius",
            "marcus_aurelius",
            "commodus",
            "septimius_severus",
            "caracalla",
        ],
        "parthia": [
            "vologases_i",
            "pacorus_ii",
            "osroes_i",
            "vologases_iii",
            "vologases_iv",
            "vologases_v",
            "artabanus_iv",
        ],
        "kushan": [
            "kujula_kadphises",
            "vima_takto",
            "vima_kadphises",
            "kanishka_i",
            "huvishka",
            "vasudeva_i",
        ],
        "han": [
            "guangwu",
            "ming_of_han",
            "zhang_of_han",
            "he_of_han",
            "an_of_han",
            "shun_of_han",
            "huan_of_han",
            "ling_of_han",
            "xian_of_han",
        ],
        "satavahana": ["gautamiputra_satakarni", "vasishthiputra_pulumavi", "yajna_sri_satakarni"],
    }
    for power, names in expected_in_order.items():
        positions = [lines[power].index(n) for n in names]
        assert positions == sorted(positions), power
    assert len(lines["xiongnu"]) >= 4
    # The first ruler listed is the starting emperor and is alive at the start.
    rulers = {r["id"]: r for r in pack["rulers"]}
    assert rulers[lines["rome"][0]]["name"] == "Claudius"
    for line in lines.values():
        assert rulers[line[0]]["reign_end"] >= main["start_year"]


def test_rulers_are_rated_on_the_seven_statures_with_a_spread(pack: Any) -> None:
    totals = []
    for ruler in pack["rulers"]:
        assert set(ruler["statures"]) == set(STATURES)
        assert all(0 <= v <= 6 for v in ruler["statures"].values())
        assert ruler["note"].strip()
        totals.append(sum(ruler["statures"].values()))
    in_band = sum(1 for t in totals if 12 <= t <= 24)
    assert in_band / len(totals) >= 0.6  # "mostly 12-24"
    assert min(totals) < 12 and max(totals) > 24  # weak and great rulers both exist


def test_every_scenario_seats_real_powers_for_each_player_count(pack: Any) -> None:
    ids = {s["id"] for s in pack["scenarios"]}
    assert {"four_empires", "successors", "late_antiquity", "teaching"} <= ids
    for sc in pack["scenarios"]:
        powers = {p["id"] for p in sc["powers"]}
        for n in range(sc["min_players"], sc["max_players"] + 1):
            seated = sc["seat_sets"][str(n)]
            assert len(seated) == n and set(seated) <= powers
    teaching = _scenario(pack["scenarios"], "teaching")
    assert teaching["teaching"] is True
    assert teaching["seat_sets"] == {"2": ["kushan", "han"]}


def test_each_era_has_notables_for_its_court_market(baseline: Report) -> None:
    for sid in ("four_empires", "successors", "late_antiquity", "teaching"):
        assert baseline.counts[f"notables_{sid}"] >= 8, sid


# ---------------------------------------------------------------- broken packs


def _dangling_area(d: Path) -> None:
    _edit(d, "scenarios", lambda s: _power(s, "four_empires", "rome")["areas"].append("atlantis"))


def _asymmetric_sea(d: Path) -> None:
    def change(seas: list[dict[str, Any]]) -> None:
        sea = next(s for s in seas if s["id"] == "TYR")
        assert "WMD" in sea["adjacent"]
        sea["adjacent"].remove("WMD")

    _edit(d, "seas", change)


def _stature_of_seven(d: Path) -> None:
    _edit(
        d,
        "rulers",
        lambda rs: next(r for r in rs if r["id"] == "trajan")["statures"].update(military=7),
    )


def _unknown_op(d: Path) -> None:
    _edit(d, "fate", lambda fs: fs[0]["effect"].update(op="summon_dragons"))


def _missing_note(d: Path) -> None:
    _edit(d, "rulers", lambda rs: next(r for r in rs if r["id"] == "hadrian").pop("note"))


def _notable_with_event_op(d: Path) -> None:
    _edit(d, "notables", lambda ns: ns[0].update(ability={"op": "death", "min_age": 50}))


def _ruler_of_another_power(d: Path) -> None:
    _edit(d, "scenarios", lambda s: _power(s, "four_empires", "han")["rulers"].insert(1, "nero"))


def _duplicate_ruler_id(d: Path) -> None:
    _edit(d, "rulers", lambda rs: rs.append(dict(rs[0])))


def _unknown_language(d: Path) -> None:
    _edit(
        d,
        "rulers",
        lambda rs: next(r for r in rs if r["id"] == "kanishka_i").update(language="klingon"),
    )


def _cut_off_island(d: Path) -> None:
    """Taprobane loses its coasts and its strait: nothing reaches it any more."""
    _edit(
        d, "areas", lambda areas: next(a for a in areas if a["id"] == "taprobane").update(coasts=[])
    )

    def drop_links(links: list[dict[str, Any]]) -> None:
        links[:] = [x for x in links if "taprobane" not in (x["a"], x["b"])]

    _edit(d, "links", drop_links)


def _link_to_nowhere(d: Path) -> None:
    _edit(d, "links", lambda links: links.append({"a": "latium", "b": "atlantis", "kind": "land"}))


def _bad_seat_set(d: Path) -> None:
    _edit(
        d,
        "scenarios",
        lambda s: _scenario(s, "four_empires")["seat_sets"].update({"3": ["rome", "rome", "han"]}),
    )


def _shared_area(d: Path) -> None:
    _edit(d, "scenarios", lambda s: _power(s, "four_empires", "parthia")["areas"].append("latium"))


def _third_of_a_point_level(d: Path) -> None:
    """26.2: a victory level is a whole or a half point, the finest step a total has."""
    _edit(d, "scenarios", lambda s: _power(s, "four_empires", "rome").update(victory_level=2.3))


def _too_few_fate_cards(d: Path) -> None:
    def keep_ten(cards: list[dict[str, Any]]) -> None:
        del cards[10:]

    _edit(d, "fate", keep_ten)


def _born_after_accession(d: Path) -> None:
    _edit(d, "rulers", lambda rs: next(r for r in rs if r["id"] == "trajan").update(born=120))


def _bad_area_override(d: Path) -> None:
    _edit(
        d,
        "scenarios",
        lambda s: _scenario(s, "late_antiquity")["area_overrides"].update(
            latium={"religion": "jedi"}
        ),
    )


def _bad_relation(d: Path) -> None:
    _edit(
        d,
        "scenarios",
        lambda s: _scenario(s, "teaching")["relations"].update({"kushan|rome": "feud"}),
    )


def _bad_overreach(d: Path) -> None:
    _edit(
        d,
        "scenarios",
        lambda s: _scenario(s, "teaching").update(overreach={"from_lead": 4, "per": 0, "when": 1}),
    )


def _missing_file(d: Path) -> None:
    (d / "innovations.json").unlink()


def _invalid_json(d: Path) -> None:
    (d / "notables.json").write_text("[{", encoding="utf-8")


BROKEN: dict[str, tuple[Callable[[Path], None], str]] = {
    "dangling area id": (_dangling_area, "names unknown area 'atlantis'"),
    "asymmetric sea": (_asymmetric_sea, "WMD lists TYR as adjacent but TYR does not list WMD"),
    "stature of 7": (_stature_of_seven, "rulers.json 'trajan': stature 'military' is 7"),
    "unknown op": (_unknown_op, "unknown effect op 'summon_dragons'"),
    "missing ruler note": (
        _missing_note,
        "rulers.json 'hadrian': 'note' must be a non-empty string",
    ),
    "notable with an event op": (
        _notable_with_event_op,
        "ability op 'death' is not one of the notables' ops",
    ),
    "ruler of another power": (_ruler_of_another_power, "ruler 'nero' belongs to power 'rome'"),
    "duplicate ruler id": (_duplicate_ruler_id, "is used more than once"),
    "unknown ruler language": (_unknown_language, "unknown language 'klingon'"),
    "disconnected area": (_cut_off_island, "map: not connected"),
    "link to an unknown area": (
        _link_to_nowhere,
        "links.json latium-atlantis: both ends must be land areas",
    ),
    "seat set with a power twice": (_bad_seat_set, "seat_sets['3'] must list 3 different powers"),
    "area held twice": (_shared_area, "area 'latium' is also held by 'rome'"),
    "victory level of 2.3": (_third_of_a_point_level, "victory_level must be a whole or half"),
    "too few fate cards": (_too_few_fate_cards, "fate_cards is 10, at least 40 are required"),
    "born after accession": (_born_after_accession, "born 120 does not fit a reign from 98"),
    "area override with an unknown religion": (_bad_area_override, "unknown religion 'jedi'"),
    "relation with a power not in play": (_bad_relation, "relations key 'kushan|rome' must be two"),
    "overreach with a zero step": (_bad_overreach, "'per' is 0, outside 1..100"),
    "overreach with an unknown key": (_bad_overreach, "unknown keys ['when']"),
    "missing file": (_missing_file, "innovations.json is missing from the pack"),
    "invalid json": (_invalid_json, "notables.json: not valid JSON"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_pack_is_reported(case: str, tmp_path: Path, baseline: Report) -> None:
    breaker, expected = BROKEN[case]
    directory = _copy_pack(tmp_path)
    breaker(directory)
    report = validate(directory)
    assert not report.ok
    hits = [e for e in report.errors if expected in e]
    assert hits, f"{expected!r} not among {report.errors}"
    assert not any(expected in e for e in baseline.errors)


def test_unbroken_copy_passes_like_the_installed_pack(tmp_path: Path, baseline: Report) -> None:
    report = validate(_copy_pack(tmp_path))
    assert report.errors == baseline.errors
    assert report.counts == baseline.counts


# ---------------------------------------------------------------- neighbouring modules


def test_missing_effects_module_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "app.engine.effects", None)  # makes the import fail
    report = validate()
    assert any("app.engine.effects cannot be imported" in e for e in report.errors)


def test_missing_geometry_module_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "app.content.geometry", None)
    report = validate()
    assert any("map_shapes() is not available" in e for e in report.errors)


def test_area_or_sea_without_a_shape_is_an_error(
    monkeypatch: pytest.MonkeyPatch, pack: Any
) -> None:
    areas = [a["id"] for a in pack["areas"] if a["id"] != "latium"]
    seas = [s["id"] for s in pack["seas"] if s["id"] != "ION"]
    fake = types.ModuleType("app.content.geometry")
    shapes = {f"area-{a}": "M0 0" for a in areas} | {f"sea-{s}": "M0 0" for s in seas}
    setattr(fake, "map_shapes", lambda: shapes)  # noqa: B010 - a stand-in module
    monkeypatch.setitem(sys.modules, "app.content.geometry", fake)
    errors = validate().errors
    assert "map: land area 'latium' has no shape" in errors
    assert "map: sea zone 'ION' has no shape" in errors
    assert not any("has no shape" in e and "latium" not in e and "ION" not in e for e in errors)


def test_shape_ids_accepts_the_documented_forms() -> None:
    assert _shape_ids({"areas": {"latium": "M"}, "seas": ["ION"]}) == ({"latium"}, {"ION"})
    assert _shape_ids({"area-latium": "M", "sea-ION": "M"}) == ({"latium"}, {"ION"})
    assert _shape_ids(["latium", "ION"]) == ({"latium"}, {"ION"})
    assert _shape_ids(({"latium"}, {"ION"})) == ({"latium"}, {"ION"})  # geometry.map_shapes()


# ---------------------------------------------------------------- the command


def test_cli_json_as_a_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "content", "check", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = json.loads(proc.stdout)  # exactly one JSON object on stdout
    for key in (
        "land_areas",
        "sea_zones",
        "scenarios",
        "rulers",
        "rulers_main_scenario",
        "notables",
        "fate_cards",
        "innovations",
        "errors",
    ):
        assert key in out, key
    assert isinstance(out["errors"], list)
    assert proc.returncode == (0 if not out["errors"] else 1)
    assert out["errors"] == validate().errors
    assert out["rulers_main_scenario"] >= 40


def test_cli_text_and_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], baseline: Report
) -> None:
    assert cli.main(["check"]) == (0 if baseline.ok else 1)
    out = capsys.readouterr().out
    assert "land_areas" in out and "rulers_main_scenario" in out and "content check:" in out

    broken = _copy_pack(tmp_path)
    _stature_of_seven(broken)
    assert cli.main(["check", "--data", str(broken)]) == 1
    captured = capsys.readouterr()
    assert "stature 'military' is 7" in captured.err

    assert cli.main(["check", "--json", "--data", str(broken)]) == 1
    assert any("is 7" in e for e in json.loads(capsys.readouterr().out)["errors"])


def test_cli_usage_errors() -> None:
    assert cli.main([]) == 2
    assert cli.main(["frobnicate"]) == 2


# ---------------------------------------------------------------- robustness

WRONG_VALUES: list[Any] = [None, "x", [], [1], [{}], {"a": 1}]


def test_wrong_shapes_are_reported_never_raised(tmp_path: Path) -> None:
    """Every file replaced by values of the wrong shape: errors, no exception."""
    source = _copy_pack(tmp_path)
    for path in sorted(source.glob("*.json")):
        original = path.read_text(encoding="utf-8")
        for value in WRONG_VALUES:
            path.write_text(json.dumps(value), encoding="utf-8")
            report = validate(source, check_map=False)
            if (path.stem, value) != ("barriers", []):  # no barrier at all is a valid map
                assert report.errors, (path.name, value)
        path.write_text(original, encoding="utf-8")


def test_every_field_nulled_is_reported_never_raised(tmp_path: Path) -> None:
    """Each field of the first record of each list file set to null in turn."""
    source = _copy_pack(tmp_path)
    for path in sorted(source.glob("*.json")):
        original = path.read_text(encoding="utf-8")
        data = json.loads(original)
        if not isinstance(data, list) or not data or not isinstance(data[0], dict):
            continue
        for key in list(data[0]):
            broken = json.loads(original)
            broken[0][key] = None
            path.write_text(json.dumps(broken), encoding="utf-8")
            report = validate(source, check_map=False)
            if (path.stem, key) != ("barriers", "polygon"):  # the polygon is optional
                assert report.errors, (path.name, key)
        path.write_text(original, encoding="utf-8")


def test_every_power_field_nulled_is_reported_never_raised(tmp_path: Path) -> None:
    source = _copy_pack(tmp_path)
    path = source / "scenarios.json"
    original = path.read_text(encoding="utf-8")
    for key in json.loads(original)[0]["powers"][0]:
        broken = json.loads(original)
        broken[0]["powers"][0][key] = None
        path.write_text(json.dumps(broken), encoding="utf-8")
        report = validate(source, check_map=False)
        if key not in {"claims", "ties"}:  # no claims or ties is a valid start
            assert report.errors, key


def test_a_burden_may_be_listed_twice_other_ids_may_not() -> None:
    """5.1: a deck may start with several cards of one burden; a power's areas, claims,
    ties or notables name each id once."""
    rep = Report()
    known = {"corruption", "plague"}
    rec = {"burdens": ["corruption", "corruption", "plague"], "ties": ["a", "a"]}
    assert _id_list(rep, "p", rec, "burdens", known, "burden", repeats=True) == rec["burdens"]
    assert not rep.errors
    _id_list(rep, "p", rec, "ties", {"a"}, "area")
    assert rep.errors == ["p: 'ties' lists an id twice"]
