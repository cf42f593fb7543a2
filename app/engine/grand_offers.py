"""Grand diplomacy's offers (docs/rules.md 20.1, 20.11-20.15, 20.3, 20.41-20.45): the
template listed per power an offer may go to, whether a concrete offer fits it (`fits`),
and the prompts and actions of offers, counters, verdicts, renouncing, cancelling and
readmission, with the refusals in words (`diagnose`). The agreements and their rules
are in `grand`, below this module; the handlers in `grand_actions`."""

from __future__ import annotations

from typing import Any

from app.engine.core import (
    State,
    faith_allows_claim,
    geo,
    name,
    owned,
    player,
    relation,
    same_coalition,
    seats,
)
from app.engine.errors import IllegalAction
from app.engine.grand import (
    LASTING_TERMS,
    MAX_COUNTERS,
    MAX_TERM_TURNS,
    MAX_TRIBUTE,
    OFFER_KEYS,
    SIDE_KEYS,
    TERMS,
    _junior,
    gr,
    in_force,
)

# ====================================================================== templates (20.1)


def _claimed(state: State) -> dict[int, list[str]]:
    """Seat -> the areas it claims, sorted: one pass over the map for every
    template `offers` lists (it was one pass per pair of seats, issue 39)."""
    out: dict[int, list[str]] = {}
    for a, x in state["areas"].items():
        for s in x["claims"]:
            claimed = out.setdefault(s, [])
            if not claimed or claimed[-1] != a:  # once, however often it is listed
                claimed.append(a)
    for claimed in out.values():
        claimed.sort()
    return out


def _limits(
    state: State, giver: int, receiver: int, claimed: dict[int, list[str]] | None = None
) -> dict[str, Any]:
    """What ``giver`` may put into a bundle for ``receiver`` (20.11)."""
    gp = player(state, giver)
    areas = state["areas"]
    if claimed is None:
        claimed = _claimed(state)
    claims = [
        a
        for a in claimed.get(giver, ())
        if receiver not in areas[a]["claims"]  # 18.11
        and faith_allows_claim(state, receiver, a)  # 18.12
    ]
    return {
        "talents": max(0, int(gp["talents"])),
        "per_turn": MAX_TRIBUTE,
        "areas": [a for a in owned(state, giver) if a != gp["court"]],  # 20.11: never the court
        "claims": claims,
        "votes": True,
    }


def _terms_allowed(state: State, a: int, b: int) -> list[str]:
    """20.13: peace, non-aggression and alliance, except for junior partners and
    members of one coalition (3.55)."""
    if _junior(state, a) or _junior(state, b) or same_coalition(state, a, b):
        return []
    out = []
    if relation(state, a, b)["status"] in ("war", "neutral"):
        out.append("peace")
    bound = in_force(state, a, b)
    if not any(set(ag["terms"]) & set(LASTING_TERMS) for ag in bound):
        out.append("non_aggression")
    if not any("alliance" in ag["terms"] for ag in bound):
        out.append("alliance")
    return out


def _empty_side() -> dict[str, Any]:
    return {"talents": 0, "per_turn": 0, "areas": [], "claims": [], "votes": False}


def template(
    state: State, seat: int, other: int, claimed: dict[int, list[str]] | None = None
) -> dict[str, Any] | None:
    """The listed offer action from ``seat`` to ``other``: a default bundle that is
    itself a legal offer, and under ``template`` the range of every item."""
    if claimed is None:
        claimed = _claimed(state)
    give, get = _limits(state, seat, other, claimed), _limits(state, other, seat, claimed)
    terms = _terms_allowed(state, seat, other)
    hi = max(1, min(MAX_TERM_TURNS, int(state["end_turn"]) - int(state["turn"]) + 1))
    tpl = {"give": give, "get": get, "terms": terms, "turns": [1, hi]}
    default_give, default_get = _empty_side(), _empty_side()
    default_terms: list[str] = []
    turns = 0
    if "peace" in terms:
        default_terms = ["peace"]
    elif "non_aggression" in terms:
        default_terms, turns = ["non_aggression"], 1
    else:
        default_give["votes"], turns = True, 1  # a pledge: binding, but moves nothing

    return {
        "type": "offer",
        "power": state["players"][other]["power"],
        "give": default_give,
        "get": default_get,
        "terms": default_terms,
        "turns": turns,
        "template": tpl,
    }


