"""The usurpers' records (docs/rules.md 17.5-17.57): who they are, their courts
(12.16), the areas they hold (17.53 an area joins one; 17.57 one is lost, and
with his court he falls) and their price (17.56); the public view. What they do
is in `usurpers`; a rebellion raises one in `economy` (17.5). Their records live
in ``state["world"]["usurpers"]`` (``world.py``) and each of their areas names
its usurper (``areas[a]["usurper"]``)."""

from __future__ import annotations

from typing import Any

from app.engine.core import State, emit, geo, own_area
from app.engine.world import knobs, world

Event = dict[str, Any]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def usurpers(state: State) -> dict[str, dict[str, Any]]:
    u: dict[str, dict[str, Any]] = world(state)["usurpers"]
    return u


def courts(state: State) -> set[str]:
    """12.16: the usurpers' courts, never a target of diplomacy."""
    return {u["court"] for u in usurpers(state).values()}


def of_area(state: State, area_id: str) -> dict[str, Any] | None:
    uid = state["areas"][area_id]["usurper"]
    return usurpers(state).get(uid) if uid else None


def population(state: State, u: dict[str, Any]) -> int:
    g = geo()
    return sum(int(g.areas[a].get("population", 1)) for a in u["areas"])


def price(state: State, u: dict[str, Any]) -> int:
    """17.56: per_rating x rating + per_population x the population he holds."""
    k = knobs("usurpers")["buy_off"]
    return int(k["per_rating"]) * int(u["rating"]) + int(k["per_population"]) * population(state, u)


def _same_culture(state: State, u: dict[str, Any], area_id: str) -> bool:
    """17.53: an area of the usurper's culture shares his language family or his
    religion family (9.34, 9.35: a difference of 0 or 1)."""
    g = geo()
    area = state["areas"][area_id]
    return (
        g.language_diff(u["language"], area["language"]) <= 1
        or g.religion_diff(u["religion"], area["religion"]) <= 1
    )


def join(state: State, uid: str, area_id: str) -> None:
    """An area comes under a usurper (17.53, 17.54)."""
    own_area(state, area_id)["usurper"] = uid
    usurpers(state)[uid]["areas"].append(area_id)


def area_lost(state: State, area_id: str, events: list[Event]) -> None:
    """17.57: an area of a usurper changes hands. Taking his court brings him down:
    his other areas stay independent, without him."""
    g = geo()
    u = of_area(state, area_id)
    own_area(state, area_id)["usurper"] = None
    if u is None:
        return
    if area_id != u["court"]:
        u["areas"].remove(area_id)
        emit(
            state,
            events,
            f"{g.areas[area_id]['name']} is lost to {u['name']}.",
            "17.57",
            "usurper",
            data={"usurper": u["id"], "area": area_id, "event": "lost"},
        )
        return
    for a in u["areas"]:
        own_area(state, a)["usurper"] = None
    del usurpers(state)[u["id"]]
    emit(
        state,
        events,
        f"{_cap(u['name'])} falls with his court, {g.areas[area_id]['name']}.",
        "17.57",
        "usurper",
        data={"usurper": u["id"], "area": area_id, "event": "fell"},
    )


def view(state: State) -> list[dict[str, Any]]:
    """17.5: every usurper, his court, areas, rating, culture and price (public)."""
    return [
        {
            "id": u["id"],
            "name": u["name"],
            "court": u["court"],
            "areas": list(u["areas"]),
            "rating": u["rating"],
            "language": u["language"],
            "religion": u["religion"],
            "rebel_of": u["rebel_of"],
            "since": u["since"],
            "price": price(state, u),
        }
        for u in sorted(usurpers(state).values(), key=lambda x: int(x["id"][1:]))
    ]
