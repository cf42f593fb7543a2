"""How long a person takes over each decision, to turn bot games into minutes of live play.

Bot games are over in seconds; a designer needs to know how long the same game
takes a table of people. Each decision is charged the seconds a person who
knows the rules takes over it: a quick acknowledgement (pass, vote, draw) a few
seconds, a choice with odds to weigh (a petition, taxation, defense) more, and
an endeavour, whose target and extra talents are chosen on the map, the most.
Votes in a parley are cast at once by every voter, so a run of consecutive
votes is charged once. A decision with a single legal action costs nothing: the
server plays it for the person (`app.services.moves.forced_action`). Taxing the court has
no odds to weigh (no rebellion check, rules 16.17) and the page raises its whole yield in
one click, so it is charged as a click. An endeavour where the seat's last endeavour acted
(the same base and target) is the kind and the talents only: the page keeps the place from one
endeavour to the next (``carriedPlace`` in static/js/game/decide.js). The figures are a model, stated here so the report
can say what its minutes mean; they are not measured from players.
"""

from __future__ import annotations

from typing import Any

SECONDS_BY_ACTION: dict[str, float] = {
    "draw": 4.0,
    "dismiss": 4.0,
    "end_turn": 3.0,
    "petition": 8.0,
    "play": 10.0,
    "choose_slot": 6.0,
    "endeavour": 25.0,
    "defend": 10.0,
    "decline": 3.0,
    "tax": 12.0,
    "plunder": 10.0,
    "recruit": 10.0,
    "remove_tie": 6.0,
    "reduce_fort": 6.0,
    "waive_tie": 5.0,
    "call_parley": 15.0,
    "vote": 6.0,
    "diplo": 8.0,
}
DEFAULT_SECONDS = 6.0
COURT_TAX_SECONDS = 4.0
#: an endeavour at the place of the seat's last one: no picks on the map
ENDEAVOUR_AGAIN_SECONDS = 15.0


def seconds_for(
    action: dict[str, Any],
    previous: dict[str, Any] | None,
    choices: int = 2,
    court: str | None = None,
    place: tuple[Any, Any] | None = None,
) -> float:
    """The seconds a person spends on ``action``, chosen from ``choices`` legal
    actions, given the action before it, the mover's ``court`` and ``place``, the (base,
    target) of the mover's last endeavour (``place_of``)."""
    kind = str(action.get("type", ""))
    if choices == 1 and kind != "offer":
        return 0.0  # no choice: the server plays it (app.services.moves.forced_action)
    if kind == "vote" and previous is not None and previous.get("type") == "vote":
        return 0.0  # voters decide at the same time
    if kind == "tax" and court is not None and action.get("area") == court:
        return COURT_TAX_SECONDS  # no check (16.17): one click on the page
    if kind == "endeavour" and place is not None and place_of(action) == place:
        return ENDEAVOUR_AGAIN_SECONDS  # the page kept the place: kind and talents only
    return SECONDS_BY_ACTION.get(kind, DEFAULT_SECONDS)


def place_of(action: dict[str, Any]) -> tuple[Any, Any]:
    """Where an endeavour acts: its (base, target)."""
    return action.get("base"), action.get("target")
