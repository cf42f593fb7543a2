"""The interactive tutorial: a guided teaching game against a bot.

It is the teaching scenario (Kushan against the Han, at war from the start) cut to one
game turn of two rounds, played with a fixed seed. Because the engine is deterministic
and the bot's choices are seeded per step (app/services/moves.py), the game unfolds the
same way whenever the player follows the coach: the seed was chosen (by
``scripts/tutorial_seed.py``) so that the coach's path meets every situation a
newcomer must see — the diplomatic choice, a first draw, a petition that busts, an
endeavour with its odds, a tax with its rebellion risk, a parley and a defense, in
that order: the first draw comes before any tax, parley or defense.

Before the first move the coach says how a game is won (26.1-26.2: victory points,
the power's victory level, standing); a step that needs one area names it.

The coach on the page (static/js/game/tutor.js) recognises the situation from the
seat view and the legal actions, highlights the control and says why, with the rule.
``coach_choice`` is the same coach in Python: the choice the page asks for, used by the
seed search and by the tests that check the script still holds.

Leaving and resuming: the tutorial is an ordinary game without a clock; the home page
offers "Continue the tutorial" while it runs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy.orm import Session

from app import engine
from app.engine.content import content
from app.services import gamelog, lobby, play, unit
from app.store import lobby as games
from app.store import log
from app.store.models import Game, User

SCENARIO = "tutorial"
POWERS = ("kushan", "han")
#: one game turn of two rounds: a whole game in a few minutes
OPTIONS: dict[str, Any] = {"rounds": 2, "tutorial": True}
#: found by scripts/tutorial_seed.py (the coach's path meets every situation)
SEED = 23
BOT = "heuristic"

#: the situations, in the order the coach's path meets them
SITUATIONS = ("diplomacy", "draw", "petition_bust", "endeavour", "tax", "parley", "defense")
#: the step before the first move: how a game is won (read, not played)
GOAL = "goal"


def is_tutorial(game: Game) -> bool:
    return bool((game.options or {}).get("tutorial"))


def current(db: Session, user_id: int | None) -> Game | None:
    """The user's running tutorial, if any (to resume it)."""
    if user_id is None:
        return None
    running = games.running_of(db, user_id, SCENARIO)
    return next((g for g in running if is_tutorial(g)), None)


def start(db: Session, user: User) -> Game:
    """Resume the user's tutorial, or set up a new one: committed and published by the
    unit of work (app/services/unit.py)."""
    running = current(db, user.id)
    if running is not None:
        return running
    work = unit.Work(db)
    game = work.add(_set_up(db, user, work))
    work.commit()
    return game


def _set_up(db: Session, user: User, work: unit.Work) -> Game:
    """A new tutorial game for `user`, started: its first prompts settled in `work`."""
    game = lobby.create_game(
        db,
        user,
        SCENARIO,
        [lobby.SeatSpec("human"), lobby.SeatSpec("bot", BOT)],
        pace="none",
        public=False,
        host_power=POWERS[0],
        options=OPTIONS,
    )
    game.seats[1].power = POWERS[1]
    game.seed = SEED
    state = engine.new_game(SCENARIO, list(POWERS), SEED, dict(OPTIONS))
    game.status = "active"
    game.started_at = work.now
    gamelog.save_state(db, game, state, snapshot=True)
    lobby.touch(game)
    work.changed(game, state=state)
    return game


# --------------------------------------------------------------------------- the coach


def situation(view: dict[str, Any], legal: list[dict[str, Any]]) -> str | None:
    """Which of the tutorial's situations the seat is in (None: an ordinary step)."""
    kinds = {a["type"] for a in legal}
    me = view.get("me") or {}
    if "diplo" in kinds:
        return "diplomacy"
    if "defend" in kinds:
        return "defense"
    if "vote" in kinds:
        return "parley"
    if "petition" in kinds and me.get("hand"):
        return "petition_bust"
    if "endeavour" in kinds:
        return "endeavour"
    if "tax" in kinds:
        return "tax"
    if "call_parley" in kinds:
        return "parley"
    if "draw" in kinds:
        return "draw"
    return None


