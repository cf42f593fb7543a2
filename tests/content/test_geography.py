"""Consistency of the geography content: areas, seas, links, barriers, languages, religions.

These read the real pack (app/content/data) through the engine's loader, so a broken
reference or an asymmetric adjacency fails here before any game is played.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from app.content.geometry import map_shapes
from app.engine.content import load_content

SLUG = re.compile(r"^[a-z0-9_]+$")
SEA_ID = re.compile(r"^[A-Z]{3}$")
TERRAINS = {"plain", "hills", "mountain", "forest", "desert", "steppe", "marsh"}
LINK_KINDS = {"land", "strait", "pass", "river"}
BARRIER_KINDS = {"desert", "mountain", "plateau"}


@pytest.fixture(scope="module")
def pack() -> Any:
    return load_content()


def _components(nodes: set[str], edges: list[tuple[str, str]]) -> list[set[str]]:
    graph: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        graph[a].add(b)
        graph[b].add(a)
    seen: set[str] = set()
    parts = []
    for start in sorted(nodes):
        if start in seen:
            continue
        part = {start}
        queue = deque([start])
        while queue:
            for nxt in graph[queue.popleft()]:
                if nxt not in part:
                    part.add(nxt)
                    queue.append(nxt)
        seen |= part
        parts.append(part)
    return parts


def test_counts(pack: Any) -> None:
    assert 110 <= len(pack["areas"]) <= 120
    assert len(pack["seas"]) >= 20


def test_area_fields(pack: Any) -> None:
    ids = [a["id"] for a in pack["areas"]]
    assert len(ids) == len(set(ids)), "duplicate area ids"
    languages = {lid for fam in pack["languages"].values() for lid in fam["languages"]}
    religions = {rid for fam in pack["religions"].values() for rid in fam["religions"]}
    seas = {s["id"] for s in pack["seas"]}
    for area in pack["areas"]:
        where = area["id"]
        assert SLUG.match(area["id"]), where
        assert area["name"] and area["region"] and area["places"], where
        assert area["population"] in (1, 2, 3), where
        assert -3 <= area["social"] <= 3 and isinstance(area["social"], int), where
        assert area["language"] in languages, where
        assert area["religion"] in religions, where
        assert area["terrain"] in TERRAINS, where
        # the map's extent: Iberia to Korea, Lanka to the Volga
        assert -12 <= area["lon"] <= 131 and 5 <= area["lat"] <= 58, where
        assert len(set(area["coasts"])) == len(area["coasts"]), where
        assert set(area["coasts"]) <= seas, (where, set(area["coasts"]) - seas)
    both_ends = {a["id"] for a in pack["areas"]} & {"lusitania", "wu_kuaiji"}
    assert both_ends == {"lusitania", "wu_kuaiji"}


def test_language_and_religion_trees(pack: Any) -> None:
    lang_ids: list[str] = []
    for fid, fam in pack["languages"].items():
        assert SLUG.match(fid) and fam["name"] and fam["languages"]
        lang_ids += list(fam["languages"])
    assert len(lang_ids) == len(set(lang_ids)), "a language sits in two families"
    rel_ids: list[str] = []
    for fid, fam in pack["religions"].items():
        assert SLUG.match(fid) and fam["name"] and fam["religions"]
        for rid, rel in fam["religions"].items():
            assert SLUG.match(rid) and rel["name"]
            assert 0 <= rel["proselytism"] <= 5 and 0 <= rel["conviction"] <= 5, rid
        rel_ids += list(fam["religions"])
    assert len(rel_ids) == len(set(rel_ids)), "a religion sits in two families"


def test_seas(pack: Any) -> None:
    seas = {s["id"]: s for s in pack["seas"]}
    assert len(seas) == len(pack["seas"]), "duplicate sea ids"
    coastal = {c for a in pack["areas"] for c in a["coasts"]}
    for sid, sea in seas.items():
        assert SEA_ID.match(sid), sid
        assert sea["name"]
        assert sid not in sea["adjacent"], f"{sid} is adjacent to itself"
        for other in sea["adjacent"]:
            assert other in seas, (sid, other)
            assert sid in seas[other]["adjacent"], f"{sid}-{other} is one-way"
        # every sea touches land, or is a passage between two seas (the Andaman Sea)
        assert sid in coastal or len(sea["adjacent"]) >= 2, sid
    # three waters: the Atlantic-Mediterranean (with the Black Sea), the Indian Ocean to
    # the China seas (the Red Sea joins the Mediterranean only by portage through Egypt),
    # and the closed Caspian
    edges = [(s, o) for s, sea in seas.items() for o in sea["adjacent"]]
    parts = {frozenset(p) for p in _components(set(seas), edges)}
    west = next(p for p in parts if "ATL" in p)
    east = next(p for p in parts if "RED" in p)
    assert {"NSC", "WMD", "AEG", "BSE", "EMD"} <= west
    assert {"PGF", "ARE", "BOB", "SCS", "ECS", "YEL"} <= east
    assert parts == {west, east, frozenset({"CAS"})}


def test_links(pack: Any) -> None:
    ids = {a["id"] for a in pack["areas"]}
    pairs = set()
    for link in pack["links"]:
        a, b = link["a"], link["b"]
        assert a in ids and b in ids, link
        assert a != b, f"self-link {a}"
        assert link["kind"] in LINK_KINDS, link
        key = frozenset((a, b))
        assert key not in pairs, f"{a}-{b} listed twice"
        pairs.add(key)
        if link["kind"] in ("strait", "pass"):
            assert link.get("name"), f"{a}-{b}: straits and passes are named"


def test_straits_join_coastal_areas(pack: Any) -> None:
    coasts = {a["id"]: set(a["coasts"]) for a in pack["areas"]}
    for link in pack["links"]:
        if link["kind"] == "strait":
            assert coasts[link["a"]] and coasts[link["b"]], link


def test_land_graph_connected(pack: Any) -> None:
    """Land links and straits join every area, except islands reached only by sea."""
    ids = {a["id"] for a in pack["areas"]}
    edges = [(link["a"], link["b"]) for link in pack["links"]]
    linked = {x for e in edges for x in e}
    islands = ids - linked
    assert islands == {"sardinia", "crete", "cyprus"}
    for area in pack["areas"]:
        if area["id"] in islands:
            assert area["coasts"], f"island {area['id']} has no coast"
    parts = _components(linked, edges)
    assert len(parts) == 1, [sorted(p)[:5] for p in parts]


def test_named_crossings_present(pack: Any) -> None:
    names = " ".join(link.get("name", "") for link in pack["links"])
    for word in (
        "Gibraltar",
        "Messina",
        "Bosporus",
        "Hellespont",
        "Kerch",
        "Hormuz",
        "Palk",
        "Darial",
        "Derbent",
        "Khyber",
        "Bolan",
        "Hindu Kush",
        "Wakhan",
        "Terek",
        "Bedel",
        "Jade Gate",
        "Qinling",
        "Nanling",
        "Alp",
    ):
        assert word in names, word


def test_barriers(pack: Any) -> None:
    ids = [b["id"] for b in pack["barriers"]]
    assert len(ids) == len(set(ids))
    assert {"sahara", "taklamakan", "tibetan_plateau", "himalaya", "gobi"} <= set(ids)
    for barrier in pack["barriers"]:
        assert barrier["kind"] in BARRIER_KINDS, barrier["id"]
        poly = barrier["polygon"]
        assert len(poly) >= 3
        assert all(-20 <= lon <= 140 and -5 <= lat <= 65 for lon, lat in poly), barrier["id"]


def test_no_area_centre_inside_a_barrier(pack: Any) -> None:
    """An area's seed lying in a waste would leave the area without land on the map."""

    def inside(lon: float, lat: float, poly: list[list[float]]) -> bool:
        hit = False
        j = len(poly) - 1
        for i in range(len(poly)):
            xi, yi = poly[i]
            xj, yj = poly[j]
            if (yi > lat) != (yj > lat) and lon < (xj - xi) * (lat - yi) / (yj - yi) + xi:
                hit = not hit
            j = i
        return hit

    for area in pack["areas"]:
        for barrier in pack["barriers"]:
            assert not inside(area["lon"], area["lat"], barrier["polygon"]), (
                area["id"],
                barrier["id"],
            )


