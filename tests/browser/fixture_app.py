"""A tiny app that serves the real game page (template, CSS, JS) against a fixed seat
view, for looking at the page while the rest of the stack is not running. The browser
tests use the real stack; this serves `python -m tests.browser.fixture_app` and
the page-rendering test (test_page_fixture.py), which checks that the page shows only
what legal_actions offers and renders the explain breakdown.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

ROOT = Path(__file__).resolve().parents[2]

AREAS = ["bactria", "gandhara", "sogdiana", "ferghana", "kashgar", "dunhuang", "liang", "guanzhong"]
OWNERS = {"bactria": 0, "gandhara": 0, "dunhuang": 1, "liang": 1, "guanzhong": 1}


def fixture_svg() -> str:
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 200">',
        '<path id="sea-IND" d="M0 150H400V200H0Z"/>',
    ]
    for i, a in enumerate(AREAS):
        x, y = 10 + (i % 4) * 95, 10 + (i // 4) * 70
        parts.append(
            f'<path id="area-{a}" data-area="" data-cx="{x + 45}" data-cy="{y + 30}" '
            f'd="M{x} {y}h90v65h-90Z"/>'
        )
    parts.append("</svg>")
    return "".join(parts)


def fixture_meta() -> dict[str, Any]:
    return {
        "game_id": 1,
        "title": "Teaching: Kushan and Han",
        "scenario": "teaching",
        "map_url": "/static/map/fixture.svg",
        "areas": {
            a: {
                "name": a.title(),
                "region": "central_asia",
                "population": 2,
                "social": 0,
                "language": "bactrian",
                "religion": "buddhism",
                "terrain": "plains",
            }
            for a in AREAS
        },
        "seas": {"IND": "Indian Ocean"},
        "powers": {
            "kushan": {"name": "Kushan", "colour": "#c88a12", "pattern": "stripes"},
            "han": {"name": "Han", "colour": "#6a2c8e", "pattern": "dots"},
        },
        "rulers": {"kujula": "Kujula Kadphises", "guangwu": "Guangwu"},
        "cards": {
            "military": {
                "kind": "advisor",
                "name": "General",
                "stature": "military",
                "endeavours": ["conquest", "pillage"],
                "text": "Leads armies.",
            },
            "corruption": {"kind": "burden", "name": "Corruption", "text": "A dead draw."},
            "ban_chao": {
                "kind": "notable",
                "name": "Ban Chao",
                "type": "military",
                "bonus": 2,
                "cost": 3,
                "note": "Protector General of the Western Regions.",
            },
        },
        "advisorNames": {"military": "General"},
        "languages": {"bactrian": "Bactrian"},
        "religions": {"buddhism": "Buddhism"},
        "seat_users": {"0": "alice", "1": "bob"},
    }


def fixture_state() -> dict[str, Any]:
    statures = {
        "military": 4,
        "administration": 3,
        "diplomacy": 2,
        "architecture": 3,
        "arts": 2,
        "philosophy": 3,
        "intrigue": 1,
    }
    players = [
        {
            "power": "kushan",
            "emperor": {"ruler": "kujula", "age": 42, "reign_years": 3, "statures": statures},
            "talents": 7,
            "influence": 3,
            "popularity": 1,
            "years_left": 4,
            "draw_count": 12,
            "discard_count": 2,
            "notables": [],
            "innovations": [],
            "holdings_count": 1,
            "court": "bactria",
            "vp": 2,
        },
        {
            "power": "han",
            "emperor": {"ruler": "guangwu", "age": 37, "reign_years": 8, "statures": statures},
            "talents": 9,
            "influence": 4,
            "popularity": 2,
            "years_left": 5,
            "draw_count": 15,
            "discard_count": 0,
            "notables": ["ban_chao"],
            "innovations": [],
            "holdings_count": 0,
            "court": "guanzhong",
            "vp": 3,
        },
    ]
    areas = {
        a: {
            "owner": OWNERS.get(a),
            "social": 0,
            "unrest": 0,
            "fort": 0,
            "ties": [],
            "claims": [],
            "partial": {},
            "buildings": [],
        }
        for a in AREAS
    }
    areas["sogdiana"].update({"ties": [0], "claims": [1], "unrest": 2})
    areas["kashgar"].update({"partial": {"1": {"dunhuang": 1}}, "fort": 1})
    areas["liang"]["buildings"] = ["road"]
    view = {
        "scenario": "teaching",
        "turn": 1,
        "year": 50,
        "round": 1,
        "phase": "turn",
        "order": [0, 1],
        "active": 0,
        "step": "drawn",
        "over": False,
        "players": players,
        "me": {
            "seat": 0,
            "hand": ["military"],
            "deck_list": ["military"] * 4 + ["corruption"],
            "discard": [],
            "holdings": [],
            "petition_cost": 1,
            "strikes": 0,
            "draw_odds": {
                "cards": 12,
                "by_type": {"military": 0.3, "administration": 0.25},
                "burden": 0.1,
                "reshuffle": False,
            },
        },
        "areas": areas,
        "market": {"row": [{"card": "ban_chao", "coins": 1}]},
        "market_deck_count": 20,
        "counters": {"pool": {"-2": 2, "-1": 3, "0": 4, "1": 3, "2": 2}, "out": {"0": 1}},
        "relations": {"0-1": "peace"},
        "score": {"0": {"total": 2, "areas": 2}, "1": {"total": 3, "areas": 3}},
    }
    legal = [{"type": "petition"}, {"type": "dismiss"}]
    for target in ("sogdiana", "kashgar"):
        for talents in range(0, 4):
            legal.append(
                {
                    "type": "endeavour",
                    "kind": "conquest",
                    "base": "bactria",
                    "target": target,
                    "talents": talents,
                }
            )
    legal.append(
        {
            "type": "endeavour",
            "kind": "pillage",
            "base": "bactria",
            "target": "kashgar",
            "talents": 0,
        }
    )
    return {
        "game_id": 1,
        "version": 7,
        "seat": 0,
        "status": "running",
        "view": view,
        "legal_actions": legal,
        "prompts": [
            {
                "seat": 0,
                "kind": "advisor",
                "label": "Act with your General, petition, or dismiss it",
            }
        ],
        "last_seq": 4,
        "events": [
            {
                "seq": 1,
                "text": "Kujula Kadphises draws an advisor (10.2).",
                "rule": "10.2",
                "to": None,
            },
            {"seq": 2, "text": "You drew a General.", "rule": None, "to": [0]},
            {"seq": 3, "text": "The Han court fortifies Kashgar.", "rule": "14.1", "to": None},
            {
                "seq": 4,
                "text": "No choice: that was the only move open to you, so it was played at once.",
                "rule": None,
                "kind": "forced",
                "to": [0],
                "forced": True,
            },
        ],
    }


def build_app(state: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> FastAPI:
    """The page against `state` (a seat view payload); `meta` replaces the fixture's
    (e.g. the real map and content, for a state built by the engine)."""
    app = FastAPI()
    app.state.game = state or fixture_state()
    app.state.meta = meta or fixture_meta()
    app.state.sent = []
    app.state.explain = None
    templates = Jinja2Templates(directory=str(ROOT / "templates"))

    @app.get("/static/map/fixture.svg")
    def svg() -> Response:
        return Response(fixture_svg(), media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=str(ROOT / "static")), name="static")

    @app.get("/games/1", response_class=HTMLResponse)
    def page(request: Request) -> Any:
        return templates.TemplateResponse(
            request,
            "game.html",
            {"title": app.state.meta["title"], "meta": app.state.meta, "csrf_token": "x"},
        )

    @app.get("/api/games/1/view")
    def view() -> Any:
        return app.state.game

    @app.get("/api/games/1/explain")
    def explain(action: str) -> Any:
        a = json.loads(action)
        custom = getattr(app.state, "explain", None)  # a test's own breakdowns
        if custom is not None and (found := custom(a)) is not None:
            return found
        if a["type"] == "endeavour":
            t = a.get("talents", 0)
            return {
                "type": "endeavour",
                "kind": a["kind"],
                "rule": "10",
                "terms": [
                    {"term": "Kujula Kadphises's military stature", "value": 4, "rule": "9.31"},
                    {"term": "population of the target", "value": -2, "rule": "9.32"},
                    {"term": "talents committed", "value": t, "rule": "9.33"},
                    {"term": "distance from the base", "value": 1, "rule": "9.34"},
                ],
                "rating": 3 + t,
                "cost": 2 + t,
                "cost_terms": [{"term": "conquest cost", "value": 2, "rule": "10"}],
                "odds": {"C": 0.55, "-1B": 0.2, "none": 0.25},
                "results": {
                    "C": "conquest (one C result)",
                    "-1B": "your base area loses a social level",
                    "none": "no effect",
                },
            }
        if a["type"] == "petition":
            return {"type": "petition", "cost": 1, "bust_odds": 0.1, "strike_odds": 0.1, "pile": 12}
        return {"note": "no breakdown"}

    @app.post("/api/games/1/actions")
    async def act(request: Request) -> Any:
        body = await request.json()
        app.state.sent.append(body)
        if body["expected_version"] != app.state.game["version"]:
            return JSONResponse(
                {"detail": "The game has moved on.", "current_version": app.state.game["version"]},
                status_code=409,
            )
        if body["action"] not in app.state.game["legal_actions"]:
            return JSONResponse({"detail": "That is not a legal move now."}, status_code=422)
        new = copy.deepcopy(app.state.game)
        new["version"] += 1
        new["legal_actions"] = []
        new["prompts"] = [{"seat": 1, "kind": "defend", "label": "Defend Kashgar?"}]
        app.state.game = new
        return {"version": new["version"]}

    return app


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(build_app(), host="127.0.0.1", port=8765)
