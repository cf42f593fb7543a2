"""Build the game map (static/map/map.svg and static/map/map.json) from real coastlines.

Run by a developer; the output is committed, so the game never needs this at run time.

    .venv/bin/pip install -e '.[dev]'     # shapely is a dev extra
    .venv/bin/python scripts/build_map.py

Source: Natural Earth 1:50m land (public domain), as TopoJSON in the npm package
``world-atlas`` 2.0.2 (``land-50m.json``). When the file is missing the script runs
``npm install --no-save --prefix build/npm world-atlas@2.0.2`` (``build/`` is git-ignored).

Natural Earth's land layer leaves only the Caspian open as an inland sea; the Aral Sea,
Balkhash and the other lakes are drawn as land.

Steps:
1. decode the TopoJSON (quantised, delta-encoded arcs) into lon/lat polygons;
2. clip to the frame (lon -12..132, lat 2..58) and project to a plane: equirectangular
   with standard parallel 35°N, 10 units per degree of latitude, y downwards;
3. land areas: Voronoi cells around each area's centre (areas.json lat/lon plus the
   layout hints of scripts/map_layout.py), clipped to land, minus the barriers
   (barriers.json) and the terra incognita; stray pieces go to the neighbour they touch,
   islands to the nearest area (or nobody);
4. sea zones: Voronoi cells around each sea's point, clipped to the water body holding
   that point (so the Caspian is one zone and the Red Sea never takes Mediterranean water);
5. write the SVG (one ``<path id="area-{id}" class="area" data-area data-cx data-cy>`` per
   area, ``<path id="sea-{ID}" class="sea" data-sea …>`` per sea, ``class="barrier"`` wastes,
   ``#land`` (all land, so unclaimed land shows under the areas), ``#coastline``,
   ``<g id="crossings">`` lines for straits and passes, ``<g id="labels">``) and map.json:
   ``viewBox``, ``projection``, ``areas {id: {cx, cy, bbox}}``, ``seas {ID: {cx, cy}}``,
   ``borders [[a, b, length]]`` (areas sharing a border), ``shores {area: [sea]}``,
   ``links [{a, b, kind, name, x1, y1, x2, y2}]`` (straits and passes as lines);
6. print a consistency report: links without a shared border, borders without a link,
   coasts in areas.json that the drawing does not show and the reverse.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from html import escape
from pathlib import Path
from typing import Any

import shapely
from shapely import ops
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

sys.path.insert(0, str(Path(__file__).resolve().parent))
import map_layout as layout  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "app" / "content" / "data"
OUT = ROOT / "static" / "map"
NPM_PREFIX = ROOT / "build" / "npm"
WORLD_ATLAS = "world-atlas@2.0.2"
LAND_FILE = NPM_PREFIX / "node_modules" / "world-atlas" / "land-50m.json"

SCALE = 10.0  # units per degree of latitude
PARALLEL = math.cos(math.radians(35.0))
SIMPLIFY = 0.2  # units (~2 km): coastline simplification before cutting
MIN_ISLAND = 0.6  # square units: smaller islands are dropped
BORDER_MIN = 2.0  # units of shared border for two areas to count as neighbours
COAST_REACH = 0.05  # units: an area touches a sea zone within this distance


# --- source -------------------------------------------------------------------------


def ensure_world_atlas() -> Path:
    if not LAND_FILE.exists():
        NPM_PREFIX.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(NPM_PREFIX),
                WORLD_ATLAS,
            ],
            check=True,
        )
    return LAND_FILE


def decode_topojson(topo: dict[str, Any], name: str) -> list[Polygon]:
    """The polygons of one TopoJSON object, in lon/lat.

    Arcs are quantised and delta-encoded: each arc's first position is absolute in the
    quantised grid, the rest are offsets from the previous one; the transform maps the
    grid back to degrees. A negative arc index ``~i`` means arc ``i`` reversed.
    """
    sx, sy = topo["transform"]["scale"]
    tx, ty = topo["transform"]["translate"]
    arcs: list[list[tuple[float, float]]] = []
    for arc in topo["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x += dx
            y += dy
            points.append((x * sx + tx, y * sy + ty))
        arcs.append(points)

    def ring(indexes: list[int]) -> list[tuple[float, float]]:
        points: list[tuple[float, float]] = []
        for index in indexes:
            part = arcs[index] if index >= 0 else arcs[~index][::-1]
            points.extend(part if not points else part[1:])
        return points

    def polygon(rings: list[list[int]]) -> Polygon:
        shell, *holes = (ring(r) for r in rings)
        return Polygon(shell, holes)

    polygons: list[Polygon] = []
    obj = topo["objects"][name]
    geometries = obj["geometries"] if obj["type"] == "GeometryCollection" else [obj]
    for geometry in geometries:
        if geometry["type"] == "Polygon":
            polygons.append(polygon(geometry["arcs"]))
        elif geometry["type"] == "MultiPolygon":
            polygons.extend(polygon(p) for p in geometry["arcs"])
    return polygons


# --- projection ---------------------------------------------------------------------


def project_xy(lon: float, lat: float) -> tuple[float, float]:
    return (lon - layout.WEST) * SCALE * PARALLEL, (layout.NORTH - lat) * SCALE


def project(geom: BaseGeometry) -> BaseGeometry:
    return shapely.transform(geom, _project_array)


def _project_array(coords: Any) -> Any:
    out = coords.copy()
    out[:, 0] = (coords[:, 0] - layout.WEST) * SCALE * PARALLEL
    out[:, 1] = (layout.NORTH - coords[:, 1]) * SCALE
    return out


def lonlat_polygon(points: list[tuple[float, float]] | list[list[float]]) -> BaseGeometry:
    return project(Polygon([(p[0], p[1]) for p in points])).buffer(0)


def polygons_of(geom: BaseGeometry) -> list[Polygon]:
    if geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom]
    if isinstance(geom, MultiPolygon | GeometryCollection):
        return [p for g in geom.geoms for p in polygons_of(g)]
    return []


def as_multi(parts: list[Polygon]) -> BaseGeometry:
    return shapely.union_all(parts) if parts else MultiPolygon()


# --- cells --------------------------------------------------------------------------


def voronoi_regions(
    seeds: list[tuple[str, float, float]], frame: Polygon
) -> dict[str, BaseGeometry]:
    """Union of the Voronoi cells of each owner's seeds, in projected units."""
    points = [Point(*project_xy(lon, lat)) for _, lon, lat in seeds]
    cells = shapely.voronoi_polygons(
        shapely.MultiPoint(points), extend_to=frame.buffer(200), ordered=True
    )
    by_owner: dict[str, list[BaseGeometry]] = {}
    for (owner, _, _), cell in zip(seeds, cells.geoms, strict=True):
        by_owner.setdefault(owner, []).append(cell.intersection(frame))
    return {owner: shapely.union_all(cs) for owner, cs in by_owner.items()}