# --- the drawn map (static/map/, built by scripts/build_map.py) ---------------------

MAP_DIR = Path(__file__).resolve().parents[2] / "static" / "map"


@pytest.fixture(scope="module")
def drawn() -> dict[str, Any]:
    return json.loads((MAP_DIR / "map.json").read_text())


def test_every_area_and_sea_has_a_shape(pack: Any) -> None:
    areas, seas = map_shapes()
    assert areas == {a["id"] for a in pack["areas"]}
    assert seas == {s["id"] for s in pack["seas"]}


def test_map_shapes_reads_only_drawn_paths(tmp_path: Path) -> None:
    svg = tmp_path / "m.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg">'
        '<path id="area-rome" d="M0 0L1 0L1 1Z"/>'
        '<g><path id="area-empty" d=""/><path id="area-blank" d="  "/></g>'
        '<path id="sea-TYR" d="m0 0l2 0l0 2z"/>'
        '<path id="barrier-sahara" d="M0 0L1 1Z"/><rect id="area-box"/>'
        "</svg>"
    )
    assert map_shapes(svg) == ({"rome"}, {"TYR"})
    assert map_shapes(str(svg)) == ({"rome"}, {"TYR"})
    with pytest.raises(FileNotFoundError):
        map_shapes(tmp_path / "missing.svg")


