"""Standing orders, so an absent player is not helpless: answered by the server the
moment the prompt arises (logged as source ``order``).

    {"defend": {"mode": "decline"}                                  # always decline
             | {"mode": "defend", "min_population": N, "max_talents": G},
     "vote": "yes" | "no" | "abstain",
     "peace": "accept" | "reject"}

"defend areas of population >= N with up to G talents, decline elsewhere". Any key may
be absent or null (no order: the person decides). An order only ever picks one of
the engine's legal actions; if none fits, the person decides.
"""

from __future__ import annotations

from typing import Any

from app.engine.content import content
from app.services.errors import Invalid

VOTES = ("yes", "no", "abstain")
PEACE = ("accept", "reject")


def validate(orders: dict[str, Any] | None) -> dict[str, Any] | None:
    """The cleaned orders (None when empty); Invalid naming the field otherwise."""
    if not orders:
        return None
    clean: dict[str, Any] = {}
    unknown = set(orders) - {"defend", "vote", "peace"}
    if unknown:
        raise Invalid(f"Unknown standing order {sorted(unknown)[0]!r}.", field="orders")
    defend = orders.get("defend")
    if defend is not None:
        mode = defend.get("mode") if isinstance(defend, dict) else None
        if mode == "decline":
            clean["defend"] = {"mode": "decline"}
        elif mode == "defend":
            try:
                population = int(defend.get("min_population", 1))
                talents = int(defend.get("max_talents", 0))
            except (TypeError, ValueError) as exc:
                raise Invalid("Population and talents are whole numbers.", field="defend") from exc
            if not 1 <= population <= 3 or talents < 0:
                raise Invalid(
                    "Defend areas of population 1 to 3 with 0 or more talents.", field="defend"
                )
            clean["defend"] = {
                "mode": "defend",
                "min_population": population,
                "max_talents": talents,
            }
        else:
            raise Invalid("A defend order has mode 'decline' or 'defend'.", field="defend")
    vote = orders.get("vote")
    if vote is not None:
        if vote not in VOTES:
            raise Invalid(f"A vote order is one of {', '.join(VOTES)}.", field="vote")
        clean["vote"] = vote
    peace = orders.get("peace")
    if peace is not None:
        if peace not in PEACE:
            raise Invalid("A peace order is 'accept' or 'reject'.", field="peace")
        clean["peace"] = peace
    return clean or None


def population(area_id: str) -> int:
    for area in content().get("areas", []) or []:
        if area["id"] == area_id:
            return int(area.get("population", 1))
    return 1


def order_action(
    orders: dict[str, Any] | None, prompt: dict[str, Any], legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The legal action `orders` give for `prompt`, or None (the person decides)."""
    if not orders:
        return None
    kind = prompt.get("kind")
    chosen: dict[str, Any] | None = None
    if kind == "defend" and orders.get("defend"):
        order = orders["defend"]
        decline = {"type": "decline"}
        if (
            order["mode"] == "decline"
            or population(str(prompt.get("area"))) < order["min_population"]
        ):
            chosen = decline
        else:
            defends = [
                a
                for a in legal
                if a.get("type") == "defend" and a.get("talents", 0) <= order["max_talents"]
            ]
            chosen = max(defends, key=lambda a: a.get("talents", 0)) if defends else decline
    elif kind == "vote" and orders.get("vote"):
        chosen = {"type": "vote", "choice": orders["vote"]}
    elif kind == "request" and orders.get("peace"):
        move = "accept_peace" if orders["peace"] == "accept" else "reject_peace"
        chosen = next((a for a in legal if a.get("move") == move), None)
    return chosen if chosen is not None and chosen in legal else None