def coach_choice(
    view: dict[str, Any], legal: list[dict[str, Any]], seen: set[str]
) -> dict[str, Any]:
    """The action the coach asks for. `seen`: the situations met so far (updated)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for a in legal:
        by.setdefault(a["type"], []).append(a)
    me = view.get("me") or {}
    spot = situation(view, legal)
    if spot == "diplomacy":
        # keep the war: a parley, an attack and a defense need it
        seen.add("diplomacy")
        keep = ("pass", "reject_peace", "reject")
        return next((a for a in by["diplo"] if a.get("move") in keep), by["diplo"][0])
    if spot == "defense":
        seen.add("defense")
        return min(by["defend"], key=lambda a: a.get("talents", 0))
    if "vote" in by:
        seen.add("parley")
        return next((a for a in by["vote"] if a.get("choice") == "yes"), by["vote"][0])
    if "petition" in by and me.get("hand") and "petition_bust" not in seen:
        # petition until it busts (5.6) or can no longer be paid
        return by["petition"][0]
    if int(me.get("strikes") or 0) >= 2:
        seen.add("petition_bust")
    if "endeavour" in by:
        seen.add("endeavour")
        # the first endeavour offered, with no extra talents (a certain result never
        # hides the choice: see the talents step in static/js/game/decide.js)
        free = [a for a in by["endeavour"] if a.get("talents", 0) == 0] or by["endeavour"]
        return free[0]
    # the first draw and endeavour come before any tax or parley (a newcomer learns to
    # act first; the levy waits for the next turn of hers)
    if "tax" in by and "tax" not in seen and "endeavour" in seen:
        seen.add("tax")
        return max(by["tax"], key=lambda a: a.get("amount", 0))
    if "call_parley" in by and "parley" not in seen and "endeavour" in seen:
        return by["call_parley"][0]
    mine = (view.get("players") or [{}])[int(me.get("seat") or 0)]
    if "end_turn" in by and "draw" in by and int(mine.get("years_left") or 0) <= 1:
        return by["end_turn"][0]  # keep a year to defend with (13.13)
    if "choose_slot" in by:
        # play first: draw and act before the Han, keeping a year to defend with later
        return min(by["choose_slot"], key=lambda a: a.get("slot", 0))
    if "draw" in by:
        seen.add("draw")
        return by["draw"][0]
    for kind in ("dismiss", "end_turn", "decline", "pass"):
        if kind in by:
            return by[kind][0]
    return legal[0]


# --------------------------------------------------------------------------- the page's coach

#: the actions that belong to each situation
ACTS: dict[str, tuple[str, ...]] = {
    "diplomacy": ("diplo",),
    "draw": ("draw",),
    "petition_bust": ("petition",),
    "endeavour": ("endeavour",),
    "defense": ("defend", "decline"),
    "tax": ("tax", "plunder"),
    "parley": ("call_parley", "vote"),
}

#: what the coach says in each situation: (title, sentence, rules)
SAY: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "diplomacy": (
        "A diplomatic choice",
        "Every game turn opens with diplomacy. You are at war with the Han: keep the war "
        "(pass, and reject a peace offer), so that you will see an attack and a defense.",
        ("3.1", "3.23"),
    ),
    "draw": (
        "Your first draw",
        "Each year you draw one advisor from your deck; its kind says which endeavours "
        "you may undertake with it this year.",
        ("5.4",),
    ),
    "petition_bust": (
        "A petition that busts",
        "A petition pays influence to set this advisor aside and draw again. If the new "
        "card is a burden, or an advisor of a kind you already sent away this turn, the "
        "petition fails. Petition now and watch the odds shown under the button: this "
        "deck is stacked so it busts.",
        ("5.5", "5.6"),
    ),
    "endeavour": (
        "An endeavour and its odds",
        "Act with your advisor: choose the endeavour, where it starts from, the target and "
        "any extra talents. The rating, and the odds of every result, show before you commit.",
        ("9.1", "9.3"),
    ),
    "defense": (
        "A defense",
        "The Han attack one of your areas. Defending spends a year you kept and a talent; "
        "your emperor's Military stature and each extra talent lower their rating.",
        ("13.11", "13.21"),
    ),
    "tax": (
        "A tax and its rebellion risk",
        "At the start of your turn you may tax your areas. Each amount shows its chance of "
        "rebellion before you choose: the more you raise, the likelier the area rises.",
        ("16.1", "17.3"),
    ),
    "parley": (
        "A parley",
        "The Han claim Sogdiana, your area where you have a tie. Call a claim parley to win "
        "a claim of your own, then vote: everyone votes at once with as many votes as their "
        "emperor's Diplomacy, and yes at least equal to no grants you the claim (worth 2 "
        "victory points while you own the area).",
        ("18.32", "20.4", "26.1"),
    ),
}
#: the goal, told before the first move (docs/rules.md 26)
SAY_GOAL: tuple[str, str, tuple[str, ...]] = (
    "How a game is won",
    "You win on standing, not size. Victory points are the population of the areas you "
    "own (+2 for each you also claim), monuments and half your popularity; your power's "
    "victory level is what it is expected to score, and standing is points less level. "
    "After the last game turn the highest standing wins (a tie: more areas, then more "
    "talents). This tutorial is one game turn of two rounds; the scores beside each "
    "ruler show the points as they change.",
    ("26.1", "26.2"),
)

#: the ordinary steps between the situations
SAY_STEP: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "choose_slot": (
        "Initiative",
        "Choose your place in the order of play. Play first: you draw and act before the "
        "Han; a year you leave unused is there to defend with when they move.",
        ("4.3", "13.13"),
    ),
    "end_turn": (
        "End your turn",
        "End your turn now and keep a year unused: only a year kept lets you defend when attacked.",
        ("13.13",),
    ),
    "dismiss": (
        "Dismiss the advisor",
        "Nothing useful to do with this advisor: dismiss it (the year is spent either way).",
        ("5.4",),
    ),
    "pass": ("Pass", "Nothing to do here: pass.", ("3.2",)),
    "decline": ("Decline", "Decline.", ("13.0",)),
}


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """Every named thing of the content pack (areas first, then seas, innovations,
    buildings …) by id, as the page shows it."""
    found: dict[str, str] = {}
    pack = content()
    for stem in ["areas", *sorted(pack.files)]:
        rows = pack.get(stem)
        if isinstance(rows, list):
            for row in rows:
                if isinstance(row, dict) and "id" in row and "name" in row:
                    found.setdefault(str(row["id"]), str(row["name"]))
    return found


def area_name(thing: Any) -> str:
    """An area's (or a target innovation's) name: "achaea" -> "Achaea"."""
    return _names().get(str(thing)) or str(thing).replace("_", " ").capitalize()


def doing(action: dict[str, Any]) -> str | None:
    """The coach's action in words when it needs one area among many, naming it
    ("This time: diplomacy from Bactria, target Achaea."); the page lists it first."""
    if action.get("type") == "endeavour":
        kind = str(action.get("kind", "endeavour")).replace("_", " ")
        target = action.get("target")
        on = area_name(target) if target else None
        base = area_name(action.get("base"))
        return f"This time: {kind} from {base}" + (f", target {on}." if on else ".")
    if action.get("type") in ("tax", "plunder"):
        verb = "tax" if action["type"] == "tax" else "plunder"
        amount = f" for {action['amount']} talents" if action.get("amount") else ""
        return f"This time: {verb} {area_name(action.get('area'))}{amount}."
    if action.get("type") == "call_parley" and action.get("area"):
        return f"This time: a parley over {area_name(action['area'])}."
    return None


def seen_in_log(db: Session, game_id: int, seat: int = 0) -> set[str]:
    """The situations the player has been through, read from the game's log (and the
    goal once she has made any move: she has read it, or chose to go on)."""
    kinds = log.action_types(db, game_id, seat)
    seen = {
        name
        for name, types in (
            ("diplomacy", {"diplo"}),
            ("draw", {"draw"}),
            ("endeavour", {"endeavour"}),
            ("defense", {"defend"}),
            ("tax", {"tax", "plunder"}),
            ("parley", {"vote", "call_parley"}),
        )
        if kinds & types
    }
    busts = log.payloads(db, game_id)
    if any((p or {}).get("kind") == "bust" for p in busts):
        seen.add("petition_bust")
    if kinds:
        seen.add(GOAL)
    return seen


def coach(db: Session, game: Game, user_id: int) -> dict[str, Any]:
    """What the page's coach shows now: the situation, the action to take, why (with
    the rules), and the progress through the situations."""
    payload = play.seat_view(db, game.id, user_id)
    seen = seen_in_log(db, game.id, payload["seat"] or 0)
    out: dict[str, Any] = {
        "situations": [{"id": GOAL, "title": SAY_GOAL[0], "done": GOAL in seen}]
        + [{"id": s, "title": SAY[s][0], "done": s in seen} for s in SITUATIONS],
        "goal": {"title": SAY_GOAL[0], "text": SAY_GOAL[1], "rules": list(SAY_GOAL[2])},
        "over": game.status == "finished",
        "version": game.version,
        "action": None,
    }
    legal = payload["legal_actions"]
    if not legal:
        return out
    action = coach_choice(payload["view"] or {}, legal, set(seen))
    # the situation is the one the asked-for action belongs to (ending the turn while a
    # tax is on offer is an ordinary step, not "a tax")
    spot = next((name for name, acts in ACTS.items() if action["type"] in acts), None)
    title, text, rules = SAY.get(spot or "", SAY_STEP.get(action["type"], ("", "", ())))
    if spot == "draw" and "draw" in seen:
        title = "Draw an advisor"
    out.update(
        {
            "situation": spot,
            "action": action,
            "title": title or "Next step",
            "text": text or "Follow the highlighted control.",
            "doing": doing(action),
            "rules": list(rules),
        }
    )
    return out