def test_map_files_are_small() -> None:
    assert (MAP_DIR / "map.svg").stat().st_size < 1_500_000
    assert (MAP_DIR / "map.json").stat().st_size < 200_000


def test_map_json_points(pack: Any, drawn: dict[str, Any]) -> None:
    x0, y0, width, height = (float(v) for v in drawn["viewBox"].split())
    assert set(drawn["areas"]) == {a["id"] for a in pack["areas"]}
    assert set(drawn["seas"]) == {s["id"] for s in pack["seas"]}
    for point in [*drawn["areas"].values(), *drawn["seas"].values()]:
        assert x0 <= point["cx"] <= x0 + width and y0 <= point["cy"] <= y0 + height
    for area in drawn["areas"].values():
        left, top, right, bottom = area["bbox"]
        assert left <= area["cx"] <= right and top <= area["cy"] <= bottom
    crossings = {frozenset((c["a"], c["b"])) for c in drawn["links"]}
    wanted = {
        frozenset((lk["a"], lk["b"])) for lk in pack["links"] if lk["kind"] in ("strait", "pass")
    }
    assert crossings == wanted


def test_svg_labels_match_map_json(drawn: dict[str, Any]) -> None:
    root = ET.parse(MAP_DIR / "map.svg").getroot()
    seen = 0
    for element in root.iter("{http://www.w3.org/2000/svg}path"):
        area = element.get("data-area")
        if area:
            seen += 1
            assert element.get("id") == f"area-{area}"
            assert element.get("class") == "area"
            point = drawn["areas"][area]
            assert float(element.get("data-cx", "nan")) == point["cx"]
            assert float(element.get("data-cy", "nan")) == point["cy"]
    assert seen == len(drawn["areas"])


