"""The Court market of notables (docs/rules.md 6.5-6.8): a Pax Pamir row where
the leftmost card is cheapest and every skipped card gains a coin."""

from __future__ import annotations

from typing import Any

from app.engine import rng
from app.engine.core import State, ability_sum, emit, geo, name, player
from app.engine.deck import new_card
from app.engine.rules import MARKET_SIZE


def new_market(state: State, start_year: int, end_year: int) -> dict[str, Any]:
    g = geo()
    deck = []
    held = {c["ref"] for p in state["players"] for c in p["deck"]["draw"] if c["kind"] == "notable"}
    for nid, n in sorted(g.notables.items()):
        if nid in held:
            continue  # already at a court from the scenario
        era = n.get("era") or [start_year, end_year]
        if int(era[0]) <= end_year and int(era[1]) >= start_year:
            deck.append(nid)
    rng.shuffle(state, deck)
    row = [{"card": deck.pop(0), "coins": 0} for _ in range(min(MARKET_SIZE, len(deck)))]
    return {"row": row, "deck": deck, "discard": []}


def price(state: State, seat: int, slot: int) -> int:
    """6.5: base cost plus one per card skipped, less any discount."""
    g = geo()
    card = state["market"]["row"][slot]["card"]
    base = int(g.notables[card].get("cost", 2))
    return max(0, base - ability_sum(state, seat, "cheaper_market")) + slot


def recruit_options(state: State, seat: int) -> list[dict[str, Any]]:
    p = player(state, seat)
    if p["recruited"]:
        return []  # 6.6: one recruit per player turn
    out = []
    for slot in range(len(state["market"]["row"])):
        cost = price(state, seat, slot)
        if p["talents"] >= cost:
            out.append({"type": "recruit", "slot": slot, "pay": "talents"})
        if p["influence"] >= cost:
            out.append({"type": "recruit", "slot": slot, "pay": "influence"})
    return out


def recruit(state: State, seat: int, slot: int, pay: str, events: list[dict[str, Any]]) -> None:
    """6.6: pay, put a coin on every skipped card, take the coins on the recruit;
    the notable goes to the discard pile."""
    g = geo()
    p = player(state, seat)
    row = state["market"]["row"]
    cost = price(state, seat, slot)
    p["talents" if pay == "talents" else "influence"] -= cost
    for i in range(slot):
        row[i]["coins"] += 1
    taken = row.pop(slot)
    p["talents"] += taken["coins"]
    p["recruited"] = True
    p["deck"]["discard"].append(new_card(state, "notable", taken["card"]))
    emit(
        state,
        events,
        f"{name(state, seat)} recruits {g.notables[taken['card']]['name']} for {cost} {pay} (taking {taken['coins']} coins).",
        "6.6",
        "market",
        data={"notable": taken["card"]},
    )
    refill(state)


def refill(state: State) -> None:
    m = state["market"]
    while len(m["row"]) < MARKET_SIZE and m["deck"]:
        m["row"].append({"card": m["deck"].pop(0), "coins": 0})


def drop_leftmost(state: State, events: list[dict[str, Any]]) -> None:
    """6.8: the leftmost notable leaves the row (its coins return to the bank)."""
    g = geo()
    m = state["market"]
    if not m["row"]:
        return
    gone = m["row"].pop(0)
    m["discard"].append(gone["card"])
    emit(
        state,
        events,
        f"{g.notables[gone['card']]['name']} leaves the Court market.",
        "6.8",
        "market",
    )
    refill(state)


def upkeep(state: State, events: list[dict[str, Any]]) -> None:
    """6.8: at each game turn's upkeep the leftmost notable and any notable whose
    era has ended leave; the row refills."""
    g = geo()
    drop_leftmost(state, events)
    m = state["market"]
    keep = []
    for entry in m["row"]:
        era = g.notables[entry["card"]].get("era") or [-10000, 10000]
        if int(era[1]) < state["year"]:
            m["discard"].append(entry["card"])
        else:
            keep.append(entry)
    m["row"] = keep
    refill(state)
