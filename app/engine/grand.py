"""Grand diplomacy and binding agreements (docs/rules.md 20.1-20.3), the parleys
that judge them (20.41's verdict, 20.43 Dynastic Inheritance, 20.44 breach,
20.45 readmission) and the accursed (22.1).

An **offer** is a bundle between two powers: talents now or per game turn
(tribute), claims, areas, votes pledged in parleys, and terms (peace,
non-aggression, alliance) for a number of game turns. `legal_actions` lists, per
possible recipient, one offer *template*: a concrete default offer plus the
ranges every item may take (`template`). `apply` accepts any concrete offer that
fits the listed template for that power (`fits`), and the listed dict itself.
The recipient answers through a `request` prompt: accept, refuse or counter
(a counter is an offer back, listed as a template too).

An accepted offer is carried out at once and recorded in
`relations.agreements`; its lasting items (tribute, pledged votes,
non-aggression, alliance) are in force until their expiry. The engine watches
them: war declared on a partner, a partner's area taken, tribute unpaid, a
pledged vote not given, or an agreement renounced is a **breach**, and the
injured power's 20.44 parley opens by itself. The guilty, and whoever defies the
verdict of a 20.41 or 20.43 parley, is **accursed** (22.1) until an heirless
death or a 20.45 parley lifts it.

This module holds the rules, below every phase: the agreements, breaches, the
parleys' questions and verdicts, inheritance and the accursed. The actions'
handlers (offer, answer, renounce, verdict, readmission) are in `grand_actions`; the
offerings' templates, prompts and actions in `grand_offers`; `gate` checks an offer
against its template (`check_offer`).

Everything lives in plain JSON: `state["grand"]` holds the pending offer, a
pending verdict and the parleys due; agreements are in
`state["relations"]["agreements"]`.
"""

from __future__ import annotations

import json
from typing import Any

from app.engine.clone import copy_json
from app.engine.core import (
    State,
    at_war,
    clamp_popularity,
    emit,
    geo,
    hegemon_of,
    name,
    own_area,
    parley_weight,
    player,
    relation,
    seats,
)
from app.engine.ownership import change_owner

TERMS = ("peace", "non_aggression", "alliance")  # 20.13
LASTING_TERMS = ("non_aggression", "alliance")
MAX_TERM_TURNS = 3  # 20.12: lasting items run 1 to 3 game turns
MAX_TRIBUTE = 5  # 20.11: talents per game turn
MAX_COUNTERS = 2  # 20.15: an offer, a counter and a counter to the counter
PARLEY_QUESTIONS = ("contest", "inherit", "breach", "readmit")
SIDE_KEYS = ("talents", "per_turn", "areas", "claims", "votes")
OFFER_KEYS = {"type", "power", "give", "get", "terms", "turns", "template"}

_EMPTY: dict[str, Any] = {
    "offer": None,
    "verdict": None,
    "due": [],
    "offered": {},
    "heirless": {},
    "next_offer": 1,
}


def fresh() -> dict[str, Any]:
    return json.loads(json.dumps(_EMPTY))


def gr(state: State) -> dict[str, Any]:
    """`state["grand"]` for reading (an older saved game has none)."""
    got: dict[str, Any] | None = state.get("grand")
    return got if got is not None else _EMPTY


def gw(state: State) -> dict[str, Any]:
    """`state["grand"]` for writing (made on first use in an older saved game)."""
    got = state.get("grand")
    if got is None:
        got = state["grand"] = fresh()
    return got


def agreements(state: State) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = state["relations"].setdefault("agreements", [])
    return out


def _agreements_read(state: State) -> list[dict[str, Any]]:
    return list(state["relations"].get("agreements") or [])


def blocking(state: State) -> bool:
    g = gr(state)
    return g["offer"] is not None or g["verdict"] is not None


def in_force(state: State, a: int, b: int | None = None) -> list[dict[str, Any]]:
    out = []
    for ag in _agreements_read(state):
        if ag["status"] != "in_force" or a not in ag["parties"]:
            continue
        if b is None or b in ag["parties"]:
            out.append(ag)
    return out


def bound_not_to_attack(state: State, a: int, b: int) -> list[dict[str, Any]]:
    """20.13: agreements in force between a and b with non-aggression (an alliance includes it)."""
    return [ag for ag in in_force(state, a, b) if set(ag["terms"]) & set(LASTING_TERMS)]


