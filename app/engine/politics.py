"""The politics of the table as a seat sees them (docs/rules.md 3, 20, 21), for the
view and for `explain`: who is at war with whom once coalitions are counted (3.55),
who shelters whom (21.2), and what a diplomatic move, a parley or a recruit would do,
before the player commits.

Everything here reads public state only. The consequences of a diplomatic move are
worked out by the engine itself: the move (and, for a proposal, the other side's
acceptance) is applied to a copy of the state and the two positions are compared,
so the page never restates a rule that could drift from the engine. The one move
that draws on chance, breaking a treaty (3.22), is never applied: its odds are
counted over the faces of the die and its "war" branch is the relation set to war.
"""

from __future__ import annotations

from typing import Any

from app.engine import grand
from app.engine.core import (
    State,
    ability_sum,
    at_war,
    card_type,
    deck_cards,
    geo,
    hegemon_of,
    player,
    rel_key,
    relation,
    seat_of_power,
    seats,
)
from app.engine.errors import IllegalAction
from app.engine.flow import apply, legal_actions
from app.engine.inheritance import inheritable
from app.engine.scoring import score

# 3.22: "roll a die" (rng.die's six faces).
DIE_FACES = range(1, 7)

# The rule each diplomatic move carries out (docs/rules.md).
DIPLO_RULES = {
    "pass": "3.2",
    "declare_war": "3.21",
    "propose_peace": "3.23",
    "accept_peace": "3.23",
    "reject_peace": "3.23",
    "claim_hegemony": "3.51",
    "relinquish_hegemony": "3.52",
    "join": "3.53",
    "accept_join": "3.53",
    "reject_join": "3.53",
    "leave": "3.54",
    "ask_asylum": "21.2",
    "accept_asylum": "21.2",
    "reject_asylum": "21.2",
    "revoke_asylum": "21.2",
}

# A proposal waits for the other power's answer (3.23, 3.53, 21.2).
PROPOSALS = {"propose_peace": "peace", "join": "join", "ask_asylum": "asylum"}


def wars(state: State) -> list[list[int]]:
    """Every pair of seats at war, coalitions counted (3.21, 3.55), as [low, high]."""
    n = len(state["players"])
    return [[a, b] for a in range(n) for b in range(a + 1, n) if at_war(state, a, b)]


def asylum(state: State) -> dict[str, int]:
    """21.2: each exile under asylum -> the seat that shelters it."""
    return {str(s): p["asylum"] for s, p in enumerate(state["players"]) if p["asylum"] is not None}


def politics_part(state: State, seat: int | None) -> dict[str, Any]:
    """The view's ``politics``: the wars with coalitions counted, and asylum."""
    return {"wars": wars(state), "asylum": asylum(state)}


def standing(state: State, seat: int) -> dict[str, Any]:
    """A seat's place in the politics of the table: what a move may change."""
    p = player(state, seat)
    rels = state["relations"]
    return {
        "at_war_with": [o for o in seats(state) if at_war(state, seat, o)],
        "coalition_head": hegemon_of(state, seat),
        "hegemon": seat in rels["hegemons"],
        "juniors": list(rels["coalitions"].get(str(seat), [])),
        "popularity": p["popularity"],
        "vp": score(state)[seat]["total"],
        "asylum": p["asylum"],
        "guests": [s for s, q in enumerate(state["players"]) if q["asylum"] == seat],
    }


def _with_relation(state: State, a: int, b: int, status: str) -> State:
    """The state with one relation changed (a shallow copy: the state is untouched)."""
    rels = state["relations"]
    pairs = dict(rels["pairs"])
    pairs[rel_key(a, b)] = {"status": status, "since": state["turn"]}
    return {**state, "relations": {**rels, "pairs": pairs}}


