"""Play one whole game with bots, through the engine API only.

The loop is the one the server runs for bot seats: ``pending`` → the prompted
seat's ``legal_actions`` and ``view`` → ``choose_action`` → ``apply``. It
records what the simulation and the tests need: the action log (for replay),
rounds, petitions and busts, and any error (an exception from the engine, a
bot choosing an action not in the legal list, a prompt with no legal action,
a game that does not end).
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from app import engine
from app.bots import choose_action
from app.bots.temperament import temperament_for

Action = dict[str, Any]

# A game that takes more actions than this is stuck, not long.
MAX_ACTIONS = 200_000


@dataclass
class GameRecord:
    scenario: str
    seats: list[str]
    seed: int
    levels: list[str]
    options: dict[str, Any] | None = None
    log: list[tuple[int, Action]] = field(default_factory=list)
    actions: int = 0
    rounds: int = 0
    turns: int = 0
    petitions: int = 0
    busts: int = 0
    errors: list[str] = field(default_factory=list)
    illegal_choices: int = 0
    outcome: dict[str, Any] | None = None
    final_hash: str | None = None
    politics: dict[str, int] = field(default_factory=lambda: dict.fromkeys(POLITICS, 0))
    # The first game turn's diplomatic phase: (power, move, other power) of every
    # action but a pass, sorted (``simulate`` counts how often games open alike).
    opening: tuple[tuple[str, str, str], ...] = ()
    # Each seat's temperament (app/bots/temperament.py), "" for a seat no bot plays.
    temperaments: list[str] = field(default_factory=list)

    @property
    def winner_power(self) -> str | None:
        if not self.outcome:
            return None
        winner = self.outcome.get("winner")
        if isinstance(winner, int) and 0 <= winner < len(self.seats):
            return self.seats[winner]
        return None

    def scores(self) -> list[float]:
        if not self.outcome:
            return []
        raw = self.outcome.get("scores") or {}
        values: list[float] = []
        items = raw.values() if isinstance(raw, dict) else raw
        for item in items:
            total = item.get("total", item.get("vp", 0)) if isinstance(item, dict) else item
            if isinstance(total, int | float):
                values.append(float(total))
        return values


# The political counters of a game (see ``count_politics``).
POLITICS: tuple[str, ...] = (
    "wars_declared",
    "hegemony_claims",
    "coalition_joins",
    "peace_made",
    "parleys_called",
    "parleys_carried",
    "pvp_conquests",
    "exiles",
    "returns",
    "asylum_granted",
    "tribute_paid",
    # grand diplomacy (docs/rules.md 20)
    "offers_made",
    "counters",
    "offers_accepted",
    "agreements_binding",
    "agreement_tribute",
    "breaches",
    "breach_parleys",
    "accursed",
    "readmission_parleys",
    "readmissions",
    "contests_20_41",
    "inheritances_20_43",
    "inherit_contests_20_43",
    "verdicts_defied",
    "neutral_peace",
    "offers_with_area_or_claim",
    "offer_repeats",
) + (
    # The world that acts (rules 17.5x, 19.34, 21.31, 24): see ``count_world``.
    "usurpers_raised",
    "usurper_stirs",
    "usurper_rebellions",
    "usurper_conquests",
    "usurper_sways",
    "usurpers_fallen",
    "usurper_buy_offs",
    "exile_returns_via_usurper",
    "horde_threats",
    "horde_raids",
    "raids_defended",
    "raids_repulsed",
    "heirless_unrest",
)


def count_politics(
    counts: dict[str, int],
    action: Action,
    events: list[dict[str, Any]],
    owners_before: dict[str, Any],
    owners_after: dict[str, Any],
) -> None:
    """Add one applied action's political happenings to ``counts`` (from the
    action, the public events and the change of area owners)."""
    move = action.get("move")
    if move == "claim_hegemony":
        counts["hegemony_claims"] += 1
    elif move == "accept_join":
        counts["coalition_joins"] += 1
    for event in events:
        rule, text = event.get("rule"), str(event.get("text", ""))
        kind, data = event.get("kind"), event.get("data") or {}
        if event.get("to") is not None:
            continue  # private copies (an offer's bundle): counted once, publicly
        if kind == "parley" and "calls a parley" in text:
            counts["parleys_called"] += 1
            q = data.get("question")
            if q == "breach":
                counts["breach_parleys"] += 1
            elif q == "readmit":
                counts["readmission_parleys"] += 1
            elif q == "contest":
                counts["contests_20_41"] += 1
            elif q == "inherit":
                counts["inherit_contests_20_43"] += 1
        if kind == "offer":
            counts["offers_made"] += 1
        elif rule == "20.15":
            counts["counters"] += 1
        elif kind == "agreement" and "accepts" in text:
            counts["offers_accepted"] += 1
            if "binding" in text:
                counts["agreements_binding"] += 1
        elif kind == "tribute" and rule == "20.12":
            counts["agreement_tribute"] += 1
        elif kind == "breach":
            counts["breaches"] += 1
        elif kind == "accursed":
            counts["readmissions" if rule == "20.45" else "accursed"] += 1
        elif kind == "parley" and "defies" in text:
            counts["verdicts_defied"] += 1
        elif kind == "conquest" and rule == "20.43":
            counts["inheritances_20_43"] += 1
        elif rule == "3.23" and "make peace" in text and data.get("was") == "neutral":
            counts["neutral_peace"] += 1
        if (
            rule == "3.21"
            and "declares war" in text
            or (rule == "3.22" and "breaks the peace" in text)
        ):
            counts["wars_declared"] += 1
        elif rule == "3.23" and "make peace" in text:
            counts["peace_made"] += 1
        elif rule == "20.5" and "carried" in text:
            counts["parleys_carried"] += 1
        elif rule == "21.1":
            counts["exiles"] += 1
        elif rule == "21.3":
            counts["returns"] += 1
        elif rule == "21.2" and "grants" in text:
            counts["asylum_granted"] += 1
        elif event.get("kind") == "tribute" and rule != "20.12":
            counts["tribute_paid"] += 1
    for area, old in owners_before.items():
        new = owners_after.get(area)
        if isinstance(old, int) and isinstance(new, int) and old != new:
            counts["pvp_conquests"] += 1
    count_world(counts, events)


def count_world(counts: dict[str, int], events: list[dict[str, Any]]) -> None:
    """Add the world's doings in ``events`` to ``counts``: usurpers (17.5-17.57),
    exiles returning through them (21.31), hordes (24.12-24.15), heirless unrest (19.34)."""
    for event in events:
        rule = event.get("rule")
        data = event.get("data") or {}
        what = data.get("event")
        if rule == "17.5" and what == "raised":
            counts["usurpers_raised"] += 1
        elif rule == "17.53" and what == "stir":
            counts["usurper_stirs"] += 1
        elif rule == "17.53" and what == "rebellion":
            counts["usurper_rebellions"] += 1
        elif rule == "17.54" and data.get("result") == "taken":
            counts["usurper_conquests" if what == "conquest" else "usurper_sways"] += 1
        elif rule == "17.57" and what == "fell":
            counts["usurpers_fallen"] += 1
        elif what == "bought":
            counts["usurper_buy_offs"] += 1
        elif rule == "24.12" and data.get("threat"):
            counts["horde_threats"] += 1
        elif rule in ("24.13", "24.15") and data.get("result") in ("raid", "sack"):
            counts["horde_raids"] += 1
        elif rule == "13.21" and "horde" in data:
            counts["raids_defended"] += 1
        elif rule == "24.14":
            counts["raids_repulsed"] += 1
        elif rule == "19.34" and what == "heirless":
            counts["heirless_unrest"] += 1
        if rule == "21.31" and event.get("kind") in ("exile", "usurper"):
            if what == "bought" and not data.get("exile"):
                continue
            counts["exile_returns_via_usurper"] += 1


class OfferWatch:
    """What ``count_politics`` cannot see in one action's events: the first game
    turn's diplomatic actions (the game's opening), offers that cede an area or a
    claim, and a new offer to a power that refused one from the same seat in that
    game turn (a repeat after a refusal)."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.first_turn = state.get("turn")
        self.opening: list[tuple[str, str, str]] = []
        self.refused: set[tuple[int, int, Any]] = set()  # (offerer, refuser, game turn)
        self._ceding = False
        self._repeat = False

    def before(self, state: dict[str, Any], seat: int, action: Action) -> None:
        kind = action.get("type")
        self._ceding = self._repeat = False
        powers = [str(p.get("power")) for p in state["players"]]
        pending = (state.get("grand") or {}).get("offer")
        if kind == "answer_offer" and action.get("answer") == "refuse" and pending:
            self.refused.add((int(pending["from"]), seat, state.get("turn")))
        if kind == "offer":
            sides = [action.get("give") or {}, action.get("get") or {}]
            self._ceding = any(side.get("areas") or side.get("claims") for side in sides)
            other = powers.index(str(action.get("power")))
            if pending is None:  # a new offer, not a counter (20.15)
                self._repeat = (seat, other, state.get("turn")) in self.refused
        if state.get("phase") == "diplomacy" and state.get("turn") == self.first_turn:
            move = str(action.get("move") or kind)
            if move != "pass":
                self.opening.append((powers[seat], move, str(action.get("power") or "")))

    def after(self, counts: dict[str, int]) -> None:
        counts["offers_with_area_or_claim"] += int(self._ceding)
        counts["offer_repeats"] += int(self._repeat)


