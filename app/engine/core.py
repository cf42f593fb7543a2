"""Shared helpers over the plain-JSON state: content lookups, geography,
events, players and areas. Everything here is pure and deterministic."""

from __future__ import annotations

from collections import deque
from typing import Any

from app.engine import memo
from app.engine.clone import copy_area
from app.engine.content import _OVERRIDE, Content, active, content
from app.engine.memo import owned_index, tracked

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

STATURES = (
    "military",
    "administration",
    "diplomacy",
    "architecture",
    "arts",
    "philosophy",
    "intrigue",
)

# 6.2: what each advisor type may undertake (the content's advisors.json may list
# fewer; the engine never offers an endeavour it does not implement).
DEFAULT_ENDEAVOURS: dict[str, list[str]] = {
    "military": ["conquest", "pillage", "suppress"],
    "administration": ["ruling", "reform", "census"],
    "diplomacy": ["diplomacy", "claim", "tribute"],
    "architecture": ["fortify", "build"],
    "arts": ["festival", "patronage", "assimilate"],
    "philosophy": ["science", "convert", "purge"],
    "intrigue": ["plot_coup", "plot_bribe", "plot_assassinate", "spy", "purge"],
}


def cx() -> Content:
    return active()


class Geo:
    """The map as graphs, built once per content pack."""

    def __init__(self, pack: Content) -> None:
        self.areas: dict[str, dict[str, Any]] = {a["id"]: a for a in pack.get("areas", [])}
        self.land: dict[str, set[str]] = {a: set() for a in self.areas}
        self.link_kind: dict[tuple[str, str], str] = {}
        for link in pack.get("links", []):
            a, b = link["a"], link["b"]
            if a in self.land and b in self.land:
                self.land[a].add(b)
                self.land[b].add(a)
                self.link_kind[(a, b)] = self.link_kind[(b, a)] = link.get("kind", "land")
        self.seas: dict[str, set[str]] = {}
        for sea in pack.get("seas", []):
            self.seas.setdefault(sea["id"], set()).update(sea.get("adjacent", []))
        for sea_id, adj in list(self.seas.items()):
            for other in adj:
                self.seas.setdefault(other, set()).add(sea_id)
        self.coasts: dict[str, set[str]] = {
            a: {s for s in data.get("coasts", []) if s in self.seas}
            for a, data in self.areas.items()
        }
        self.sea_coast: dict[str, set[str]] = {s: set() for s in self.seas}
        for a, seas in self.coasts.items():
            for s in seas:
                self.sea_coast[s].add(a)
        # (kind, ref) -> (name, type) of a card: filled as cards are first shown.
        self.card_info: dict[tuple[str, str], tuple[str, str | None]] = {}
        self.lang_family: dict[str, str] = {}
        for fam, data in (pack.get("languages") or {}).items():
            for lang in data.get("languages", {}):
                self.lang_family[lang] = fam
        self.rel_family: dict[str, str] = {}
        self.religion: dict[str, dict[str, Any]] = {}
        for fam, data in (pack.get("religions") or {}).items():
            for rel, info in data.get("religions", {}).items():
                self.rel_family[rel] = fam
                self.religion[rel] = info if isinstance(info, dict) else {"name": info}
        # 10.12: areas reachable across one sea zone or two adjacent ones
        self.sea_near: dict[str, set[str]] = {a: set() for a in self.areas}
        for a, seas in self.coasts.items():
            zones = set(seas)
            for z in seas:
                zones |= self.seas.get(z, set())
            for z in zones:
                self.sea_near[a] |= self.sea_coast.get(z, set())
            self.sea_near[a].discard(a)
        self.rulers = {r["id"]: r for r in pack.get("rulers", [])}
        self.notables = {n["id"]: n for n in pack.get("notables", [])}
        self.burdens = {b["id"]: b for b in pack.get("burdens", [])}
        self.fate = {f["id"]: f for f in pack.get("fate", [])}
        self.innovations = {i["id"]: i for i in pack.get("innovations", [])}
        self.buildings = {b["id"]: b for b in pack.get("buildings", [])}
        self.scenarios = {s["id"]: s for s in pack.get("scenarios", [])}
        advisors = pack.get("advisors") or {}
        self.endeavours: dict[str, list[str]] = {}
        for stature, kinds in DEFAULT_ENDEAVOURS.items():
            listed = advisors.get(stature, {}).get("endeavours") if advisors else None
            self.endeavours[stature] = [k for k in kinds if not listed or k in listed] or kinds

    def language_diff(self, a: str | None, b: str | None) -> int:
        """9.34: 0 same language, 1 same family, 2 otherwise."""
        if a is not None and a == b:
            return 0
        fa, fb = self.lang_family.get(a or ""), self.lang_family.get(b or "")
        return 1 if fa is not None and fa == fb else 2

    def religion_diff(self, a: str | None, b: str | None) -> int:
        """9.35: 0 same religion, 1 same family, 2 otherwise."""
        if a is not None and a == b:
            return 0
        fa, fb = self.rel_family.get(a or ""), self.rel_family.get(b or "")
        return 1 if fa is not None and fa == fb else 2

    def adjacent_by_sea(self, a: str, b: str) -> bool:
        """Two coastal areas on one sea zone or on two adjacent zones (10.12)."""
        for s in self.coasts.get(a, ()):
            for t in self.coasts.get(b, ()):
                if s == t or t in self.seas.get(s, ()):
                    return True
        return False