def bound_by_terms(state: State, seat: int) -> list[dict[str, Any]]:
    """20.13: the seat's agreements in force with non-aggression or alliance."""
    return [ag for ag in in_force(state, seat) if set(ag["terms"]) & set(LASTING_TERMS)]


def _other(ag: dict[str, Any], seat: int) -> int:
    a, b = ag["parties"]
    return int(b if a == seat else a)


def _junior(state: State, seat: int) -> bool:
    return hegemon_of(state, seat) != seat


# ====================================================================== handlers


def carry_out(state: State, off: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """20.2: an accepted bundle is carried out whole, then recorded (20.3)."""
    g = geo()
    a, b = off["from"], off["to"]
    areas = state["areas"]
    for giver, receiver, side in ((a, b, off["give"]), (b, a, off["get"])):
        gp, rp = player(state, giver), player(state, receiver)
        amount = min(int(side["talents"]), int(gp["talents"]))
        gp["talents"] -= amount
        rp["talents"] += amount
        for area in side["areas"]:
            if areas[area]["owner"] == giver:
                change_owner(state, area, receiver, events, "cession")  # 20.11
                emit(
                    state,
                    events,
                    f"{name(state, giver)} cedes {g.areas[area]['name']} to {name(state, receiver)}.",
                    "20.11",
                    "conquest",
                )
        for area in side["claims"]:
            claims = areas[area]["claims"]
            if giver in claims and receiver not in claims:
                claims = own_area(state, area)["claims"]
                claims.remove(giver)
                claims.append(receiver)
                emit(
                    state,
                    events,
                    f"{name(state, giver)} hands its claim to {g.areas[area]['name']} to {name(state, receiver)}.",
                    "20.11",
                    "claim",
                )
    if off["terms"]:
        rel = relation(state, a, b)
        if rel["status"] != "peace":
            was = rel["status"]
            rel["status"], rel["since"] = "peace", state["turn"]
            emit(
                state,
                events,
                f"{name(state, a)} and {name(state, b)} make peace.",
                "3.23",
                "diplomacy",
                data={"was": was},
            )
    tribute = []
    if off["give"]["per_turn"]:
        tribute.append({"payer": a, "payee": b, "amount": off["give"]["per_turn"]})
    if off["get"]["per_turn"]:
        tribute.append({"payer": b, "payee": a, "amount": off["get"]["per_turn"]})
    votes = []
    if off["give"]["votes"] or "alliance" in off["terms"]:
        votes.append({"pledger": a, "for": b})
    if off["get"]["votes"] or "alliance" in off["terms"]:
        votes.append({"pledger": b, "for": a})
    lasting = bool(tribute or votes or set(off["terms"]) & set(LASTING_TERMS))
    ags = agreements(state)
    ag = {
        "id": len(ags) + 1,
        "parties": [a, b],
        "signed": state["turn"],
        "year": state["year"],
        "expires": state["turn"] + off["turns"] - 1 if lasting else None,
        "status": "in_force" if lasting else "fulfilled",
        "terms": list(off["terms"]),
        "tribute": tribute,
        "votes": votes,
        "exchange": {
            "give": json.loads(json.dumps(off["give"])),
            "get": json.loads(json.dumps(off["get"])),
        },
        "breaker": None,
        "ended": None,
        "why": None,
    }
    ags.append(ag)
    emit(
        state,
        events,
        f"{name(state, b)} accepts: {name(state, a)} and {name(state, b)} sign agreement {ag['id']} "
        f"({describe(state, off)})"
        + (f", binding until the end of game turn {ag['expires']}." if lasting else "."),
        "20.3",
        "agreement",
        data={"agreement": ag["id"]},
    )
    return ag


def agreement_text(state: State, ag: dict[str, Any]) -> str:
    """What an agreement in force binds its parties to, in words (20.3)."""
    words = {"non_aggression": "non-aggression", "alliance": "alliance"}
    bits = [words[t] for t in ag["terms"] if t in words]
    for t in ag["tribute"]:
        bits.append(
            f"{name(state, t['payer'])} pays {name(state, t['payee'])} {t['amount']} a game turn"
        )
    if not set(ag["terms"]) & {"alliance"}:
        bits += [
            f"{name(state, v['pledger'])} votes for {name(state, v['for'])}" for v in ag["votes"]
        ]
    a, b = ag["parties"]
    until = f" until the end of game turn {ag['expires']}" if ag["expires"] is not None else ""
    return (
        f"agreement {ag['id']} of {name(state, a)} and {name(state, b)}: {', '.join(bits)}{until}"
    )


def describe(state: State, off: dict[str, Any]) -> str:
    """A bundle in words (or, for an offer to cancel, the agreement it would end)."""
    if off.get("kind") == "cancel":
        ag = next((x for x in _agreements_read(state) if x["id"] == off["agreement"]), None)
        what = agreement_text(state, ag) if ag is not None else f"agreement {off['agreement']}"
        return f"cancel {what}, by consent: no breach, no parley"
    g = geo()
    a, b = off["from"], off["to"]
    parts = []
    for giver, receiver, side in ((a, b, off["give"]), (b, a, off["get"])):
        bits = []
        if side["talents"]:
            bits.append(f"{side['talents']} talents")
        if side["per_turn"]:
            bits.append(f"{side['per_turn']} talents a game turn")
        if side["areas"]:
            bits.append(", ".join(g.areas[x]["name"] for x in side["areas"]))
        if side["claims"]:
            bits.append("the claim to " + ", ".join(g.areas[x]["name"] for x in side["claims"]))
        if side["votes"]:
            bits.append("its votes in parleys")
        if bits:
            parts.append(f"{name(state, giver)} gives {name(state, receiver)} " + ", ".join(bits))
    words = {"peace": "peace", "non_aggression": "non-aggression", "alliance": "alliance"}
    if off["terms"]:
        parts.append(" and ".join(words[t] for t in off["terms"]))
    if off["turns"]:
        parts.append(f"for {off['turns']} game turn{'s' if off['turns'] != 1 else ''}")
    return "; ".join(parts)


# ====================================================================== breaches (20.3, 20.44)


def breach(
    state: State, ag: dict[str, Any], breaker: int, why: str, events: list[dict[str, Any]]
) -> None:
    """20.3: a binding agreement is broken: it ends, and the injured power's 20.44
    parley is due (unless either is accursed already, 22.13)."""
    ag["status"] = "broken"
    ag["breaker"] = breaker
    ag["ended"] = state["turn"]
    ag["why"] = why
    injured = _other(ag, breaker)
    emit(
        state,
        events,
        f"{name(state, breaker)} breaks agreement {ag['id']} with {name(state, injured)} ({why}).",
        "20.3",
        "breach",
        data={"agreement": ag["id"], "breaker": breaker, "why": why},
    )
    if player(state, injured)["accursed"] or player(state, breaker)["accursed"]:
        return
    gw(state)["due"].append(
        {"question": "breach", "caller": injured, "against": breaker, "agreement": ag["id"]}
    )


def war_breaches(state: State, seat: int) -> list[dict[str, Any]]:
    """20.13, 3.55: the seat's agreements with non-aggression whose partner is at
    war with it in ``state`` (directly, or through a coalition)."""
    return [ag for ag in bound_by_terms(state, seat) if at_war(state, seat, _other(ag, seat))]


def on_war(state: State, seat: int, other: int, events: list[dict[str, Any]]) -> None:
    """20.13: a war the seat declares that reaches a partner bound by non-aggression,
    on it or on its coalition (3.55), is the declarer's breach."""
    for ag in war_breaches(state, seat):
        breach(state, ag, seat, f"war declared on {name(state, other)}", events)


def on_conquest(
    state: State, seat: int, old: int | None, area: str, events: list[dict[str, Any]]
) -> None:
    """20.13: taking a partner's area (by force, diplomacy or inheritance) is a breach."""
    if old is None or old == seat:
        return
    for ag in bound_not_to_attack(state, seat, old):
        breach(state, ag, seat, f"took {geo().areas[area]['name']}", events)


def on_heirless(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    """20.3: an heirless death frees every party from its agreements with that power;
    20.43: and for this game turn its owner may not contest an inheritance."""
    gw(state)["heirless"][str(seat)] = state["turn"]
    for ag in in_force(state, seat):
        ag["status"] = "void"
        ag["ended"] = state["turn"]
        ag["why"] = "heirless death"
        emit(
            state,
            events,
            f"Agreement {ag['id']} lapses with the line of {name(state, seat)}.",
            "20.3",
            "agreement",
        )


def upkeep(state: State, events: list[dict[str, Any]]) -> None:
    """20.12: at each upkeep tribute is paid (unpaid tribute is a breach) and
    agreements reaching their last game turn expire."""
    for ag in list(agreements(state)):
        if ag["status"] != "in_force":
            continue
        for t in ag["tribute"]:
            payer = player(state, t["payer"])
            if payer["talents"] >= t["amount"]:
                payer["talents"] -= t["amount"]
                player(state, t["payee"])["talents"] += t["amount"]
                emit(
                    state,
                    events,
                    f"{name(state, t['payer'])} pays {name(state, t['payee'])} a tribute of {t['amount']} talents.",
                    "20.12",
                    "tribute",
                )
            else:
                paid = payer["talents"]
                payer["talents"] = 0
                player(state, t["payee"])["talents"] += paid
                breach(state, ag, t["payer"], f"tribute unpaid ({paid} of {t['amount']})", events)
                break
        if (
            ag["status"] == "in_force"
            and ag["expires"] is not None
            and ag["expires"] <= state["turn"]
        ):
            ag["status"] = "expired"
            ag["ended"] = state["turn"]
            emit(
                state,
                events,
                f"Agreement {ag['id']} between {name(state, ag['parties'][0])} and "
                f"{name(state, ag['parties'][1])} expires.",
                "20.12",
                "agreement",
            )


def check_pledges(state: State, pa: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """20.11: a power that pledged its votes to a partner votes on the partner's side
    (yes when the partner called the parley, no when it stands accused)."""
    for ag in list(agreements(state)):
        if ag["status"] != "in_force":
            continue
        for pledge in ag["votes"]:
            voter, partner = pledge["pledger"], pledge["for"]
            if str(voter) not in pa["votes"] or voter == partner:
                continue
            if partner == pa["caller"]:
                wanted = "yes"
            elif partner == pa.get("against"):
                wanted = "no"
            else:
                continue
            if pa["votes"][str(voter)] != wanted and ag["status"] == "in_force":
                breach(state, ag, voter, "pledged votes withheld", events)


def pledged_vote(state: State, seat: int, pa: dict[str, Any]) -> str | None:
    """The vote ``seat`` has pledged in this parley, if any (for the page and bots)."""
    for ag in in_force(state, seat):
        for pledge in ag["votes"]:
            if pledge["pledger"] != seat:
                continue
            if pledge["for"] == pa["caller"]:
                return "yes"
            if pledge["for"] == pa.get("against"):
                return "no"
    return None


def curse(state: State, seat: int, events: list[dict[str, Any]], rule: str) -> None:
    """22.1: the power is accursed."""
    p = player(state, seat)
    if p["accursed"]:
        return
    p["accursed"] = True
    emit(
        state,
        events,
        f"{name(state, seat)} is accursed: no vote in parleys but its own readmission, no contest, "
        "and its emperor counts as of a foreign faith everywhere (22.11-22.13).",
        rule,
        "accursed",
        data={"seat": seat},
    )


# ====================================================================== parleys (20.4x)


def open_parley(
    state: State,
    caller: int,
    question: str,
    events: list[dict[str, Any]],
    against: int | None = None,
    area: str | None = None,
    agreement: int | None = None,
) -> None:
    """20.4: a parley of every power not accursed (22.12; the accursed caller of a
    readmission parley votes in it)."""
    eligible = [
        s
        for s in seats(state)
        if not player(state, s)["accursed"] or (question == "readmit" and s == caller)
    ]
    state["parley"] = {
        "question": question,
        "caller": caller,
        "area": area,
        "against": against,
        "agreement": agreement,
        "eligible": eligible,
        "votes": {},
        "weights": {str(s): parley_weight(state, s) for s in eligible},
    }
    emit(
        state,
        events,
        f"{name(state, caller)} calls a parley: {parley_label(state, state['parley'])}",
        {"contest": "20.41", "inherit": "20.43", "breach": "20.44", "readmit": "20.45"}.get(
            question, "20.4"
        ),
        "parley",
        data={"question": question, "area": area, "against": against, "agreement": agreement},
    )


def parley_label(state: State, pa: dict[str, Any]) -> str:
    g = geo()
    q = pa["question"]
    if q == "breach":
        return (
            f"Did {name(state, pa['against'])} break agreement {pa.get('agreement')} with "
            f"{name(state, pa['caller'])}? Yes makes it accursed (20.44)."
        )
    if q == "readmit":
        return f"Shall {name(state, pa['caller'])} be readmitted? (20.45)"
    area = g.areas[pa["area"]]["name"] if pa.get("area") in g.areas else pa.get("area")
    if q == "inherit":
        return f"Parley on {area}: is {name(state, pa['caller'])} its rightful owner against the inheritance? (20.43)"
    return f"Parley on {area}: {q}"


def start_due(state: State, events: list[dict[str, Any]]) -> bool:
    """Open the next 20.44 parley due, if any is still meaningful."""
    g = gr(state)
    while g["due"]:
        item = gw(state)["due"].pop(0)
        if player(state, item["caller"])["accursed"] or player(state, item["against"])["accursed"]:
            continue
        open_parley(
            state,
            item["caller"],
            "breach",
            events,
            against=item["against"],
            agreement=item["agreement"],
        )
        return True
    return False


def resolve(state: State, pa: dict[str, Any], passed: bool, events: list[dict[str, Any]]) -> bool:
    """Carry out a contest (20.41), inheritance (20.43), breach (20.44) or
    readmission (20.45) parley; False for the questions this module does not own."""
    q = pa["question"]
    if q not in PARLEY_QUESTIONS:
        return False
    if q in ("contest", "inherit"):
        rule = "20.41" if q == "contest" else "20.43"
        area = pa["area"]
        if passed and state["areas"][area]["owner"] == pa["against"]:
            gw(state)["verdict"] = {
                "seat": pa["against"],
                "area": area,
                "to": pa["caller"],
                "rule": rule,
            }
            emit(
                state,
                events,
                f"The parley finds {geo().areas[area]['name']} is {name(state, pa['caller'])}'s: "
                f"{name(state, pa['against'])} must return it or be accursed.",
                rule,
                "parley",
            )
        elif not passed:
            emit(
                state,
                events,
                f"The parley upholds {name(state, pa['against'])}'s hold on {geo().areas[area]['name']}.",
                rule,
                "parley",
            )
    elif q == "breach":
        if passed:
            curse(state, pa["against"], events, "20.44")
        else:
            emit(
                state,
                events,
                f"The parley acquits {name(state, pa['against'])}.",
                "20.44",
                "parley",
            )
    elif q == "readmit":
        if passed:
            player(state, pa["caller"])["accursed"] = False
            emit(
                state,
                events,
                f"{name(state, pa['caller'])} is readmitted: the curse is lifted.",
                "20.45",
                "accursed",
                data={"seat": pa["caller"]},
            )
        else:
            emit(
                state,
                events,
                f"The parley refuses to readmit {name(state, pa['caller'])}.",
                "20.45",
                "parley",
            )
    return True


# ====================================================================== the accursed and war (22.11, 3.21)


def religion_gap(state: State, seat: int, diff: int) -> tuple[int, str]:
    """22.11: the accursed emperor counts as of an unrelated faith (difference 2)."""
    if player(state, seat)["accursed"]:
        return 2, "22.11"
    return diff, ""


def war_price(state: State, seat: int, events: list[dict[str, Any]]) -> None:
    """3.21: war on a neutral power costs one influence (one popularity without any)."""
    p = player(state, seat)
    if p["influence"] >= 1:
        p["influence"] -= 1
        what = "one influence"
    else:
        p["popularity"] -= 1
        what = "one popularity"
        clamp_popularity(p)
    emit(state, events, f"The war costs {name(state, seat)} {what}.", "3.21", "diplomacy")


# ====================================================================== views


def agreements_view(state: State) -> list[dict[str, Any]]:
    """Signed agreements are public (20.3). A deep copy (``clone.copy_json``: the state is
    plain JSON, and marshal copies it several times faster than a JSON round trip)."""
    out: list[dict[str, Any]] = copy_json(_agreements_read(state))
    return out


def verdict_view(state: State) -> dict[str, Any] | None:
    v = gr(state)["verdict"]
    return dict(v) if v is not None else None


def offer_view(state: State, seat: int) -> dict[str, Any] | None:
    """The pending offer, to its two parties only (20.14)."""
    off = gr(state)["offer"]
    if off is None or seat not in (off["from"], off["to"]):
        return None
    out: dict[str, Any] = copy_json(off)
    out["text"] = describe(state, off)
    return out


def pending_offer_public(state: State) -> dict[str, Any] | None:
    """Who is negotiating with whom (public), never the bundle."""
    off = gr(state)["offer"]
    return None if off is None else {"from": off["from"], "to": off["to"]}