def owners(state: dict[str, Any]) -> dict[str, Any]:
    return {a: x["owner"] for a, x in state["areas"].items()}


def is_bust(event: dict[str, Any]) -> bool:
    """Whether an event reports a failed petition (rules 5.6)."""
    kind = str(event.get("kind", ""))
    return kind in {"petition_failed", "petition_bust", "bust"} or (
        "petition" in kind and ("fail" in kind or "bust" in kind)
    )


def play_game(
    scenario: str,
    seats: list[str],
    seed: int,
    levels: list[str] | str = "heuristic",
    options: dict[str, Any] | None = None,
    bot_seed: int | None = None,
    use_explain: bool = False,
    keep_log: bool = True,
    on_step: Callable[[dict[str, Any], int, Action, list[dict[str, Any]], int], None] | None = None,
    max_actions: int = MAX_ACTIONS,
    in_place: bool = True,
    budget: Any = None,
) -> GameRecord:
    """Play one game to its end; errors are recorded, never raised.

    ``on_step(state, seat, action, events, choices)`` is called after every applied
    action with the new state and the number of legal actions the seat chose from.
    With ``in_place`` (the default) the game's one state is moved by
    `engine.apply_in_place`; otherwise each action makes a new state with the
    copying `engine.apply`. Both give the same game, bit for bit (tests/
    engine_properties/test_in_place.py); with ``in_place`` the state passed to
    ``on_step`` is the same object every time and must only be read.
    """
    if isinstance(levels, str):
        levels = [levels] * len(seats)
    record = GameRecord(scenario, list(seats), seed, list(levels), options)
    record.temperaments = [temperament_for(seed, i) for i in range(len(seats))]
    rng = random.Random(seed * 7919 + 17 if bot_seed is None else bot_seed)
    try:
        state = engine.new_game(scenario, list(seats), seed, options)
    except Exception as exc:
        record.errors.append(f"new_game: {exc!r}")
        return record
    seen_rounds: set[tuple[Any, Any]] = set()
    watch = OfferWatch(state)
    try:
        while engine.outcome(state) is None:
            if record.actions >= max_actions:
                record.errors.append(f"no end after {max_actions} actions")
                break
            if state.get("phase") == "turn":  # rounds played (4.3), not phases
                seen_rounds.add((state.get("turn"), state.get("round")))
            prompts = engine.pending(state)
            if not prompts:
                record.errors.append(f"stalled: no prompt at action {record.actions}")
                break
            seat = int(prompts[0]["seat"])
            # A lazy, read-only view: the bot builds only the parts it reads.
            seat_view = engine.seat_view(state, seat)
            # Computed once for this position: apply_in_place checks the action
            # against the same list (the engine's memo of a state driven in place).
            legal = engine.legal_actions(state, seat)
            if not legal:
                record.errors.append(
                    f"prompt {prompts[0].get('kind')!r} for seat {seat} with no legal action"
                )
                break
            explain = _explainer(state, seat) if use_explain else None
            # A SeatView reads as the view dict (a Mapping with the same keys and values).
            view = cast(dict[str, Any], seat_view)
            action = choose_action(
                record.levels[seat],
                view,
                legal,
                rng,
                explain,
                state=state,
                budget=budget,
                temperament=record.temperaments[seat],
            )
            try:
                engine.check(state, seat, action)  # the engine's own gate (20.14 for offers)
            except engine.IllegalAction:
                record.illegal_choices += 1
                record.errors.append(f"bot chose an unlisted action {action!r}")
                break
            if action.get("type") == "petition":
                record.petitions += 1
            before = owners(state)
            watch.before(state, seat, action)
            if in_place:
                _, events = engine.apply_in_place(state, seat, action, undoable=False)
            else:
                state, events = engine.apply(state, seat, action)
            count_politics(record.politics, action, events, before, owners(state))
            watch.after(record.politics)
            record.actions += 1
            if keep_log:
                record.log.append((seat, action))
            record.busts += sum(1 for event in events if is_bust(event))
            if on_step is not None:
                on_step(state, seat, action, events, len(legal))
    except Exception as exc:
        record.errors.append(
            f"{type(exc).__name__} at action {record.actions}: {exc}\n{traceback.format_exc()}"
        )
    record.opening = tuple(sorted(watch.opening))
    record.rounds = len(seen_rounds)
    record.turns = int(state.get("turn") or 0)
    record.outcome = engine.outcome(state) if not record.errors else None
    try:
        record.final_hash = engine.state_hash(state)
    except Exception as exc:  # pragma: no cover - reported, not raised
        record.errors.append(f"state_hash: {exc!r}")
    return record


def _explainer(state: dict[str, Any], seat: int) -> Callable[[Action], dict[str, Any]]:
    def explain(action: Action) -> dict[str, Any]:
        answer: dict[str, Any] = engine.explain(state, seat, action)
        return answer

    return explain