def settle(
    regions: dict[str, BaseGeometry],
    seeds: dict[str, list[Point]],
    islands: list[tuple[Point, str | None]],
    reach: float,
    min_area: float,
) -> tuple[dict[str, BaseGeometry], list[Polygon]]:
    """Give every piece of land (or water) one owner that it is connected to.

    Each owner keeps the pieces holding one of its seeds. Every other piece goes to the
    owner it shares the longest border with; a piece touching nobody (an island) goes
    to the owner named in ``islands``, else to the nearest owner within ``reach``, else
    to nobody (returned as the second value).
    """
    kept: dict[str, list[Polygon]] = {k: [] for k in regions}
    loose: list[Polygon] = []
    for owner, geom in regions.items():
        for piece in polygons_of(geom):
            if piece.area < 1e-6:
                continue
            if any(piece.intersects(s) for s in seeds[owner]):
                kept[owner].append(piece)
            else:
                loose.append(piece)
    unowned: list[Polygon] = []
    for _ in range(6):
        if not loose:
            break
        merged = {k: as_multi(v) for k, v in kept.items()}
        still: list[Polygon] = []
        for piece in sorted(loose, key=lambda p: -p.area):
            best, best_len = None, 0.0
            for owner, geom in merged.items():
                if geom.is_empty or not piece.buffer(0.01).intersects(geom):
                    continue
                shared = piece.buffer(0.01).intersection(geom.boundary).length
                if shared > best_len:
                    best, best_len = owner, shared
            if best is not None and best_len > 0.02:
                kept[best].append(piece)
            else:
                still.append(piece)
        if len(still) == len(loose):
            break
        loose = still
    merged = {k: as_multi(v) for k, v in kept.items()}
    for piece in loose:
        if piece.area < min_area:
            continue
        taker: str | None = None
        named = [o for p, o in islands if piece.buffer(0.5).contains(p)]
        if named:
            taker = named[0]
        else:
            near = [(piece.distance(g), o) for o, g in merged.items() if not g.is_empty]
            if near:
                d, o = min(near)
                taker = o if d <= reach else None
        if taker is None:
            unowned.append(piece)
        else:
            kept[taker].append(piece)
    result = {}
    for owner, parts in kept.items():
        parts = [
            p for p in parts if p.area >= min_area or any(p.intersects(s) for s in seeds[owner])
        ]
        result[owner] = as_multi(parts)
    return result, unowned


