"""The strong bot: information-set Monte Carlo search over what its seat can know.

For a decision with several legal actions the bot

1. keeps the few most promising candidates by the standard evaluation (the
   standard bot's own choice always among them; ending the turn only when that
   is the standard choice);
2. repeatedly **determinizes**: builds one complete game state consistent with
   its seat's view, re-dealing every hidden part from its own RNG (``determinize``);
3. plays every candidate in that same determinization (common random numbers:
   the candidates are compared on the same sampled world), follows each with a
   rollout of ``horizon`` actions by the standard policy for every seat, and
   scores the end position for its seat (``leaf_value``);
4. races the candidates: after a few determinizations a candidate clearly no
   better than the standard choice (its mean paired advantage below zero by two
   standard errors) is no longer played, and the search stops when none is left;
5. stops at the iteration or time budget and plays the candidate whose mean
   paired advantage over the standard choice is positive by more than one
   standard error (otherwise the standard choice: the search overrides the
   heuristic only on evidence).

It never reads what its seat cannot see: ``determinize`` overwrites every hidden
part of the state before anything else reads it, from the hidden parts' public
sizes and a canonical order, so the same view and the same bot RNG give the
same choice whatever the hidden parts were (tests/bots/test_strong.py).

Hidden parts re-dealt: every other seat's hand, draw pile and discard pile (as
one pool of that seat's cards, dealt back by their public counts), our own draw
pile's order, the market deck, the fate deck with the other seats' holding
cards, and the RNG (so every future counter draw, die and shuffle). The counter
pool itself is public (its counts are in the view).

Secret ballots (parley votes) and tie-waiver answers are not searched: votes and
waivers are left to the standard policy, which reads only the view.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app import engine
from app.bots import search_step
from app.bots.board import area_map
from app.bots.evaluate import RESULT_VALUE, Evaluator
from app.bots.heuristic import choose_heuristic, rank_heuristic
from app.bots.politics import barred_powers, finish
from app.engine import rng as engine_rng
from app.engine.core import card_type
from app.engine.deck import draw_odds, petition_cost

Action = dict[str, Any]
State = dict[str, Any]

# Decisions the search takes; every other prompt goes to the standard policy.
SEARCHED_PROMPTS = frozenset(("turn", "advisor", "diplomacy", "defend", "request", "initiative"))


# Racing: after this many determinizations a challenger whose mean advantage over
# the standard choice is below zero by more than RACE_Z standard errors is no longer
# played (an identical one, with no spread, goes too).
RACE_AFTER = 8
RACE_Z = 2.0


# A rollout that plays to the end of the seat's own turn stops after this many actions.
TURN_END_LIMIT = 60


@dataclass
class Budget:
    """How much the strong bot may think per decision."""

    iterations: int = 48  # determinizations (each plays every candidate once)
    seconds: float = 0.8  # time limit, checked between rollouts
    candidates: int = 5  # actions searched (the standard choice among them)
    horizon: int = 24  # rollout length in actions after the candidate
    #: what ``seconds`` counts: "wall" (a server: a person waits on the clock) or "cpu",
    #: the searching thread's own CPU time, so that a measurement run's Strong seat
    #: thinks as much on a busy or paused machine as on a quiet one (`tournament`)
    clock: str = "wall"

    def timer(self) -> Callable[[], float]:
        return time.thread_time if self.clock == "cpu" else time.perf_counter


DEFAULT_BUDGET = Budget()


@dataclass
class SearchStats:
    """What the last search did (for the bench and the tests)."""

    iterations: int = 0
    rollouts: int = 0
    steps: int = 0  # actions applied (each candidate and every rollout action)
    seconds: float = 0.0
    searched: bool = False


LAST = SearchStats()


def _card_key(card: dict[str, Any]) -> tuple[Any, ...]:
    return (str(card.get("kind")), str(card.get("ref")), str(card.get("id", "")))


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A complete state that agrees with ``seat``'s view, hidden parts drawn from ``rng``.

    Reads of the hidden parts are limited to their sizes (public counts) and the
    multiset of cards they hold, put in a canonical order before dealing, so the
    result depends on the view and ``rng`` only.
    """
    st = search_step.clone(state)
    players = st["players"]
    interrupt = st.get("interrupt") or {}
    for other, p in enumerate(players):
        deck = p["deck"]
        if other == seat:
            draw = sorted(deck["draw"], key=_card_key)
            rng.shuffle(draw)
            deck["draw"] = draw
            continue
        # An attacker's hand card is shown by the endeavour it is being used for.
        keep_hand = interrupt.get("attacker") == other
        pool = list(deck["draw"]) + list(deck["discard"])
        hand = deck["hand"]
        if hand is not None and not keep_hand:
            pool.append(hand)
        pool.sort(key=_card_key)
        rng.shuffle(pool)
        n_draw, n_discard = len(deck["draw"]), len(deck["discard"])
        if hand is not None and not keep_hand:
            deck["hand"] = pool.pop()
        deck["draw"] = pool[:n_draw]
        deck["discard"] = pool[n_draw : n_draw + n_discard]
    market = st["market"]
    market_deck = sorted(market["deck"])
    rng.shuffle(market_deck)
    market["deck"] = market_deck
    fate = st["fate"]
    fate_pool = list(fate["deck"])
    counts = []
    for other, p in enumerate(players):
        if other != seat:
            counts.append((other, len(p["holdings"])))
            fate_pool += p["holdings"]
    fate_pool.sort(key=_card_key)
    rng.shuffle(fate_pool)
    for other, n in counts:
        players[other]["holdings"] = sorted(fate_pool[:n], key=_card_key)
        fate_pool = fate_pool[n:]
    fate["deck"] = fate_pool
    st["counters"]["pool"] = sorted(st["counters"]["pool"])
    st["rng"] = engine_rng.seed_state(rng.getrandbits(62))
    return st


