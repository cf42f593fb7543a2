"""What a seat may see (built by allowlist) and `explain` (docs/engine-contract.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from app.engine import grand, grand_record, memo, nomads, overreach, usurpers
from app.engine.core import State, card_info, geo, has_ability, player
from app.engine.deck import draw_odds, next_draw_pile, petition_cost, petition_pile, strike_types
from app.engine.defense import defense_cost, defense_terms
from app.engine.economy import rebellion_odds, rebellion_terms
from app.engine.endeavours import base_cost, endeavour_is_open, rating, result_odds
from app.engine.errors import IllegalAction
from app.engine.market import price
from app.engine.politics import (
    explain_call_parley,
    explain_cancel,
    explain_diplo,
    explain_play,
    explain_recruit,
    explain_renounce,
    explain_vote,
    politics_part,
    taking_breaks,
)
from app.engine.prompts import pending
from app.engine.rules import RESULT_TEXT, SPECS
from app.engine.scoring import score

AREA_KEYS = (
    "owner",
    "social",
    "unrest",
    "fort",
    "ties",
    "claims",
    "partial",
    "buildings",
    "language",
    "religion",
    "usurper",
    "rebel_of",
)


def _card(card: dict[str, Any] | None) -> dict[str, Any] | None:
    if card is None:
        return None
    name, advisor_type = card_info(card)
    return {
        "id": card["id"],
        "kind": card["kind"],
        "ref": card["ref"],
        "name": name,
        "type": advisor_type,
    }


def _public_player(state: State, seat: int) -> dict[str, Any]:
    p = player(state, seat)
    e = p["emperor"]
    return {
        "seat": seat,
        "power": p["power"],
        "name": p["name"],
        "colour": p.get("colour"),
        "emperor": {
            "ruler": e["ruler"],
            "name": e["name"],
            "age": e["age"],
            "reign_years": e["reign_years"],
            "statures": dict(e["statures"]),
            "language": e["language"],
            "religion": e["religion"],
        },
        "fallen": [dict(f) for f in p["fallen"]],
        "talents": p["talents"],
        "influence": p["influence"],
        "popularity": p["popularity"],
        "years_left": p["years_left"],
        "draw_count": len(p["deck"]["draw"]),
        "discard_count": len(p["deck"]["discard"]),
        "has_hand": p["deck"]["hand"] is not None,
        "notables": sorted(
            c["ref"]
            for c in p["deck"]["draw"]
            + p["deck"]["discard"]
            + ([p["deck"]["hand"]] if p["deck"]["hand"] else [])
            if c["kind"] == "notable"
        ),
        "innovations": list(p["innovations"]),
        "in_play": list(p["in_play"]),
        "holdings_count": len(p["holdings"]),
        "court": p["court"],
        "exiled": p["exiled"],
        "asylum": p["asylum"],
        "accursed": p["accursed"],
        "vp": p["vp"],
        "strikes": p["strikes"],
        "petitions": p["petitions"],
    }


def _check_seat(state: State, seat: int | None) -> None:
    n = len(state["players"])
    if seat is not None and not (type(seat) is int and 0 <= seat < n):
        raise IllegalAction("There is no such seat in this game.", "bad_seat")


def _view_area(x: dict[str, Any]) -> dict[str, Any]:
    """The allowlisted AREA_KEYS, in that order, deep-copied: ties, claims and
    buildings hold scalars and partial is {seat: {base: n}}
    (docs/engine-contract.md), so copying the containers is a deep copy, at a
    third of the cost of a ``marshal`` round trip."""
    partial = x["partial"]
    return {
        "owner": x["owner"],
        "social": x["social"],
        "unrest": x["unrest"],
        "fort": x["fort"],
        "ties": x["ties"][:],
        "claims": x["claims"][:],
        # most areas have none: no comprehension (a frame of its own) for an empty map
        "partial": {s: bases.copy() for s, bases in partial.items()} if partial else {},
        "buildings": x["buildings"][:],
        "language": x["language"],
        "religion": x["religion"],
        "usurper": x["usurper"],
        "rebel_of": x["rebel_of"],
    }


def _players(state: State, seat: int | None) -> list[dict[str, Any]]:
    return [_public_player(state, s) for s in range(len(state["players"]))]


def _areas(state: State, seat: int | None) -> dict[str, Any]:
    return {a: _view_area(x) for a, x in state["areas"].items()}


def _market(state: State, seat: int | None) -> dict[str, Any]:
    g = geo()
    return {
        "row": [
            {"card": e["card"], "name": g.notables[e["card"]]["name"], "coins": e["coins"]}
            for e in state["market"]["row"]
        ],
        "deck_count": len(state["market"]["deck"]),
    }


def _interrupt(state: State, seat: int | None) -> dict[str, Any] | None:
    it = state["interrupt"]
    raid = nomads.pending_raid(state)
    if it is None and raid is not None:  # 24.13: a horde's raid waits for its defender
        return {
            "attacker": None,
            "horde": raid["horde"],
            "horde_name": nomads.horde_name(state, raid["horde"]),
            "defender": raid["defender"],
            "kind": "raid",
            "base": None,
            "target": raid["area"],
            "rating": raid["rating"],
            "terms": [dict(t) for t in raid["terms"]],
        }
    if it is None:
        return None
    return {
        "attacker": it["attacker"],
        "defender": it["defender"],
        "kind": it["action"]["kind"],
        "base": it["action"]["base"],
        "target": it["action"]["target"],
        "rating": it["rating"],
        "terms": [dict(t) for t in it["terms"]],
    }


def _world(state: State, seat: int | None) -> dict[str, Any]:
    """17.5, 24 and 4.9: the usurpers, the hordes and the leader's overreach, public
    to all."""
    return {
        "usurpers": usurpers.view(state),
        "hordes": nomads.view(state),
        "overreach": overreach.view(state),
    }


def _parley(state: State, seat: int | None) -> dict[str, Any] | None:
    pa = state["parley"]
    if pa is None:
        return None
    done = len(pa["votes"]) == len(pa["eligible"])
    return {
        "question": pa["question"],
        "caller": pa["caller"],
        "area": pa["area"],
        "against": pa.get("against"),
        "agreement": pa.get("agreement"),
        "eligible": list(pa["eligible"]),
        "weights": dict(pa["weights"]),
        "voted": sorted(int(s) for s in pa["votes"]),
        "votes": dict(pa["votes"]) if done else None,
    }


def _request(state: State, seat: int | None) -> dict[str, Any] | None:
    rq = state["request"]
    if rq is None:
        return None
    return {
        "kind": rq["kind"],
        "seat": rq["seat"],
        "area": rq["area"],
        "ask": list(rq["ask"]),
        "answered": sorted(int(s) for s in rq["answers"]),
    }


def _diplomacy(state: State, seat: int | None) -> dict[str, Any] | None:
    d = state["diplo"]
    if d is None:
        return None
    return {
        "pos": d["pos"],
        "passes": d["passes"],
        "proposal": dict(d["proposal"]) if d["proposal"] else None,
    }


def _initiative(state: State, seat: int | None) -> dict[str, Any] | None:
    ini = state["initiative"]
    if ini is None:
        return None
    return {
        "rolls": dict(ini["rolls"]),
        "pickers": list(ini["pickers"]),
        "slots": list(ini["slots"]),
    }


Part = Callable[[State, Any], Any]

# The public part of a view, key by key, in the order `view` lists them. Both
# `view` (all at once) and `seat_view` (a key when it is read) build from here.
PARTS: tuple[tuple[str, Part], ...] = (
    ("scenario", lambda st, s: st["scenario"]),
    ("turn", lambda st, s: st["turn"]),
    ("end_turn", lambda st, s: st["end_turn"]),
    ("year", lambda st, s: st["year"]),
    ("round", lambda st, s: st["round"]),
    ("rounds", lambda st, s: st["rounds"]),
    ("phase", lambda st, s: st["phase"]),
    ("order", lambda st, s: list(st["order"])),
    ("active", lambda st, s: st["active"]),
    ("step", lambda st, s: st["step"]),
    ("over", lambda st, s: st["over"]),
    ("players", _players),
    ("areas", _areas),
    ("market", _market),
    (
        "counters",
        lambda st, s: {
            "pool": dict(sorted(Counter(st["counters"]["pool"]).items())),
            "out": list(st["counters"]["out"]),
        },
    ),
    ("fate_deck_count", lambda st, s: len(st["fate"]["deck"])),
    ("fate_discard", lambda st, s: [c["ref"] for c in st["fate"]["discard"]]),
    ("relations", lambda st, s: {k: dict(v) for k, v in st["relations"]["pairs"].items()}),
    ("hegemons", lambda st, s: list(st["relations"]["hegemons"])),
    ("coalitions", lambda st, s: {k: list(v) for k, v in st["relations"]["coalitions"].items()}),
    ("politics", politics_part),
    ("prompts", lambda st, s: pending(st)),
    ("score", lambda st, s: {str(k): v for k, v in score(st).items()}),
    ("result", lambda st, s: st["result"]),
    ("interrupt", _interrupt),
    ("parley", _parley),
    ("request", _request),
    ("diplomacy", _diplomacy),
    ("initiative", _initiative),
    ("agreements", lambda st, s: grand.agreements_view(st)),  # 20.3: public once signed
    ("verdict", lambda st, s: grand.verdict_view(st)),  # 20.41 / 20.43
    ("negotiation", lambda st, s: grand.pending_offer_public(st)),  # who, never what
    ("refusals", lambda st, s: grand_record.refusals_view(st)),  # 20.14: this game turn
    ("diplomatic_record", lambda st, s: grand_record.record_view(st)),  # refusals, defiance
    ("world", _world),
)


def _card_key(c: dict[str, Any]) -> tuple[str, str, str]:
    return (c["kind"], c["ref"], c["id"])


def _holdings(state: State, seat: int) -> list[dict[str, Any]]:
    g = geo()
    return [
        {
            "id": h["id"],
            "ref": h["ref"],
            "name": g.fate.get(h["ref"], {}).get("name"),
            "text": g.fate.get(h["ref"], {}).get("text"),
        }
        for h in player(state, seat)["holdings"]
    ]


def _deck(state: State, seat: int) -> dict[str, Any]:
    deck: dict[str, Any] = player(state, seat)["deck"]
    return deck


# The seat's own part (``view(...)["me"]``), key by key.
ME_PARTS: tuple[tuple[str, Callable[[State, int], Any]], ...] = (
    ("seat", lambda st, s: s),
    ("hand", lambda st, s: _card(_deck(st, s)["hand"])),
    (
        "deck_list",
        lambda st, s: sorted(
            [_card(c) for c in _deck(st, s)["draw"] + _deck(st, s)["discard"]], key=_card_key
        ),
    ),
    ("draw_list", lambda st, s: sorted((_card(c) for c in _deck(st, s)["draw"]), key=_card_key)),
    ("discard", lambda st, s: [_card(c) for c in _deck(st, s)["discard"]]),
    ("removed", lambda st, s: [_card(c) for c in _deck(st, s)["removed"]]),
    ("holdings", _holdings),
    ("draw_odds", lambda st, s: draw_odds(player(st, s))),
    ("petition_cost", lambda st, s: petition_cost(st, s)),
    ("strikes", lambda st, s: player(st, s)["strikes"]),
    ("passed", lambda st, s: list(player(st, s).get("passed", []))),
    ("taxed", lambda st, s: list(player(st, s)["taxed"])),
    ("tax_state", lambda st, s: player(st, s)["tax_state"]),
    ("offer", lambda st, s: grand.offer_view(st, s)),  # 20.14: to its two parties only
    ("pledged_vote", lambda st, s: _pledged(st, s)),  # 20.11
)


def _pledged(state: State, seat: int) -> str | None:
    pa = state["parley"]
    return None if pa is None else grand.pledged_vote(state, seat, pa)


def _me(state: State, seat: int) -> dict[str, Any]:
    return {k: f(state, seat) for k, f in ME_PARTS}


def private_view(state: State, seat: int) -> dict[str, Any]:
    """``view(state, seat)["me"]`` alone: the seat's own part, built from its player
    record and never from the map, so a push can splice it into the public view it
    encoded once for every seat (app/realtime/render.py)."""
    _check_seat(state, seat)
    with memo.SCOPE:
        return _me(state, seat)


def private_inputs(state: State) -> tuple[tuple[Any, ...], list[dict[str, Any]]]:
    """What the seats' private views (``private_view``) are made from, besides the
    content: (what every seat's is made from, each seat's own). Its own is its player
    record (its deck, holdings, counters, and the lasting effects its notables and
    innovations give); every seat's, the pending offer and the grand diplomacy's record,
    the parley, the agreements and the powers' names (an offer's text names its
    parties). Two positions whose inputs for a seat encode the same give it the same
    private view, so a push need not build it again for a seat a move did not touch
    (app/realtime/render.py; tests/realtime/test_private_inputs.py holds it over whole
    games of every scenario)."""
    players = state["players"]
    shared = (
        grand.gr(state),
        state["parley"],
        state["relations"].get("agreements"),
        [p["name"] for p in players],
    )
    return shared, list(players)


#: the public view's keys, in order (``view(state, None)``)
PUBLIC_KEYS: tuple[str, ...] = tuple(k for k, _f in PARTS)
_PART = dict(PARTS)


def public_parts(state: State, names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Some parts of ``view(state, None)`` (all when `names` is None), each exactly as
    `view` builds it, in `view`'s order: a push builds again only the parts whose inputs
    changed (``public_inputs``; app/realtime/render.py)."""
    with memo.SCOPE:
        if names is None:
            return {k: f(state, None) for k, f in PARTS}
        return {k: _PART[k](state, None) for k in PUBLIC_KEYS if k in names}