# --- output -------------------------------------------------------------------------


def path_d(geom: BaseGeometry) -> str:
    out = []
    for poly in polygons_of(geom):
        for ring in [poly.exterior, *poly.interiors]:
            coords = list(ring.coords)[:-1]
            if len(coords) < 3:
                continue
            out.append("M" + "L".join(f"{_n(x)} {_n(y)}" for x, y in coords) + "Z")
    return "".join(out)


def line_d(geom: BaseGeometry) -> str:
    lines = []
    if isinstance(geom, LineString):
        geoms = [geom]
    else:
        geoms = [g for g in getattr(geom, "geoms", []) if isinstance(g, LineString)]
    for line in geoms:
        coords = list(line.coords)
        if len(coords) >= 2:
            lines.append("M" + "L".join(f"{_n(x)} {_n(y)}" for x, y in coords))
    return "".join(lines)


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def label_size(geom: BaseGeometry, x: float, y: float, name: str) -> float:
    """A font size that lets the name fit the room around its label point."""
    room = LineString([(x - 400, y), (x + 400, y)]).intersection(geom)
    width = 0.0
    for piece in getattr(room, "geoms", [room]):
        if isinstance(piece, LineString) and piece.distance(Point(x, y)) < 0.01:
            width = piece.length
    tall = LineString([(x, y - 400), (x, y + 400)]).intersection(geom)
    height = 0.0
    for piece in getattr(tall, "geoms", [tall]):
        if isinstance(piece, LineString) and piece.distance(Point(x, y)) < 0.01:
            height = piece.length
    size = min(width * 1.1 / (0.55 * max(len(name), 4)), height * 0.8, 7.0)
    return round(max(size, 2.5), 1)


def label_point(geom: BaseGeometry) -> tuple[float, float]:
    parts = polygons_of(geom)
    biggest = max(parts, key=lambda p: p.area)
    point = ops.polylabel(biggest, tolerance=0.5)
    return round(point.x, 1), round(point.y, 1)