def leaf_value(state: State, seat: int) -> float:
    """How good a position is for ``seat``: its worth against the best rival's.

    A power's worth is its score (26.1, popularity counted by the half point) plus
    what the score does not see yet, in the standard evaluation's units
    (``evaluate.RESULT_VALUE``): C results standing against an area (10.33) as a
    share of it, ties, unrest, taxable social levels, its treasury and influence.
    Within the seat's own turn the search compares candidates at the end of that
    turn (``rollout``'s ``until_turn_end``), where unused years no longer count.
    """
    scores = engine.score(state)
    n = len(state["players"])
    extra = [0.0] * n
    _, pop, _ = area_map()
    for area_id, area in state["areas"].items():
        owner = area["owner"]
        if isinstance(owner, int):
            if area["unrest"]:
                extra[owner] += RESULT_VALUE["U"]  # negative
            if area["social"] > 0:
                extra[owner] += 0.3 * area["social"]
        for who in area["ties"]:
            if who != owner:
                extra[who] += RESULT_VALUE["T"]
        if area["partial"]:
            size = pop.get(area_id, 1.0)
            for who, bases in area["partial"].items():
                results = sum(bases.values())
                extra[int(who)] += min(1.0, results / max(1.0, size)) * size * 0.8
    worth = []
    for s, p in enumerate(state["players"]):
        worth.append(
            float(scores[s]["standing"])  # 26.2: total less the victory level
            + 0.5 * (int(p["popularity"]) % 2)
            + extra[s]
            + 0.15 * float(p["talents"])
            + 0.2 * float(p["influence"])
        )
    mine = worth[seat]
    rivals = [w for s, w in enumerate(worth) if s != seat]
    return mine - (max(rivals) if rivals else 0.0)