def explain_diplo(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """What a diplomatic move does: the seat's standing now and after it (after the
    other side accepts, for a proposal), the other power's too, and for breaking a
    treaty the odds of each outcome (3.22)."""
    move = action.get("move")
    if move not in DIPLO_RULES:
        raise IllegalAction("There is no such diplomatic move.", "illegal")
    other = seat_of_power(state, str(action["power"])) if "power" in action else None
    out: dict[str, Any] = {
        "type": "diplo",
        "move": move,
        "rule": DIPLO_RULES[move],
        "power": other,
        "now": standing(state, seat),
        "other_now": standing(state, other) if other is not None else None,
    }
    if move == "pass":
        d = state["diplo"]
        out["passes_in_a_row"] = d["passes"] if d else 0
        out["players"] = len(state["players"])
        return out
    if (
        move == "declare_war"
        and other is not None
        and relation(state, seat, other)["status"] == "peace"
    ):
        if action not in legal_actions(state, seat):
            raise IllegalAction("That move is not open to you now.", "illegal")
        # 3.22: a die below the turns the peace has lasted breaks it; above, the
        # sacrilege costs a point of popularity; equal, nothing happens.
        lasted = state["turn"] - int(relation(state, seat, other)["since"])
        faces = list(DIE_FACES)
        war = sum(1 for f in faces if f < lasted) / len(faces)
        sacrilege = sum(1 for f in faces if f > lasted) / len(faces)
        holds = sum(1 for f in faces if f == lasted) / len(faces)
        out["treaty"] = {"lasted": lasted, "since": relation(state, seat, other)["since"]}
        out["odds"] = {"war": war, "sacrilege": sacrilege, "holds": holds}
        out["cannot_succeed"] = war == 0  # no face comes under the turns of peace
        out["results"] = {
            "war": "a pretext is found: war",
            "sacrilege": "the peace holds and the sacrilege costs you 1 popularity",
            "holds": "the peace holds",
        }
        hyp = _with_relation(state, seat, other, "war")
        out["after"] = standing(hyp, seat)  # if the pretext is found
        out["other_after"] = standing(hyp, other)
        out["breaks"] = breaks(state, seat, grand.war_breaches(hyp, seat))  # 20.13, if war
        return out
    after, _ = apply(state, seat, action)
    out["breaks"] = breaks(state, seat, broken_by(state, after, seat))
    kind = PROPOSALS.get(str(move))
    if kind is not None and other is not None:
        out["proposal"] = kind
        asker = state["players"][seat]["power"]
        after, _ = apply(after, other, {"type": "diplo", "move": f"accept_{kind}", "power": asker})
    out["after"] = standing(after, seat)
    out["other_after"] = standing(after, other) if other is not None else None
    return out


def broken_by(state: State, after: State, seat: int) -> list[dict[str, Any]]:
    """The seat's agreements in force in ``state`` that ``after`` records as broken by it."""
    ended = {
        ag["id"]
        for ag in after["relations"].get("agreements") or []
        if ag["status"] == "broken" and ag["breaker"] == seat
    }
    return [ag for ag in grand.in_force(state, seat) if ag["id"] in ended]


def breaks(state: State, seat: int, ags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """20.3, 20.44: what a move would break, said before the player commits: each
    agreement, the partner, its terms in words, and whether the partner's breach parley
    would open (never when either is accursed already, 22.13)."""
    out = []
    for ag in ags:
        partner = next(x for x in ag["parties"] if x != seat)
        out.append(
            {
                "agreement": ag["id"],
                "partner": partner,
                "text": grand.agreement_text(state, ag),
                "rule": "20.3",
                "parley": None
                if player(state, seat)["accursed"] or player(state, partner)["accursed"]
                else "20.44",
            }
        )
    return out


def taking_breaks(state: State, seat: int, area: Any) -> list[dict[str, Any]]:
    """20.13: the agreements taking ``area`` from its owner would break (a partner's
    area taken by conquest, diplomacy or inheritance), in `breaks`' words."""
    row = state["areas"].get(area) if isinstance(area, str) else None
    owner = row["owner"] if row is not None else None
    if owner is None or owner == seat:
        return []
    return breaks(state, seat, grand.bound_not_to_attack(state, seat, owner))


def explain_play(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """19.4: a holding card; a Dynastic Inheritance on a partner's area is a breach
    (20.13, 20.43), said before it is played."""
    card = next((c for c in player(state, seat)["holdings"] if c["id"] == action.get("card")), None)
    if card is None:
        raise IllegalAction("You hold no such card.", "bad_card")
    op = geo().fate.get(card["ref"], {}).get("effect", {}).get("op")
    takes = op == "dynastic_inheritance" and grand_takes(state, seat, action.get("target"))
    return {
        "type": "play",
        "rule": "19.4",
        "card": card["ref"],
        "breaks": taking_breaks(state, seat, action.get("target")) if takes else [],
    }


def grand_takes(state: State, seat: int, area: Any) -> bool:
    """Whether a Dynastic Inheritance on ``area`` would take it (20.43)."""
    return isinstance(area, str) and area in state["areas"] and inheritable(state, seat, area)


def explain_renounce(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """20.3: renouncing breaks the agreement (a 20.44 parley follows)."""
    ag = next((x for x in grand.in_force(state, seat) if x["id"] == action.get("agreement")), None)
    if ag is None:
        raise IllegalAction("You are party to no such agreement in force.", "bad_agreement")
    return {"type": "renounce", "rule": "20.3", "breaks": breaks(state, seat, [ag])}


def explain_cancel(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """20.3: an offer to cancel: if the partner accepts, the agreement ends, no breach."""
    ag = next((x for x in grand.in_force(state, seat) if x["id"] == action.get("agreement")), None)
    if ag is None:
        raise IllegalAction("You are party to no such agreement in force.", "bad_agreement")
    partner = next(x for x in ag["parties"] if x != seat)
    return {
        "type": "cancel",
        "rule": "20.3",
        "agreement": ag["id"],
        "partner": partner,
        "text": grand.agreement_text(state, ag),
        "if_accepted": "the agreement ends now: no breach, no parley",
        "if_refused": "it stays in force",
        "breaks": [],
    }


def parley_weights(state: State) -> dict[str, int]:
    """20.4: who may vote in a parley called now (every power not accursed) and
    with how many votes: the emperor's Diplomacy plus `parley_votes`."""
    return {
        str(s): int(player(state, s)["emperor"]["statures"].get("diplomacy", 0))
        + ability_sum(state, s, "parley_votes")
        for s in seats(state)
        if not player(state, s)["accursed"]
    }


def explain_call_parley(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    area = str(action.get("area"))
    if area not in state["areas"]:
        raise IllegalAction("No such area.", "bad_area")
    weights = parley_weights(state)
    return {
        "type": "call_parley",
        "rule": "20.42",
        "area": area,
        "question": "claim",
        "weights": weights,
        "total": sum(weights.values()),
        "mine": weights.get(str(seat), 0),
        "claimants": [s for s in state["areas"][area]["claims"] if s != seat],
    }


def explain_vote(state: State, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """A parley vote: every weight, who has voted (not how), and what yes and no do."""
    pa = state["parley"]
    if pa is None or seat not in pa["eligible"]:
        raise IllegalAction("No parley waits for your vote.", "no_parley")
    weights = {str(k): int(v) for k, v in pa["weights"].items()}
    return {
        "type": "vote",
        "rule": {
            "claim": "20.42",
            "contest": "20.41",
            "inherit": "20.43",
            "breach": "20.44",
            "readmit": "20.45",
        }.get(pa["question"], "20.4"),
        "question": pa["question"],
        "caller": pa["caller"],
        "against": pa.get("against"),
        "area": pa["area"],
        "choice": action.get("choice"),
        "weights": weights,
        "total": sum(weights.values()),
        "mine": weights.get(str(seat), 0),
        "voted": sorted(int(s) for s in pa["votes"]),
        "not_eligible": [s for s in seats(state) if s not in pa["eligible"]],
        "pledged": grand.pledged_vote(state, seat, pa),
        "breaks": breaks(state, seat, _pledges_broken(state, seat, pa, action.get("choice"))),
    }


def _pledges_broken(
    state: State, seat: int, pa: dict[str, Any], choice: Any
) -> list[dict[str, Any]]:
    """20.11: the agreements whose pledge this vote would not keep (as `check_pledges`)."""
    out = []
    for ag in grand.in_force(state, seat):
        for pledge in ag["votes"]:
            if pledge["pledger"] != seat or pledge["for"] == seat:
                continue
            wanted = (
                "yes"
                if pledge["for"] == pa["caller"]
                else "no"
                if pledge["for"] == pa.get("against")
                else None
            )
            if wanted is not None and choice != wanted:
                out.append(ag)
                break
    return out


def explain_recruit(state: State, seat: int, slot: int) -> dict[str, Any]:
    """6.3-6.6: what a notable brings: the advisor type it acts as, the rating it
    starts from (the emperor's stature of that type plus its bonus), its ability, and
    that type's share of the deck before and after."""
    g = geo()
    ref = state["market"]["row"][slot]["card"]
    n = g.notables[ref]
    kind = n.get("type")
    p = player(state, seat)
    cards = deck_cards(p)
    same = sum(1 for c in cards if card_type(c) == kind)
    stature = int(p["emperor"]["statures"].get(str(kind), 0))
    bonus = int(n.get("bonus", 0))
    return {
        "acts_as": kind,
        "stature": stature,
        "bonus": bonus,
        "rating_base": stature + bonus,
        "ability": n.get("ability"),
        "deck_share": {
            "before": same / len(cards) if cards else 0.0,
            "after": (same + 1) / (len(cards) + 1),
        },
    }