# Scoped to the map (``:where`` adds no specificity, so a page that inlines the SVG can
# restyle areas and seas with its own ordinary rules).
SVG_STYLE = """
:where(#ig-map) .water{fill:#a9c6d6}
:where(#ig-map) .sea{fill:#b7d3e0;stroke:#8fb1c3;stroke-width:.6;stroke-dasharray:3 2}
:where(#ig-map) .land{fill:#d9d2bd}
:where(#ig-map) .area{fill:#efe6c8;stroke:#7c6a4b;stroke-width:.5;stroke-linejoin:round}
:where(#ig-map) .barrier{fill:url(#ig-hatch);stroke:none}
:where(#ig-map) .coast{fill:none;stroke:#4f6f80;stroke-width:.6;stroke-linejoin:round;pointer-events:none}
:where(#ig-map) .frame{fill:none;stroke:#4f6f80;stroke-width:1;pointer-events:none}
:where(#ig-map) .crossing{stroke-width:1.6;stroke-linecap:round;pointer-events:none}
:where(#ig-map) .crossing.strait{stroke:#2f5d8a;stroke-dasharray:2 1.5}
:where(#ig-map) .crossing.pass{stroke:#8a4b2f;stroke-dasharray:1 1.2}
:where(#ig-map) #labels{pointer-events:none}
:where(#ig-map) #labels text{font-family:sans-serif;fill:#4a3b22;text-anchor:middle}
:where(#ig-map) #labels text.sea-label{font-style:italic;fill:#34627a}
"""


def build() -> dict[str, Any]:
    areas = json.loads((DATA / "areas.json").read_text())
    seas = json.loads((DATA / "seas.json").read_text())
    links = json.loads((DATA / "links.json").read_text())
    barriers = json.loads((DATA / "barriers.json").read_text())

    topo = json.loads(ensure_world_atlas().read_text())
    frame_ll = box(layout.WEST, layout.SOUTH, layout.EAST, layout.NORTH)
    land_ll = shapely.union_all(
        [
            p.buffer(0).intersection(frame_ll)
            for p in decode_topojson(topo, "land")
            if p.intersects(frame_ll)
        ]
    )
    frame = project(frame_ll)
    land = project(land_ll).simplify(SIMPLIFY).buffer(0)
    land = as_multi([p for p in polygons_of(land) if p.area >= MIN_ISLAND])
    water = frame.difference(land)

    wastes = shapely.union_all([lonlat_polygon(b["polygon"]) for b in barriers if b.get("polygon")])
    unknown = shapely.union_all([lonlat_polygon(p) for p in layout.TERRA_INCOGNITA])
    claimable = land.difference(wastes).difference(unknown)

    # land areas
    seeds_ll = [(a["id"], a["lon"], a["lat"]) for a in areas]
    seeds_ll += [(k, lon, lat) for k, pts in layout.AUX_SEEDS.items() for lon, lat in pts]
    seed_points: dict[str, list[Point]] = {a["id"]: [] for a in areas}
    for owner, lon, lat in seeds_ll:
        seed_points[owner].append(Point(*project_xy(lon, lat)))
    for a in areas:
        main = Point(*project_xy(a["lon"], a["lat"]))
        if not claimable.contains(main):
            print(f"WARNING: centre of {a['id']} is not on claimable land", file=sys.stderr)
    regions = voronoi_regions(seeds_ll, frame)
    regions = {k: g.intersection(claimable) for k, g in regions.items()}
    islands = [(Point(*project_xy(lon, lat)), o) for lon, lat, o in layout.ISLANDS]
    area_geo, unclaimed = settle(
        regions, seed_points, islands, layout.ISLAND_REACH * SCALE, MIN_ISLAND
    )

    # sea zones: each water body is shared only by the seas whose points lie in it
    sea_seeds_ll = [(s["id"], s["lon"], s["lat"]) for s in seas]
    sea_seeds_ll += [(k, lon, lat) for k, pts in layout.SEA_AUX_SEEDS.items() for lon, lat in pts]
    sea_points: dict[str, list[Point]] = {s["id"]: [] for s in seas}
    for owner, lon, lat in sea_seeds_ll:
        sea_points[owner].append(Point(*project_xy(lon, lat)))
    sea_regions: dict[str, BaseGeometry] = {s["id"]: Polygon() for s in seas}
    for body in polygons_of(water):
        inside = [
            (o, lon, lat)
            for o, lon, lat in sea_seeds_ll
            if body.contains(Point(*project_xy(lon, lat)))
        ]
        if not inside:
            continue
        if len({o for o, _, _ in inside}) == 1:
            owner = inside[0][0]
            sea_regions[owner] = sea_regions[owner].union(body)
            continue
        for owner, cell in voronoi_regions(inside, frame).items():
            sea_regions[owner] = sea_regions[owner].union(cell.intersection(body))
    for s in seas:
        main = Point(*project_xy(s["lon"], s["lat"]))
        if not water.contains(main):
            print(f"WARNING: point of sea {s['id']} is not in water", file=sys.stderr)
    sea_geo, _lakes = settle(sea_regions, sea_points, [], 0.0, MIN_ISLAND)

    return {
        "areas": areas,
        "seas": seas,
        "links": links,
        "barriers": barriers,
        "frame": frame,
        "land": land,
        "water": water,
        "wastes": wastes.intersection(land),
        "unclaimed": as_multi(unclaimed),
        "unknown": unknown,
        "area_geo": area_geo,
        "sea_geo": sea_geo,
    }