def public_inputs(state: State) -> dict[str, tuple[Any, ...]]:
    """What the public parts dearest to build are made from, besides the content: two
    positions whose inputs for a part encode the same have the same part. The map
    (``areas``), the standings (``score``, 26.1-26.2: what each power owns, its claims
    and buildings there, its innovations, popularity and banked points, its juniors)
    and the wars and asylums (``politics``, 3.21, 3.55, 21.2). A move mostly changes
    none of them, and together they are most of the public view's cost. The map is given
    as its ids and then its records, one input each: a record a move did not write is
    the very object of the position before. Held over whole games of every scenario by
    tests/realtime/test_public_inputs.py."""
    areas = state["areas"]
    players = state["players"]
    rels = state["relations"]
    # The map record by record: a move writes a few of them and shares the rest with the
    # position before (``core.own_area``), so a caller may know those by identity.
    the_map = (tuple(areas), *areas.values())
    return {
        "areas": the_map,
        "score": (
            state["scenario"],
            *the_map,
            [(p["power"], p["popularity"], p["vp"], p["innovations"]) for p in players],
            rels["coalitions"],
        ),
        "politics": (
            len(players),
            rels["pairs"],
            rels["coalitions"],
            [p["asylum"] for p in players],
        ),
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    _check_seat(state, seat)
    with memo.SCOPE:
        out: dict[str, Any] = {k: f(state, seat) for k, f in PARTS}
        if seat is not None:
            out["me"] = _me(state, seat)
    return out


def _listed(state: State, seat: int, action: dict[str, Any]) -> bool:
    """Whether ``action`` is one of the very action dicts `legal_actions` listed for
    this position of a tracked state (`memo`): then it is open, with no need to
    enumerate the kind's targets again."""
    entry = memo.tracked(state)
    legal = None if entry is None or entry.moving else entry.legal.get(seat)
    return legal is not None and any(a is action for a in legal)


# The results that take the target area (12.3 diplomatic conquest, 10 a conquest's C).
TAKING = ("C", "T/C")


def explain(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """The rating term by term and the exact odds, before the player commits."""
    with memo.SCOPE:
        return _explain(state, seat, action)


def _explain(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(action, dict):
        raise IllegalAction("An action must be an object with a 'type'.", "malformed")
    if type(seat) is not int or not 0 <= seat < len(state["players"]):
        raise IllegalAction("There is no such seat in this game.", "bad_seat")
    t = action.get("type")
    p = player(state, seat)
    if t == "endeavour":
        card = p["deck"]["hand"]
        if (
            card is None
            or state["interrupt"]
            or state["parley"]
            or state["request"]
            or not (_listed(state, seat, action) or endeavour_is_open(state, seat, action))
        ):
            raise IllegalAction("That endeavour is not open to you now.", "illegal")
        kind = action["kind"]
        cost, cost_terms = base_cost(
            state, seat, kind, action["base"], action["target"], action.get("option")
        )
        total, terms = rating(
            state,
            seat,
            card,
            kind,
            action["base"],
            action["target"],
            action.get("option"),
            action["talents"],
        )
        odds = result_odds(state, seat, card, kind, total)
        out: dict[str, Any] = {
            "type": "endeavour",
            "kind": kind,
            "rule": SPECS[kind]["rule"],
            "terms": terms,
            "rating": total,
            "cost": cost + action["talents"],
            "cost_terms": cost_terms
            + (
                [{"term": "extra talents", "value": action["talents"], "rule": "9.33"}]
                if action["talents"]
                else []
            ),
            "odds": odds,
            "results": {k: RESULT_TEXT.get(k, k) for k in odds},
        }
        # 20.13: a result that takes a partner's area breaks the agreement, said first
        breaks = taking_breaks(state, seat, action["target"])
        if breaks:
            out["breaks"] = breaks
            out["breach_odds"] = sum(p for k, p in odds.items() if k in TAKING)
        target_owner = state["areas"].get(action["target"], {}).get("owner")
        if kind in ("conquest", "pillage") and target_owner is not None:
            d = player(state, target_owner)
            dt = defense_terms(state, target_owner, 0)
            worst = total + sum(int(x["value"]) for x in dt)
            out["if_defended"] = {
                "defender": target_owner,
                "terms_without_extra_talents": dt,
                "rating": worst,
                "odds": result_odds(state, seat, card, kind, worst),
                "defender_years": d["years_left"],
            }
        return out
    if t in ("draw", "petition"):
        petition = t == "petition"
        pile = petition_pile(p) if petition else next_draw_pile(p)
        chances = draw_odds(p, pile)
        strikes = p["strikes"] if petition else 0
        out = {
            "type": t,
            "draw_odds": chances,
            "strikes": strikes,
            "cost": petition_cost(state, seat) if petition else 0,
        }
        shield = has_ability(state, seat, "burden_shield") and not (p["shield_used"] and petition)
        # 5.6: a strike is a burden (unless shielded) or, on a petition, an advisor of a
        # type sent away this turn; a strike drawn by a petition fails it.
        types = strike_types(p, petition)
        type_odds: dict[str, float] = chances["by_type"]
        strike = (0.0 if shield else float(chances["burden"])) + sum(
            type_odds.get(k, 0.0) for k in types
        )
        out["strike_types"] = types
        out["strike_odds"] = min(1.0, strike)
        out["bust_odds"] = out["strike_odds"] if petition else 0.0
        out["pile"] = len(pile)
        return out
    if t in ("tax", "plunder"):
        area = str(action.get("area"))
        if area not in state["areas"]:
            raise IllegalAction("No such area.", "bad_area")
        amount = action.get("amount", 0)
        if t == "tax" and (type(amount) is not int or amount < 0):
            raise IllegalAction("The amount must be a whole number of talents.", "bad_amount")
        demanded = amount if t == "tax" else 3
        court = area == p["court"] and t == "tax"
        check = not court and (t == "tax" or state["areas"][area]["unrest"])
        terms = rebellion_terms(state, seat, area, demanded) if check else []
        value = sum(int(x["value"]) for x in terms)
        return {
            "type": t,
            "area": area,
            "check": check,
            "terms": terms,
            "rebellion_value": value,
            "odds": rebellion_odds(value)
            if check
            else {"none": 1.0, "unrest": 0.0, "rebellion": 0.0},
            "rule": "17.3",
        }
    raid = nomads.pending_raid(state)
    if t in ("defend", "decline") and raid is not None:
        if raid["defender"] != seat:
            raise IllegalAction("No attack is waiting for your answer.", "no_interrupt")
        talents = action.get("talents", 0) if t == "defend" else 0
        if type(talents) is not int or talents < 0:
            raise IllegalAction("Talents must be a whole number, 0 or more.", "bad_talents")
        return nomads.explain_answer(state, seat, action)
    if t in ("defend", "decline"):
        it = state["interrupt"]
        if it is None or it["defender"] != seat:
            raise IllegalAction("No attack is waiting for your answer.", "no_interrupt")
        talents = action.get("talents", 0) if t == "defend" else 0
        if type(talents) is not int or talents < 0:
            raise IllegalAction("Talents must be a whole number, 0 or more.", "bad_talents")
        dterms = defense_terms(state, seat, talents) if t == "defend" else []
        after = it["rating"] + sum(int(x["value"]) for x in dterms)
        kind = it["action"]["kind"]
        cost = 0
        if t == "defend":
            cost = (defense_cost(state, seat, it["action"]["target"]) or 1) + talents
        return {
            "type": t,
            "kind": kind,
            "rule": "13.21",
            "attacker_rating": it["rating"],
            "terms": dterms,
            "rating": after,
            "cost": cost,
            "odds": result_odds(state, it["attacker"], it["card"], kind, after),
            "results": {
                k: RESULT_TEXT.get(k, k)
                for k in result_odds(state, it["attacker"], it["card"], kind, after)
            },
        }
    if t == "recruit":
        slot = action.get("slot")
        row = state["market"]["row"]
        if not isinstance(slot, int) or not 0 <= slot < len(row):
            raise IllegalAction("There is no such slot in the Court market.", "bad_slot")
        g = geo()
        return {
            "type": t,
            "slot": slot,
            "notable": row[slot]["card"],
            "name": g.notables[row[slot]["card"]]["name"],
            "price": price(state, seat, slot),
            "coins": row[slot]["coins"],
            "skipped": slot,
            "rule": "6.6",
            **explain_recruit(state, seat, slot),
        }
    if t == "diplo":
        return explain_diplo(state, seat, action)
    if t == "vote":
        return explain_vote(state, seat, action)
    if t == "call_parley":
        return explain_call_parley(state, seat, action)
    if t == "play":
        return explain_play(state, seat, action)
    if t == "renounce":
        return explain_renounce(state, seat, action)
    if t == "cancel":
        return explain_cancel(state, seat, action)
    return {"type": t, "terms": [], "odds": {}}