_GEO: dict[str, Geo] = {}


_LAST: list[Any] = [None, None]


def geo() -> Geo:
    pack = _OVERRIDE[-1] if _OVERRIDE else content()  # = cx(), inlined: called very often
    if pack is _LAST[0]:
        last: Geo = _LAST[1]
        return last
    g = _GEO.get(pack.hash)
    if g is None:
        g = Geo(pack)
        _GEO[pack.hash] = g
    _LAST[0], _LAST[1] = pack, g
    return g


# ---------------------------------------------------------------- events


def emit(
    state: State,
    events: list[Event],
    text: str,
    rule: str | None = None,
    kind: str = "info",
    to: list[int] | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    state["log_seq"] += 1
    events.append(
        {
            "seq": state["log_seq"],
            "text": text,
            "rule": rule,
            "to": to,
            "kind": kind,
            "data": data or {},
        }
    )


# ---------------------------------------------------------------- players


def faith_allows_claim(state: State, seat: int, area_id: str) -> bool:
    """18.12: a claim needs an area of the emperor's religion, "but not necessarily
    the same Church": the same religion family counts, as it does in 9.35."""
    emperor_faith = state["players"][seat]["emperor"]["religion"]
    return geo().religion_diff(emperor_faith, state["areas"][area_id]["religion"]) <= 1


def player(state: State, seat: int) -> dict[str, Any]:
    p: dict[str, Any] = state["players"][seat]
    return p


def leader(state: State, seat: int) -> dict[str, Any]:
    e: dict[str, Any] = player(state, seat)["emperor"]
    return e


def name(state: State, seat: int | None) -> str:
    if seat is None:
        return "the independents"
    return str(state["players"][seat]["name"])


def seat_of_power(state: State, power: str) -> int | None:
    for i, p in enumerate(state["players"]):
        if p["power"] == power:
            return i
    return None


def owned(state: State, seat: int) -> list[str]:
    """The seat's areas, sorted. Inside an engine call the answer comes from an
    index kept up to date as areas change hands (`memo.owned_index`), not from
    a scan of the map."""
    areas = state["areas"]
    index = owned_index(state)
    if index is None:
        return sorted([a for a, s in areas.items() if s["owner"] == seat])
    return index.get(seat, [])[:]


def seats(state: State) -> list[int]:
    return list(range(len(state["players"])))


def rel_key(a: int, b: int) -> str:
    lo, hi = sorted((a, b))
    return f"{lo}|{hi}"


def relation(state: State, a: int, b: int) -> dict[str, Any]:
    rel: dict[str, Any] = state["relations"]["pairs"][rel_key(a, b)]
    return rel


def hegemon_of(state: State, seat: int) -> int:
    """3.5: the head of a seat's coalition (itself when it leads one or stands alone)."""
    for head, juniors in state["relations"]["coalitions"].items():
        if seat in juniors:
            return int(head)
    return seat


def same_coalition(state: State, a: int, b: int) -> bool:
    return hegemon_of(state, a) == hegemon_of(state, b)


def own_area(state: State, area_id: str) -> dict[str, Any]:
    """The record of `area_id` to change. Every change to an area goes through here:
    in `apply` the new state shares the unchanged records with the state it came from
    (``clone.copy_state``'s `share_areas`), and a record is copied here before its
    first change, so the state `apply` was given is never changed
    (docs/engine-contract.md, "In place"; tests/engine_properties/test_card_sharing.py)."""
    areas = state["areas"]
    record: dict[str, Any] = areas[area_id]
    owned = memo.copied_on_write(areas)
    if owned is None or id(record) in owned:
        return record
    record = areas[area_id] = copy_area(record)
    owned.add(id(record))
    return record


def at_war(state: State, a: int, b: int) -> bool:
    """3.21 and 3.55: two powers are at war when they are, or when the head of one's
    coalition is at war with the other or with the head of the other's coalition."""
    if a == b or same_coalition(state, a, b):
        return False
    ha, hb = hegemon_of(state, a), hegemon_of(state, b)
    pairs = {(a, b), (ha, b), (a, hb), (ha, hb)}
    return any(x != y and relation(state, x, y)["status"] == "war" for x, y in pairs)


def may_attack(state: State, seat: int, owner: int | None) -> bool:
    """2.5: independents can always be attacked; another player's areas need war."""
    return owner is None or (owner != seat and at_war(state, seat, owner))


def deck_cards(p: dict[str, Any]) -> list[dict[str, Any]]:
    deck = p["deck"]
    cards = list(deck["draw"]) + list(deck["discard"])
    if deck["hand"] is not None:
        cards.append(deck["hand"])
    return cards


def card_type(card: dict[str, Any]) -> str | None:
    """The advisor type (stature) of a card, None for a burden."""
    if card["kind"] == "advisor":
        return str(card["ref"])
    if card["kind"] == "notable":
        n = geo().notables.get(card["ref"])
        return str(n["type"]) if n else None
    return None


def card_name(card: dict[str, Any]) -> str:
    g = geo()
    if card["kind"] == "advisor":
        return ADVISOR_NAMES.get(card["ref"], card["ref"])
    if card["kind"] == "notable":
        return str(g.notables.get(card["ref"], {}).get("name", card["ref"]))
    return str(g.burdens.get(card["ref"], {}).get("name", card["ref"]))


def card_info(card: dict[str, Any]) -> tuple[str, str | None]:
    """(`card_name`, `card_type`) of a card, worked out once per kind and ref."""
    known = geo().card_info
    key = (card["kind"], card["ref"])
    info = known.get(key)
    if info is None:
        info = known[key] = (card_name(card), card_type(card))
    return info


ADVISOR_NAMES = {
    "military": "General",
    "administration": "Governor",
    "diplomacy": "Diplomat",
    "architecture": "Architect",
    "arts": "Artist",
    "philosophy": "Philosopher",
    "intrigue": "Secret agent",
}


def abilities(state: State, seat: int) -> tuple[dict[str, Any], ...]:
    """Every lasting effect working for a seat: notables in its deck (6.4),
    innovations (6.7) and holding cards played for good (19.4). Once per
    position on a tracked state (`memo`), outside a move; and once per state
    while legal actions are worked out (`memo.READING`: every price, cost and
    sea zone asks)."""
    entry = tracked(state)
    if entry is None or entry.moving:
        reads = memo.LOCAL.reads
        if reads is None:
            return _abilities(state, seat)
        key = (id(state), seat)
        known = reads.get(key)
        if known is None or known[0] is not state:
            known = reads[key] = (state, _abilities(state, seat))
        found: tuple[dict[str, Any], ...] = known[1]
        return found
    hit = entry.abilities.get(seat)
    if hit is None:
        hit = entry.abilities[seat] = _abilities(state, seat)
    return hit


def _abilities(state: State, seat: int) -> tuple[dict[str, Any], ...]:
    g = geo()
    p = player(state, seat)
    out: list[dict[str, Any]] = []
    for card in deck_cards(p):
        if card["kind"] == "notable":
            ability = g.notables.get(card["ref"], {}).get("ability")
            if ability:
                out.append(ability)
    for inn in p["innovations"]:
        eff = g.innovations.get(inn, {}).get("effect")
        if eff:
            out.append(eff)
    for held in p["in_play"]:
        eff = g.fate.get(held, {}).get("effect")
        if eff:
            out.append(eff)
    return tuple(out)


def ability_sum(state: State, seat: int, op: str, endeavour: str | None = None) -> int:
    total = 0
    for eff in abilities(state, seat):
        if eff.get("op") != op:
            continue
        if endeavour is not None and eff.get("endeavour") not in (None, endeavour):
            continue
        total += int(eff.get("amount", 1))
    return total


def has_ability(state: State, seat: int, op: str) -> bool:
    return any(eff.get("op") == op for eff in abilities(state, seat))


def parley_weight(state: State, seat: int) -> int:
    """20.4: a power's votes in a parley: its Diplomacy, and notables' parley votes."""
    p = player(state, seat)
    return int(p["emperor"]["statures"].get("diplomacy", 0)) + ability_sum(
        state, seat, "parley_votes"
    )


def clamp_popularity(p: dict[str, Any]) -> None:
    p["popularity"] = max(0, min(10, p["popularity"]))
    p["influence"] = max(0, p["influence"])
    p["talents"] = max(0, p["talents"])


# ---------------------------------------------------------------- lines of communication


# loc_costs memo: (map, start, the seat's areas, its roads) -> costs. The costs
# depend on nothing else, the key is cheap to build and a game changes hands
# rarely, so nearly every call (legal actions, explain, view) is a hit. Pure
# memoisation of a pure function: it changes no result, only the time taken.
_LOC_MEMO: dict[tuple[Any, ...], tuple[Geo, dict[str, int]]] = {}
_LOC_MEMO_MAX = 2048


def loc_costs(state: State, seat: int, origin: str | None = None) -> dict[str, int]:
    """9.17: the sea cost of the cheapest line of communications (memoised; see
    `_loc_costs`). Returns a fresh dict the caller may keep or change."""
    g = geo()
    start = origin or player(state, seat)["court"]
    if start is None or start not in g.areas:
        return {}
    areas = state["areas"]
    index = owned_index(state)
    mine = (
        tuple(a for a, s in areas.items() if s["owner"] == seat)
        if index is None
        else tuple(index.get(seat, ()))
    )
    roads = tuple(a for a in mine if "road" in areas[a]["buildings"])
    key = (id(g), start, mine, roads)
    hit = _LOC_MEMO.get(key)
    if hit is None or hit[0] is not g:
        if len(_LOC_MEMO) >= _LOC_MEMO_MAX:
            _LOC_MEMO.clear()
        hit = (g, _loc_costs(state, seat, origin))
        _LOC_MEMO[key] = hit
    return dict(hit[1])


def _loc_costs(state: State, seat: int, origin: str | None = None) -> dict[str, int]:
    """9.17: the sea cost of the cheapest line of communications from the court
    (or ``origin``) to every area it reaches. Lines run overland through the
    seat's own areas (free) and across sea zones (one talent per zone entered);
    the last area may belong to anyone. An area with the seat's road is reached
    at no sea cost if it is reached at all (8.2)."""
    g = geo()
    start = origin or player(state, seat)["court"]
    if start is None or start not in g.areas:
        return {}
    areas = state["areas"]
    best: dict[str, int] = {}
    sea_best: dict[str, int] = {}
    dq: deque[tuple[int, str, bool]] = deque([(0, start, False)])
    while dq:
        cost, node, is_sea = dq.popleft()
        if is_sea:
            if sea_best.get(node, 1 << 30) < cost:
                continue
            for other in g.seas.get(node, ()):
                if cost + 1 < sea_best.get(other, 1 << 30):
                    sea_best[other] = cost + 1
                    dq.append((cost + 1, other, True))
            for a in g.sea_coast.get(node, ()):
                if cost < best.get(a, 1 << 30):
                    best[a] = cost
                    dq.appendleft((cost, a, False))
            continue
        if best.get(node, 1 << 30) < cost:
            continue
        best.setdefault(node, cost)
        if node != start and areas[node]["owner"] != seat:
            continue  # lines pass only through the seat's own areas
        for nb in g.land.get(node, ()):
            if cost < best.get(nb, 1 << 30):
                best[nb] = cost
                dq.appendleft((cost, nb, False))
        for s in g.coasts.get(node, ()):
            if cost + 1 < sea_best.get(s, 1 << 30):
                sea_best[s] = cost + 1
                dq.append((cost + 1, s, True))
    for a in list(best):
        if "road" in areas[a]["buildings"] and areas[a]["owner"] == seat:
            best[a] = 0
    return best


def connected_to_court(state: State, seat: int, costs: dict[str, int] | None = None) -> set[str]:
    """16.13 / 7.51: own areas reached by a line of communications from the court."""
    costs = loc_costs(state, seat) if costs is None else costs
    return {a for a in owned(state, seat) if a in costs}