def neighbours(area_geo: dict[str, BaseGeometry]) -> dict[frozenset[str], float]:
    ids = sorted(area_geo)
    tree = shapely.STRtree([area_geo[i] for i in ids])
    shared: dict[frozenset[str], float] = {}
    for a in ids:
        ga = area_geo[a]
        for j in tree.query(ga.buffer(0.05)):
            b = ids[int(j)]
            if b <= a:
                continue
            length = ga.buffer(0.05).intersection(area_geo[b].boundary).length
            if length >= BORDER_MIN:
                shared[frozenset((a, b))] = round(length, 1)
    return shared


def crossing_line(
    link: dict[str, Any], geo: dict[str, BaseGeometry], labels: dict[str, tuple[float, float]]
) -> dict[str, Any]:
    """Endpoints of the line that draws a strait or a pass."""
    ga, gb = geo[link["a"]], geo[link["b"]]
    if link["kind"] == "strait" or ga.distance(gb) > 0.1:
        pa, pb = ops.nearest_points(ga, gb)
        ax, ay, bx, by = pa.x, pa.y, pb.x, pb.y
        dx, dy = bx - ax, by - ay
        if math.hypot(dx, dy) < 1.0:  # the shores (nearly) touch: aim from label to label
            (lax, lay), (lbx, lby) = labels[link["a"]], labels[link["b"]]
            dx, dy = lbx - lax, lby - lay
        length = math.hypot(dx, dy) or 1.0
        pad = 4.0
        ax, ay = ax - dx / length * pad, ay - dy / length * pad
        bx, by = bx + dx / length * pad, by + dy / length * pad
    else:
        border = ga.buffer(0.05).intersection(gb.boundary)
        mid = border.interpolate(0.5, normalized=True) if border.length else border.centroid
        out = []
        for key in ("a", "b"):
            cx, cy = labels[link[key]]
            dx, dy = cx - mid.x, cy - mid.y
            length = math.hypot(dx, dy) or 1.0
            step = max(min(6.0, length * 0.8), 3.0)
            out.append((mid.x + dx / length * step, mid.y + dy / length * step))
        (ax, ay), (bx, by) = out
    return {
        "a": link["a"],
        "b": link["b"],
        "kind": link["kind"],
        "name": link.get("name", ""),
        "x1": round(ax, 1),
        "y1": round(ay, 1),
        "x2": round(bx, 1),
        "y2": round(by, 1),
    }