def test_land_links_follow_drawn_borders(pack: Any, drawn: dict[str, Any]) -> None:
    """A land or river link joins areas that share a border on the map, and the reverse.

    Straits cross water; passes may cross a mountain range drawn as a barrier.
    """
    borders = {frozenset(b[:2]) for b in drawn["borders"]}
    links = {frozenset((lk["a"], lk["b"])): lk["kind"] for lk in pack["links"]}
    for pair, kind in links.items():
        if kind in ("land", "river"):
            assert pair in borders, f"{sorted(pair)} linked by {kind} but not neighbours"
    for pair in borders:
        assert pair in links, f"{sorted(pair)} share a border but have no link"


def test_passes_cross_borders_or_mountains(pack: Any, drawn: dict[str, Any]) -> None:
    """A pass joins neighbours, or crosses a mountain range drawn as a barrier: never a desert."""
    borders = {frozenset(b[:2]) for b in drawn["borders"]}
    kinds = {b["id"]: b["kind"] for b in pack["barriers"]}
    for line in drawn["links"]:
        if line["kind"] != "pass":
            continue
        pair = frozenset((line["a"], line["b"]))
        if pair not in borders:
            assert kinds.get(line["over"]) in ("mountain", "plateau"), line


def test_sea_adjacency_follows_drawn_water(pack: Any, drawn: dict[str, Any]) -> None:
    touching = {frozenset(b[:2]) for b in drawn["sea_borders"]}
    off_map = {frozenset((x["a"], x["b"])) for x in drawn["sea_links_off_map"]}
    adjacent = {frozenset((s["id"], t)) for s in pack["seas"] for t in s["adjacent"]}
    assert adjacent == touching | off_map
    assert not touching & off_map


def test_coasts_follow_drawn_shores(pack: Any, drawn: dict[str, Any]) -> None:
    for area in pack["areas"]:
        assert sorted(area["coasts"]) == drawn["shores"][area["id"]], area["id"]


def _rings(d: str) -> list[list[tuple[float, float]]]:
    """The rings of a path written as absolute ``M x yL x y…Z`` (as build_map writes)."""
    rings = []
    for chunk in d.split("M")[1:]:
        points = []
        for pair in chunk.rstrip("Z").split("L"):
            x, y = pair.split()
            points.append((float(x), float(y)))
        rings.append(points)
    return rings


def _inside(x: float, y: float, rings: list[list[tuple[float, float]]]) -> bool:
    hit = False
    for ring in rings:
        j = len(ring) - 1
        for i in range(len(ring)):
            (xi, yi), (xj, yj) = ring[i], ring[j]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                hit = not hit
            j = i
    return hit


def test_label_points_lie_inside_their_shapes() -> None:
    root = ET.parse(MAP_DIR / "map.svg").getroot()
    checked = 0
    for element in root.iter("{http://www.w3.org/2000/svg}path"):
        if element.get("class") not in ("area", "sea"):
            continue
        x, y = float(element.get("data-cx", "nan")), float(element.get("data-cy", "nan"))
        assert _inside(x, y, _rings(element.get("d", ""))), element.get("id")
        checked += 1
    assert checked >= 130


def test_inside_helper() -> None:
    square = _rings("M0 0L10 0L10 10L0 10Z")
    assert _inside(5, 5, square) and not _inside(15, 5, square)
    holed = _rings("M0 0L10 0L10 10L0 10ZM4 4L6 4L6 6L4 6Z")
    assert not _inside(5, 5, holed) and _inside(2, 2, holed)


def test_crossing_lines_drawn(drawn: dict[str, Any]) -> None:
    root = ET.parse(MAP_DIR / "map.svg").getroot()
    lines = {
        frozenset((el.get("data-a"), el.get("data-b"))): el
        for el in root.iter("{http://www.w3.org/2000/svg}line")
        if "crossing" in (el.get("class") or "")
    }
    assert {frozenset((c["a"], c["b"])) for c in drawn["links"]} == set(lines)
    for c in drawn["links"]:
        assert c["kind"] in (lines[frozenset((c["a"], c["b"]))].get("class") or "")