class _LazyScore(Mapping[str, Any]):
    """``view["score"]`` for a rollout view, computed only if the policy reads it."""

    def __init__(self, state: State) -> None:
        self._state = state
        self._rows: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        if self._rows is None:
            self._rows = {str(s): v for s, v in engine.score(self._state).items()}
        return self._rows

    def __getitem__(self, key: str) -> Any:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._state["players"])


def _rollout_interrupt(state: State) -> dict[str, Any] | None:
    """The public part of an interrupt the policy reads: an endeavour's target, or a
    horde's raid (rules 24.13: its kind, target and rating)."""
    it = state["interrupt"]
    if it is not None:
        return {"target": it["action"]["target"]}
    raid = (state.get("world") or {}).get("raid")
    if raid is not None:
        return {"kind": "raid", "target": raid["area"], "rating": raid["rating"]}
    return None


def rollout_view(state: State, seat: int, prompts: list[dict[str, Any]]) -> dict[str, Any]:
    """What the standard policy reads of ``engine.view``, built cheaply for a rollout.

    Only ever built on a sampled world (every hidden part already re-dealt), so
    reading the state here reveals nothing; the shape follows ``engine.view``
    (the policy reads it without changing it, so the areas are shared, not copied).
    """
    p = state["players"][seat]
    deck = p["deck"]
    pa = state["parley"]
    return {
        "turn": state["turn"],
        "end_turn": state["end_turn"],
        "players": [
            {
                "seat": i,
                "power": q["power"],
                "talents": q["talents"],
                "influence": q["influence"],
                "popularity": q["popularity"],
                "years_left": q["years_left"],
                "court": q["court"],
                "exiled": q["exiled"],
                "accursed": q["accursed"],
                "emperor": q["emperor"],
            }
            for i, q in enumerate(state["players"])
        ],
        "areas": state["areas"],
        "market": state["market"],
        "relations": state["relations"]["pairs"],
        "hegemons": state["relations"]["hegemons"],
        "coalitions": state["relations"]["coalitions"],
        "score": _LazyScore(state),
        "prompts": prompts,
        "interrupt": _rollout_interrupt(state),
        "parley": None if pa is None else {"caller": pa["caller"], "area": pa["area"]},
        "me": {
            "seat": seat,
            "deck_list": [
                {"type": card_type(c), "kind": c["kind"]} for c in deck["draw"] + deck["discard"]
            ],
            "draw_odds": draw_odds(p),
            "petition_cost": petition_cost(state, seat),
            "strikes": p["strikes"],
        },
    }


def rollout(
    state: State, horizon: int, rng: random.Random, until_turn_end: int | None = None
) -> tuple[State, int]:
    """Play up to ``horizon`` actions with the standard policy (no ``explain``) for
    every seat, in place on ``state`` (a private sampled world); the end state and
    the number of actions played. With ``until_turn_end=seat`` it plays instead until
    that seat's turn is over (at most ``TURN_END_LIMIT`` actions): candidates of one
    turn are compared where they all stand, with the turn's years spent."""
    played = 0
    limit = TURN_END_LIMIT if until_turn_end is not None else horizon
    for _ in range(limit):
        if state.get("over"):
            break
        if until_turn_end is not None and (
            state["players"][until_turn_end]["had_turn"] or state.get("phase") != "turn"
        ):
            break
        prompts = engine.pending(state)
        if not prompts:
            break
        who = int(prompts[0]["seat"])
        legal = engine.legal_actions(state, who)
        if not legal:
            break
        action = choose_heuristic(rollout_view(state, who, prompts), legal, rng, None)
        search_step.step_in_place(state, who, action)
        played += 1
    return state, played


def _bounds(total: float, squares: float, n: int, z: float) -> tuple[float, float]:
    """Mean of ``n`` paired differences less and plus ``z`` standard errors (an
    infinite interval with fewer than two)."""
    mean = total / n
    if n < 2:
        return -math.inf, math.inf
    var = max(0.0, squares / n - mean * mean)
    err = z * math.sqrt(var / n)
    return mean - err, mean + err