def write(result: dict[str, Any]) -> list[str]:
    areas, seas, links = result["areas"], result["seas"], result["links"]
    area_geo, sea_geo = result["area_geo"], result["sea_geo"]
    minx, miny, maxx, maxy = result["frame"].bounds
    view_box = f"{_n(minx)} {_n(miny)} {_n(maxx - minx)} {_n(maxy - miny)}"
    labels = {k: label_point(g) for k, g in area_geo.items() if not g.is_empty}
    sea_labels = {k: label_point(g) for k, g in sea_geo.items() if not g.is_empty}
    problems: list[str] = []

    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" id="ig-map" '
        f'viewBox="{view_box}" width="{_n(maxx - minx)}" height="{_n(maxy - miny)}">',
        "<title>Imperial Glory: Iberia to the China coast</title>",
        "<desc>Coastlines: Natural Earth 1:50m (public domain) via world-atlas 2.0.2. "
        "Built by scripts/build_map.py.</desc>",
        f"<style>{SVG_STYLE}</style>",
        '<defs><pattern id="ig-hatch" width="4" height="4" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="4" height="4" fill="#d8c9a3"/>'
        '<line x1="0" y1="0" x2="0" y2="4" stroke="#a8926a" stroke-width="1.2"/>'
        "</pattern></defs>",
        f'<rect class="water" x="{_n(minx)}" y="{_n(miny)}" '
        f'width="{_n(maxx - minx)}" height="{_n(maxy - miny)}"/>',
        '<g id="seas">',
    ]
    for s in seas:
        sid = s["id"]
        geom = sea_geo[sid]
        if geom.is_empty:
            problems.append(f"sea {sid} has no water")
            continue
        cx, cy = sea_labels[sid]
        parts.append(
            f'<path id="sea-{sid}" class="sea" data-sea="{sid}" data-cx="{_n(cx)}" '
            f'data-cy="{_n(cy)}" d="{path_d(geom)}"><title>{escape(s["name"])}</title></path>'
        )
    parts.append("</g>")
    parts.append(f'<path id="land" class="land" d="{path_d(result["land"])}"/>')
    parts.append('<g id="areas">')
    for a in areas:
        aid = a["id"]
        geom = area_geo[aid]
        if geom.is_empty:
            problems.append(f"area {aid} has no land")
            continue
        cx, cy = labels[aid]
        parts.append(
            f'<path id="area-{aid}" class="area" data-area="{aid}" data-cx="{_n(cx)}" '
            f'data-cy="{_n(cy)}" d="{path_d(geom)}"><title>{escape(a["name"])}</title></path>'
        )
    parts.append("</g>")
    parts.append('<g id="barriers">')
    for b in result["barriers"]:
        if not b.get("polygon"):
            continue
        geom = lonlat_polygon(b["polygon"]).intersection(result["land"])
        if geom.is_empty:
            continue
        parts.append(
            f'<path id="barrier-{b["id"]}" class="barrier" data-barrier="{b["id"]}" '
            f'd="{path_d(geom)}"><title>{escape(b["name"])}</title></path>'
        )
    parts.append("</g>")
    coast = result["land"].boundary.intersection(result["frame"].buffer(-0.01))
    parts.append(f'<path id="coastline" class="coast" d="{line_d(coast)}"/>')
    borders = neighbours({k: g for k, g in area_geo.items() if not g.is_empty})
    ranges = {
        b["id"]: lonlat_polygon(b["polygon"]).buffer(0.5)
        for b in result["barriers"]
        if b.get("polygon") and b["kind"] != "desert"
    }
    crossings = []
    for link in links:
        if link["kind"] not in ("strait", "pass"):
            continue
        line = crossing_line(link, area_geo, labels)
        ga, gb = area_geo[link["a"]], area_geo[link["b"]]
        line["over"] = None
        if link["kind"] == "pass" and frozenset((link["a"], link["b"])) not in borders:
            over = [k for k, r in ranges.items() if r.intersects(ga) and r.intersects(gb)]
            line["over"] = over[0] if over else None
        crossings.append(line)
    parts.append('<g id="crossings">')
    for c in crossings:
        parts.append(
            f'<line class="crossing {c["kind"]}" data-a="{c["a"]}" data-b="{c["b"]}" '
            f'x1="{_n(c["x1"])}" y1="{_n(c["y1"])}" x2="{_n(c["x2"])}" y2="{_n(c["y2"])}">'
            f"<title>{escape(c['name'])}</title></line>"
        )
    parts.append("</g>")
    parts.append('<g id="labels">')
    for a in areas:
        if a["id"] in labels:
            x, y = labels[a["id"]]
            size = label_size(area_geo[a["id"]], x, y, a["name"])
            parts.append(
                f'<text x="{_n(x)}" y="{_n(y + size * 0.35)}" font-size="{_n(size)}">'
                f"{escape(a['name'])}</text>"
            )
    for s in seas:
        if s["id"] in sea_labels:
            x, y = sea_labels[s["id"]]
            size = label_size(sea_geo[s["id"]], x, y, s["name"])
            parts.append(
                f'<text class="sea-label" x="{_n(x)}" y="{_n(y + size * 0.35)}" '
                f'font-size="{_n(size)}">{escape(s["name"])}</text>'
            )
    parts.append("</g>")
    parts.append(
        f'<rect class="frame" x="{_n(minx)}" y="{_n(miny)}" '
        f'width="{_n(maxx - minx)}" height="{_n(maxy - miny)}"/>'
    )
    parts.append("</svg>")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "map.svg").write_text("\n".join(parts) + "\n")

    sea_borders = neighbours({k: g for k, g in sea_geo.items() if not g.is_empty})
    touches = {}
    for a in areas:
        g = area_geo[a["id"]]
        touches[a["id"]] = sorted(
            sid for sid, sg in sea_geo.items() if not sg.is_empty and g.distance(sg) <= COAST_REACH
        )
    doc = {
        "source": "Natural Earth 1:50m land via world-atlas 2.0.2; scripts/build_map.py",
        "projection": {
            "kind": "equirectangular",
            "standard_parallel": 35,
            "units_per_degree": SCALE,
            "west": layout.WEST,
            "north": layout.NORTH,
            "x": "(lon - west) * units_per_degree * cos(standard_parallel)",
            "y": "(north - lat) * units_per_degree",
        },
        "viewBox": view_box,
        "areas": {
            k: {"cx": x, "cy": y, "bbox": [round(v, 1) for v in area_geo[k].bounds]}
            for k, (x, y) in labels.items()
        },
        "seas": {k: {"cx": x, "cy": y} for k, (x, y) in sea_labels.items()},
        "borders": sorted([sorted(k) + [v] for k, v in borders.items()]),
        "sea_borders": sorted([sorted(k) + [v] for k, v in sea_borders.items()]),
        "sea_links_off_map": [
            {"a": a, "b": b, "name": name} for (a, b), name in layout.OFF_MAP_SEA_LINKS.items()
        ],
        "shores": touches,
        "links": crossings,
    }
    (OUT / "map.json").write_text(json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n")

    # consistency report
    linked = {frozenset((lk["a"], lk["b"])): lk for lk in links}
    over = {frozenset((c["a"], c["b"])): c["over"] for c in crossings}
    for key, lk in linked.items():
        if lk["kind"] == "strait" or key in borders:
            continue
        if lk["kind"] == "pass" and over.get(key):
            continue  # a pass over a mountain range drawn as a barrier
        problems.append(f"link {lk['a']}-{lk['b']} ({lk['kind']}) has no shared border")
    for key, length in borders.items():
        if key not in linked:
            a, b = sorted(key)
            problems.append(f"border {a}-{b} ({length}) has no link")
    sea_links = {frozenset((x["id"], y)) for x in seas for y in x["adjacent"]}
    off_map = {frozenset(k) for k in layout.OFF_MAP_SEA_LINKS}
    for key in sea_links - set(sea_borders) - off_map:
        problems.append(f"seas {'-'.join(sorted(key))} are adjacent but share no water")
    for key in set(sea_borders) - sea_links:
        problems.append(f"seas {'-'.join(sorted(key))} share water but are not adjacent")
    for a in areas:
        listed, drawn = set(a["coasts"]), set(touches[a["id"]])
        if listed - drawn:
            problems.append(f"coast {a['id']}: listed but not drawn {sorted(listed - drawn)}")
        if drawn - listed:
            problems.append(f"coast {a['id']}: drawn but not listed {sorted(drawn - listed)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    result = build()
    problems = write(result)
    for line in problems:
        print(line)
    svg = OUT / "map.svg"
    print(f"{svg.relative_to(ROOT)}: {svg.stat().st_size} bytes; {len(problems)} consistency notes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