def _bad(reason: str, code: str = "bad_offer") -> IllegalAction:
    return IllegalAction(reason, code)


def _side(value: Any, lim: dict[str, Any], who: str) -> dict[str, Any]:
    if value is None:
        return _empty_side()
    if not isinstance(value, dict) or not set(value) <= set(SIDE_KEYS):
        raise _bad(f"'{who}' must be an object with only {', '.join(SIDE_KEYS)}.")
    out = _empty_side()
    for key in ("talents", "per_turn"):
        v = value.get(key, 0)
        if type(v) is not int or v < 0:
            raise _bad(f"'{who}.{key}' must be a whole number, 0 or more.")
        if v > int(lim[key]):
            raise _bad(
                f"'{who}.{key}' may be at most {lim[key]} (20.11).",
                "offer_range",
            )
        out[key] = v
    for key in ("areas", "claims"):
        v = value.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise _bad(f"'{who}.{key}' must be a list of area ids.")
        if len(set(v)) != len(v):
            raise _bad(f"'{who}.{key}' names an area twice.")
        wrong = [x for x in v if x not in lim[key]]
        if wrong:
            what = "cede" if key == "areas" else "hand over a claim to"
            raise _bad(
                f"That bundle may not {what} {', '.join(sorted(wrong))} (20.11).",
                "bad_area" if key == "areas" else "bad_claim",
            )
        out[key] = sorted(v)
    votes = value.get("votes", False)
    if type(votes) is not bool or (votes and not lim["votes"]):
        raise _bad(f"'{who}.votes' must be true or false.")
    out["votes"] = votes
    return out


def fits(listed: dict[str, Any], action: Any) -> dict[str, Any]:
    """The canonical offer ``action`` makes, if it fits the listed template
    ``listed`` (same power; every item within its range); else `IllegalAction`.
    Pure: it reads nothing but the two dicts."""
    if not isinstance(action, dict) or action.get("type") != "offer":
        raise _bad("An offer must be an object with type 'offer'.", "malformed")
    extra = set(action) - OFFER_KEYS
    if extra:
        raise _bad(f"An offer has no field {', '.join(sorted(extra))}.")
    if action.get("power") != listed["power"]:
        raise _bad("There is no offer open to that power now.", "no_offer")
    tpl = listed["template"]
    if "template" in action and action["template"] != tpl:
        raise _bad("That template is not the one listed now.", "stale_offer")
    give = _side(action.get("give"), tpl["give"], "give")
    get = _side(action.get("get"), tpl["get"], "get")
    terms = action.get("terms", [])
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise _bad("'terms' must be a list of term names.")
    if len(set(terms)) != len(terms):
        raise _bad("'terms' names a term twice.")
    wrong = [t for t in terms if t not in tpl["terms"]]
    if wrong:
        raise _bad(
            f"The terms {', '.join(wrong)} cannot be offered to that power now (20.13).",
            "bad_term",
        )
    lasting = bool(
        give["per_turn"]
        or get["per_turn"]
        or give["votes"]
        or get["votes"]
        or set(terms) & set(LASTING_TERMS)
    )
    turns = action.get("turns", 0)
    lo, hi = tpl["turns"]
    if type(turns) is not int:
        raise _bad("'turns' must be a whole number.")
    if lasting and not lo <= turns <= hi:
        raise _bad(
            f"Tribute, pledged votes, non-aggression and alliance last {lo} to {hi} game turns (20.12).",
            "offer_range",
        )
    if not lasting and turns != 0:
        raise _bad("'turns' is 0 when nothing in the bundle lasts (20.12).", "offer_range")
    if not (any(give[k] for k in SIDE_KEYS) or any(get[k] for k in SIDE_KEYS) or terms):
        raise _bad("An offer must carry at least one item.", "empty_offer")
    order = {t: i for i, t in enumerate(TERMS)}
    return {
        "power": listed["power"],
        "give": give,
        "get": get,
        "terms": sorted(terms, key=lambda t: order[t]),
        "turns": turns,
    }


def offer_fits(legal: list[dict[str, Any]], action: Any) -> bool:
    """Whether ``action`` is a concrete offer fitting one of the listed templates
    (for callers that check a bot's choice against ``legal``)."""
    if not isinstance(action, dict) or action.get("type") != "offer":
        return False
    for listed in legal:
        if listed.get("type") == "offer" and listed.get("power") == action.get("power"):
            try:
                fits(listed, action)
            except IllegalAction:
                return False
            return True
    return False


