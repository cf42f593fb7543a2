"""The world that acts on its own: the state's ``world`` record and the knobs of
``app/content/data/world.json`` (docs/rules.md 17.5, 19.34, 24).

``state["world"]``:

- ``usurpers`` {id: {``id``, ``name``, ``court``, ``areas`` (court first),
  ``rating``, ``language``, ``religion``, ``rebel_of``, ``since``}} (17.5);
- ``next_usurper``: the number of the next usurper's id (``u1``, ``u2`` …);
- ``acted``: ``[turn, round]`` of the last round's end at which the usurpers
  acted (17.52), so an end of round that waits for a defender does not make
  them act twice;
- ``hordes`` {id: {``strength``, ``target``, ``rode``}} (24.1): ``target`` the
  area the horde threatens this game turn (24.12), ``rode`` the game turn it
  last rode;
- ``raid``: the raid waiting for its defender's answer (24.13), or ``None``.

Everything in it is public (the view shows it whole).
"""

from __future__ import annotations

from typing import Any

from app.engine.core import State, cx, geo

DEFAULTS: dict[str, dict[str, Any]] = {
    "usurpers": {
        "margin": 3,
        "rating": [2, 4],
        "stir_first": 3,
        "agitation": 2,
        "expand_at": 7,
        "max_areas": 4,
        "buy_off": {"per_rating": 2, "per_population": 2},
    },
    "nomads": {
        "raid": {
            "sack_at": 10,
            "raid_at": 7,
            "growth": 1,
            "setback": 2,
            "victory_popularity": 1,
        },
        "tribute": {"per_strength": 0.5, "min": 1},
        "hordes": [],
    },
    "heirless": {"unrest_areas": 2},
}


# Both read only the pack, which never changes: worked out once per pack (by its
# hash) and shared. Callers only read them.
_KNOBS: dict[tuple[str, str], dict[str, Any]] = {}
_HORDES: dict[str, list[dict[str, Any]]] = {}


def knobs(section: str) -> dict[str, Any]:
    """The pack's ``world.json`` section over the defaults (a pack without the
    file plays with no hordes and the default usurpers). Read only."""
    pack = cx()
    out = _KNOBS.get((pack.hash, section))
    if out is None:
        out = dict(DEFAULTS[section])
        out.update((pack.get("world") or {}).get(section) or {})
        _KNOBS[(pack.hash, section)] = out
    return out


def hordes_of_pack() -> list[dict[str, Any]]:
    """The hordes of the pack whose homeland lies on the map. Read only."""
    pack = cx()
    out = _HORDES.get(pack.hash)
    if out is None:
        g = geo()
        out = [
            h
            for h in knobs("nomads").get("hordes") or []
            if any(a in g.areas for a in h.get("homeland", []))
        ]
        _HORDES[pack.hash] = out
    return out


def new_world() -> dict[str, Any]:
    return {
        "usurpers": {},
        "next_usurper": 1,
        "acted": None,
        "hordes": {
            h["id"]: {"strength": int(h["strength"]), "target": None, "rode": 0}
            for h in hordes_of_pack()
        },
        "raid": None,
    }


def world(state: State) -> dict[str, Any]:
    w: dict[str, Any] = state["world"]
    return w