def choose_strong(
    state: State,
    seat: int,
    view: dict[str, Any],
    legal: list[Action],
    rng: random.Random,
    explain: Callable[[Action], dict[str, Any]] | None = None,
    budget: Budget | None = None,
    temperament: str | None = None,
    offers: bool = True,
) -> Action:
    """The search bot's choice for ``seat`` (see the module docstring); with
    ``offers=False`` (``strong_silent``, the ablation of its negotiation) it never makes
    an offer or a counter, and searches the rest as usual."""
    global LAST
    budget = budget or DEFAULT_BUDGET
    LAST = SearchStats()
    if not offers:
        legal = [a for a in legal if a.get("type") != "offer"] or legal
    if len(legal) == 1:
        return legal[0]
    prompts = [p for p in (view.get("prompts") or []) if p.get("seat") == seat]
    kind = prompts[0].get("kind") if prompts else None
    request = prompts[0].get("request") if prompts else None
    if kind not in SEARCHED_PROMPTS or request == "waive_tie":
        return choose_heuristic(view, legal, rng, explain, temperament, offers)
    ranked = rank_heuristic(view, legal, rng, explain, temperament)
    # Ending the turn early is never searched against the standard choice: its cost
    # (years unused, the deck and conquests that grow from acting) lies beyond what a
    # leaf can see, so a short search would end turns too soon.
    # Nor an offer the bot's own rules bar (a new one to a power that refused us this
    # game turn, issue 27): the search would find it harmless to ask again.
    bar = barred_powers(view)

    def searched(action: Action) -> bool:
        of = action.get("type")
        return of != "end_turn" and not (of == "offer" and action.get("power") in bar)

    ranked = [ranked[0]] + [i for i in ranked[1:] if searched(legal[i])]
    # An offer template is searched as the bundle (or counter) the standard bot would
    # size for it (app/bots/bundles.py), not as the template's default bundle.
    candidates = [finish(view, legal[i], temperament) for i in ranked[: max(1, budget.candidates)]]
    if len(candidates) == 1:
        return candidates[0]
    # In our own turn, play each candidate out to the end of the turn; elsewhere
    # (diplomacy, defense, initiative, requests) a fixed horizon.
    own_turn = kind in ("turn", "advisor")
    now = budget.timer()
    started = now()
    n = len(candidates)
    sums = [0.0] * n
    squares = [0.0] * n
    alive = list(range(1, n))  # challengers of the standard choice (index 0)
    done = 0
    for _ in range(max(1, budget.iterations)):
        world = determinize(state, seat, rng)
        roll_seed = rng.getrandbits(32)
        values: dict[int, float] = {}
        for i in [0, *alive]:
            after = search_step.step(world, seat, candidates[i])
            end, played = rollout(
                after, budget.horizon, random.Random(roll_seed), seat if own_turn else None
            )
            values[i] = leaf_value(end, seat)
            LAST.rollouts += 1
            LAST.steps += 1 + played
        for i in alive:
            diff = values[i] - values[0]
            sums[i] += diff
            squares[i] += diff * diff
        done += 1
        if done >= RACE_AFTER:
            # Racing (successive elimination): a challenger clearly no better than the
            # standard choice is dropped, so the budget goes to the close calls.
            alive = [i for i in alive if _bounds(sums[i], squares[i], done, RACE_Z)[1] > 0.0]
            if not alive:
                break
        if now() - started >= budget.seconds:
            break
    LAST.iterations = done
    LAST.seconds = now() - started
    LAST.searched = True
    best, best_margin = 0, 0.0
    for i in alive:
        margin = _bounds(sums[i], squares[i], done, 1.0)[0]
        if margin > best_margin:
            best, best_margin = i, margin
    return candidates[best]


__all__ = ["Budget", "DEFAULT_BUDGET", "Evaluator", "choose_strong", "determinize", "leaf_value"]