# ====================================================================== prompts and actions


def prompts(state: State) -> list[dict[str, Any]] | None:
    """The verdict (20.41/20.43) and the pending offer (20.14) prompts, if any."""
    g = gr(state)
    v = g["verdict"]
    if v is not None:
        area = geo().areas[v["area"]]["name"]
        return [
            {
                "seat": v["seat"],
                "kind": "request",
                "request": "verdict",
                "label": f"The parley ruled {area} is {name(state, v['to'])}'s: return it, "
                f"or keep it and be accursed ({v['rule']}).",
                "area": v["area"],
                "from": v["to"],
            }
        ]
    off = g["offer"]
    if off is not None:
        return [
            {
                "seat": off["to"],
                "kind": "request",
                "request": "offer",
                "label": f"{name(state, off['from'])} "
                + (
                    f"asks you to cancel agreement {off['agreement']} (20.3)"
                    if off.get("kind") == "cancel"
                    else "makes you an offer" + (" (a counter-offer)" if off["depth"] else "")
                )
                + ": accept, refuse or counter.",
                "from": off["from"],
            }
        ]
    return None


def request_actions(
    state: State, seat: int, prompt: dict[str, Any], counter: bool = True
) -> list[dict[str, Any]]:
    """20.41/20.43: comply with a verdict or defy it; 20.14-20.15: accept or refuse
    an offer, or (with ``counter``: `gate.check` leaves it out when it checks an
    answer) counter it with an offer of one's own."""
    if prompt["request"] == "verdict":
        return [{"type": "verdict", "comply": True}, {"type": "verdict", "comply": False}]
    off = gr(state)["offer"]
    out: list[dict[str, Any]] = [
        {"type": "answer_offer", "answer": "accept"},
        {"type": "answer_offer", "answer": "refuse"},
    ]
    if counter and off["depth"] < MAX_COUNTERS:  # 20.15
        tpl = template(state, seat, off["from"])
        if tpl is not None:
            out.append(tpl)
    return out


def offers(state: State, seat: int) -> list[dict[str, Any]]:
    """20.14: an offer template to each power, and 20.3 an offer to cancel each
    agreement in force the seat is party to (its partner must consent)."""
    out: list[dict[str, Any]] = []
    claimed = _claimed(state)
    for other in seats(state):
        if other != seat:
            tpl = template(state, seat, other, claimed)
            if tpl is not None:
                out.append(tpl)
    out += [{"type": "cancel", "agreement": ag["id"]} for ag in in_force(state, seat)]
    return out


def diplo_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """3.3 / 20.14: in the diplomatic phase the offers, and renouncing an
    agreement in force (a breach, 20.3)."""
    out = offers(state, seat)
    for ag in in_force(state, seat):
        out.append({"type": "renounce", "agreement": ag["id"]})
    return out


def turn_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """20.14: one offer in each player turn; 20.45: an accursed power may call
    a readmission parley once per round."""
    out: list[dict[str, Any]] = []
    p = player(state, seat)
    if len(state["players"]) < 2:
        return out
    if gr(state)["offered"].get(str(seat)) != _turn_key(state):
        out += offers(state, seat)
    if p["accursed"] and "readmission" not in p["parleys"]:
        out.append({"type": "readmission"})
    return out


def _turn_key(state: State) -> str:
    return f"{state['turn']}.{state['round']}"


def diagnose(state: State, seat: int, action: dict[str, Any], kind: str) -> IllegalAction:
    t = action.get("type")
    if t == "readmission":
        if not player(state, seat)["accursed"]:
            return IllegalAction("Only the accursed seek readmission (20.45).", "not_accursed")
        return IllegalAction(
            "A readmission parley may be called once per round (20.45).", "parley_called"
        )
    if t in ("offer", "cancel") and gr(state)["offered"].get(str(seat)) == _turn_key(state):
        return IllegalAction("You have made your offer this turn (20.14).", "offered")
    if t in ("renounce", "cancel"):
        return IllegalAction("You are party to no such agreement in force.", "bad_agreement")
    return IllegalAction("That action is not allowed now.", "illegal")
