"""While you were away: what happened in a game since a seat's person last looked.

Each seat keeps the last event its person has seen (``seats.seen_event``): the game page
moves it on when it is loaded and while it is open (``mark_seen``). On her return the page
shows the events after it, grouped by game turn, in plain words (the dice and ratings
left to the chronicle), the routine ones (draws, petitions, initiative rolls …) counted
rather than listed, and the areas whose owner, unrest, social state, fortification,
claims or buildings changed, for the map to highlight.

Only public events are read (``visible_to`` null): a line meant for some seats only
never reaches a catch-up, even its own seat's (her hand is on her screen anyway). The
areas are compared through ``engine.view`` of the seat, built by allowlist.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.orm import Session

from app import engine
from app.engine.content import content
from app.services import eventlog, gamelog, lobby, play
from app.services.errors import Forbidden
from app.store import log, seats
from app.store.models import Game, Seat

#: at most this many lines per game turn (the rest: "n more in the chronicle")
LINES_PER_TURN = 12
#: routine lines: counted, not listed
ROUTINE = {
    "draw",
    "dismiss",
    "petition",
    "initiative",
    "gold",
    "tax",
    "catch_up",
    "mortality",
    "strike",
    "outcome",
    "request",
    "vote",
    "spy",
    "offer",
    "bust",
    "info",
}
#: the chronicle's "wars and pacts" (the same kinds as static/js/game/chronicle.js)
WARS_AND_PACTS = {
    "diplomacy",
    "agreement",
    "breach",
    "parley",
    "accursed",
    "tribute",
    "exile",
    "offer",
}
#: lines that go first when a turn has more than LINES_PER_TURN
WEIGHTY = WARS_AND_PACTS | {"conquest", "death", "over", "usurper", "standin", "standin_end"}
_ROUTINE_TEXT = (
    "passes.",
    "The diplomatic phase ends.",
    "gives up the tie",
    "leaves the Court market",
    "No horde can reach",
    "draws a Fate holding card",
)
GAME_TURN = re.compile(r"^Game turn (\d+) begins(?: \(([^)]*)\))?")
_SEAT_KEYS = ("seat", "owner", "from", "to", "defender", "winner", "payer", "payee")
_AREA_KEYS = ("area", "target", "base")


def _content_areas() -> dict[str, str]:
    return {a["id"]: a.get("name", a["id"]) for a in content().get("areas", []) or []}


_ROLL_STARTS = (": ", " at rating ", "; the die")


def plain(event: dict[str, Any]) -> str:
    """An event's line without its dice and ratings: "Han's conquest against Ba-Shu:
    conquest (one C result)." for "Han's conquest against Ba-Shu: rating 10, the counter
    drawn is +1, so the final rating is 11. Result: conquest (one C result)." (and for
    the older "Han: conquest against Ba-Shu — rating 10, … final 11: …")."""
    text = str(event.get("text") or "")
    data = event.get("data") or {}
    if event.get("kind") == "endeavour":
        if ". Result: " in text:
            return f"{text.split(': ', 1)[0]}: {text.rsplit('Result: ', 1)[1]}"
        if " — " in text and ": " in text:
            who, rest = text.split(": ", 1)
            what = rest.split(" — ", 1)[0].replace("_", " ")
            return f"{who}'s {what}: {text.rsplit(': ', 1)[1]}"
    rolled = any(k in data for k in ("dice", "die", "drawn", "rolls"))
    if rolled and ": " in text:
        cut = min(i for i in (text.find(m) for m in _ROLL_STARTS) if i >= 0)
        head, tail = text[:cut], text.rsplit(": ", 1)[1]
        if head and tail != text[cut + 2 :]:
            return f"{head}: {tail}"
    return text


#: the words the catch-up puts in the singular after "1" (as the chronicle does,
#: static/js/game/chronicle.js ``tidy``): "1 coins" → "1 coin"
COUNTED = (
    "talents|years|coins|votes|strikes|decisions|areas|counters|results|cards|points|"
    "advisors|notables|turns|events|lines|moves"
)
_ONE = re.compile(rf"(^|[^\d.,+-])([+-]?1) ({COUNTED})\b")
_SNAKE = re.compile(r"\b([a-z]+(?:_[a-z]+)+)\b")
_AN = re.compile(r"\b([Aa]) (?=[aeiouAEIOU])")


def tidy(text: str) -> str:
    """An engine line in plain English: no internal names ("plot_coup" → "plot coup"),
    "an" before a vowel, and the singular after one ("taking 1 coins" → "taking 1 coin")."""
    text = _SNAKE.sub(lambda m: m.group(1).replace("_", " "), text)
    text = _AN.sub(lambda m: f"{m.group(1)}n ", text)
    return _ONE.sub(lambda m: f"{m.group(1)}{m.group(2)} {m.group(3)[:-1]}", text)


def plural(n: int, word: str) -> str:
    """ "1 area", "2 areas"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


#: why a stand-in played her seat, told to her (standins.WHY is told to the table)
_YOUR_STANDIN = {
    "time": "Your time ran out",
    "away": "You said you were away",
    "vote": "The table voted to hand your seat to a stand-in",
    "gone": "You left the table",
    "deleted": "Your account was deleted",
    "suspended": "Your account was suspended",
}


def yours(event: dict[str, Any], text: str, power: str, standin_move: bool) -> str:
    """`text` told to her in the second person where it is about her own seat's stand-in:
    what it did in her power's name ("Kushan recruits …" → "Your stand-in recruits …"),
    its arrival and her return, and a default played when her time ran out."""
    kind = event.get("kind")
    data = event.get("data") or {}
    if kind == "standin":
        why = _YOUR_STANDIN.get(str(data.get("why")), "You were away")
        return f"{why}: your standing orders and your stand-in (a Standard bot) played for you."
    if kind == "standin_end":
        made = int(data.get("decisions") or 0)
        return f"You took your seat back from your stand-in (it made {plural(made, 'decision')})."
    if kind == "deadline":
        what = text.split(": ", 1)[1] if ": " in text else "the default was played."
        what = re.sub(r"\bthey\b", "you", re.sub(r"\btheir\b", "your", what))
        return f"Your time ran out: {what}"
    if not standin_move:
        return text
    if power and text.startswith(f"{power}'s "):
        return "Your stand-in's " + text[len(power) + 3 :]
    if power and text.startswith(f"{power} "):
        return "Your stand-in " + text[len(power) + 1 :]
    return text  # what followed from its move (a die, a death, a rebellion) is no deed of it


def routine(event: dict[str, Any], my_areas: set[str]) -> bool:
    """A line the catch-up counts but does not list."""
    kind = event.get("kind") or "info"
    text = str(event.get("text") or "")
    data = event.get("data") or {}
    if kind in ROUTINE or (kind == "turn" and not GAME_TURN.match(text)):
        return True
    if any(bit in text for bit in _ROUTINE_TEXT):
        return True
    if kind in ("endeavour", "rebellion", "nomads") and data.get("result") == "none":
        # nothing came of it, unless it was aimed at one of my areas
        return str(data.get("target") or data.get("area") or "") not in my_areas
    return False


def _seats_in(event: dict[str, Any]) -> set[int]:
    data = event.get("data") or {}
    return {int(data[k]) for k in _SEAT_KEYS if isinstance(data.get(k), int)}


def _areas_in(event: dict[str, Any], names: dict[str, str]) -> list[str]:
    data = event.get("data") or {}
    found = [str(data[k]) for k in _AREA_KEYS if str(data.get(k)) in names]
    text = str(event.get("text") or "")
    found += [a for a, name in names.items() if name in text and a not in found]
    return found


def _line(
    event: dict[str, Any],
    seat: int,
    power: str,
    names: dict[str, str],
    standin_moves: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    kind = event.get("kind") or "info"
    text = str(event.get("text") or "")
    named = bool(power) and re.search(rf"\b{re.escape(power)}\b", text) is not None
    mine = seat in _seats_in(event) or named
    own = (
        kind in ("standin", "standin_end", "deadline")
        and (event.get("data") or {}).get("seat") == seat
    )
    standin_move = event.get("action_seq") in standin_moves
    told = yours(event, plain(event), power, standin_move) if own or standin_move else plain(event)
    return {
        "seq": event["seq"],
        "kind": kind,
        "text": tidy(told),
        "rule": event.get("rule"),
        "mine": mine or own or standin_move,
        "standin": standin_move,
        "wars_and_pacts": kind in WARS_AND_PACTS,
        "areas": _areas_in(event, names),
    }


def _once(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each line once in a game turn: a line that says again what one before it said (a
    rebellion check come out the same, a pass) is counted on the first ("… (twice)")."""
    first: dict[str, dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for line in lines:
        seen = first.get(line["text"])
        if seen is None:
            first[line["text"]] = line
            out.append(line)
            continue
        seen["times"] = seen.get("times", 1) + 1
        seen["areas"] = seen["areas"] + [a for a in line["areas"] if a not in seen["areas"]]
    for line in out:
        times = line.pop("times", 1)
        if times > 1:
            line["text"] += " (twice)" if times == 2 else f" ({times} times)"
    return out


def _weight(line: dict[str, Any]) -> int:
    """How much a line matters to her: a conquest, war, pact or death most; then what
    touched her or an area; the rest least."""
    weighty = (
        line["kind"] in WEIGHTY and " refuses " not in line["text"]
    )  # a refusal changes nothing
    return 4 * weighty + 2 * line["mine"] + bool(line["areas"])


def _trim(lines: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """At most LINES_PER_TURN lines: the weightiest (the latest among equals), shown in
    their order."""
    if len(lines) <= LINES_PER_TURN:
        return lines, 0
    ranked = sorted(lines, key=lambda ln: (-_weight(ln), -ln["seq"]))
    keep = {ln["seq"] for ln in ranked[:LINES_PER_TURN]}
    kept = [ln for ln in lines if ln["seq"] in keep]
    return kept, len(lines) - len(kept)


def group_by_turn(
    events: list[dict[str, Any]],
    turn_now: int,
    seat: int,
    power: str,
    my_areas: set[str],
    standin_moves: frozenset[int] = frozenset(),
) -> list[dict[str, Any]]:
    """The events in game turns (3: "Game turn N begins" opens one), in order, each line
    once (``_once``). Events before the first such line belong to the turn before it, or
    with none to `turn_now`. `standin_moves` are the actions her stand-in made for her
    seat: their lines are told to her as "Your stand-in …"."""
    names = _content_areas()
    opening: dict[int, re.Match[str]] = {}
    for i, e in enumerate(events):
        m = GAME_TURN.match(str(e.get("text") or ""))
        if m and e.get("kind") == "turn":
            opening[i] = m
    markers = sorted(opening.items())
    turn = int(markers[0][1].group(1)) - 1 if markers else turn_now
    groups: list[dict[str, Any]] = [{"turn": turn, "year": None, "lines": [], "routine": 0}]
    for i, event in enumerate(events):
        if i in opening:
            m = opening[i]
            groups.append({"turn": int(m.group(1)), "year": m.group(2), "lines": [], "routine": 0})
            continue
        if routine(event, my_areas):
            groups[-1]["routine"] += 1
        else:
            groups[-1]["lines"].append(_line(event, seat, power, names, standin_moves))
    out = []
    for g in groups:
        if not g["lines"] and not g["routine"] and g["year"] is None:
            continue
        g["lines"], g["more"] = _trim(_once(g["lines"]))
        out.append(g)
    return out


# --------------------------------------------------------------------------- the map


def _names_of_seats(view: dict[str, Any]) -> dict[int, str]:
    return {i: str(p.get("name")) for i, p in enumerate(view.get("players") or [])}


def area_changes(before: dict[str, Any], after: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """What changed in each area between two views of `seat`, in words, for the map."""
    names = _content_areas()
    who = _names_of_seats(after)
    out = []
    old_areas, new_areas = before.get("areas") or {}, after.get("areas") or {}
    for area_id, new in new_areas.items():
        old = old_areas.get(area_id) or {}
        name = names.get(area_id, area_id)
        what: list[str] = []
        if old.get("owner") != new.get("owner"):
            was = (
                who.get(old["owner"], "the independents") if old.get("owner") is not None else None
            )
            if new.get("owner") is None:
                gone = "went over to a usurper" if new.get("usurper") else "broke away"
                what.append(f"{gone} from {was}" if was else gone)
            else:
                taker = who.get(new["owner"], "?")
                what.append(f"taken by {taker}" + (f" from {was}" if was else ""))
        if bool(old.get("unrest")) != bool(new.get("unrest")):
            what.append("in unrest" if new.get("unrest") else "unrest ended")
        if old.get("social") != new.get("social") and old.get("social") is not None:
            verb = "fell" if (new.get("social") or 0) < old["social"] else "rose"
            what.append(f"social state {verb} to {new.get('social')}")
        if (old.get("fort") or 0) != (new.get("fort") or 0):
            what.append(
                "fortified"
                if (new.get("fort") or 0) > (old.get("fort") or 0)
                else "fortifications slighted"
            )
        for claimant in set(new.get("claims") or []) - set(old.get("claims") or []):
            what.append(f"claimed by {who.get(claimant, '?')}")
        for building in set(new.get("buildings") or []) - set(old.get("buildings") or []):
            what.append(f"a {str(building).replace('_', ' ')} built")
        if what:
            owners = {old.get("owner"), new.get("owner")}
            out.append(
                {
                    "area": area_id,
                    "name": name,
                    "what": what,
                    "mine": seat in owners,
                    "lost": old.get("owner") == seat != new.get("owner"),
                    "gained": new.get("owner") == seat != old.get("owner"),
                }
            )
    out.sort(key=lambda c: (not c["mine"], c["name"]))
    return out


# --------------------------------------------------------------------------- the panel


def _action_of(db: Session, game_id: int, seq: int) -> int:
    """How many actions had been played when event `seq` was written."""
    return int(log.action_of_event(db, game_id, seq) or 0)


def catch_up(db: Session, game: Game, seat: Seat, since: int) -> dict[str, Any] | None:
    """What `seat` missed after event `since`; None when nothing worth telling."""
    if game.state is None or game.last_event <= since:
        return None
    rows = log.events(db, game.id, since)
    # public lines only (a JSON null is not SQL's NULL on every backend: test it here)
    events = [eventlog.event_json(r) for r in rows if r.visible_to is None]
    now = gamelog.load_state(game, db)
    view_now = engine.view(now, seat.index)
    after = _action_of(db, game.id, since)
    then = play.state_before(db, game.id, after)
    view_then = engine.view(then, seat.index)
    power = str((view_now.get("players") or [{}])[seat.index].get("name") or "")
    mine = {a for a, v in (view_now.get("areas") or {}).items() if v.get("owner") == seat.index}
    mine |= {a for a, v in (view_then.get("areas") or {}).items() if v.get("owner") == seat.index}
    standin_moves = frozenset(log.actions_by_source(db, game.id, seat.index, "standin", after))
    turns = group_by_turn(events, int(now.get("turn") or 1), seat.index, power, mine, standin_moves)
    changes = area_changes(view_then, view_now, seat.index)
    listed = sum(len(t["lines"]) for t in turns)
    if not listed and not changes:
        return None
    headlines = _headlines(changes, view_then, view_now, seat.index, len(standin_moves))
    return {
        "since": since,
        "upto": game.last_event,
        "power": power,
        "turns": turns,
        "areas": changes,
        "span": _span(view_then, view_now),
        "headlines": headlines,
        "summary": f"In {_span(view_then, view_now)}: " + "; ".join(headlines) + ".",
    }


def _span(then: dict[str, Any], now: dict[str, Any]) -> str:
    """ "game turn 2" or "game turns 1 to 2": how long she was away, in game time."""
    first, last = then.get("turn"), now.get("turn")
    return f"game turn {last}" if first == last else f"game turns {first} to {last}"


def _names(items: list[str]) -> str:
    """ "Bactria", "Bactria and Aria", "Bactria, Aria and Sogdiana"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _pairs(view: dict[str, Any], seat: int) -> dict[int, str]:
    """other seat -> the status of `seat`'s relation with it (war, peace …)."""
    out: dict[int, str] = {}
    for key, rel in (view.get("relations") or {}).items():
        a, b = (int(x) for x in str(key).split("|"))
        if seat in (a, b):
            out[b if a == seat else a] = str(rel.get("status"))
    return out


def _headlines(
    changes: list[dict[str, Any]],
    then: dict[str, Any],
    now: dict[str, Any],
    seat: int,
    standin_moves: int,
) -> list[str]:
    """What matters to her first, in words: the areas she gained and lost, the wars she
    entered or left, the agreements she signed or lost, her VP and standing (26.1, 26.2),
    then what changed elsewhere. Never a count of events: that says nothing."""
    who = _names_of_seats(now)
    out: list[str] = []
    gained = [c["name"] for c in changes if c["gained"]]
    lost = [c["name"] for c in changes if c["lost"]]
    if gained:
        out.append(f"you gained {_names(gained)}")
    if lost:
        out.append(f"you lost {_names(lost)}")
    if not gained and not lost:
        out.append("you kept all your areas")
    before, after = _pairs(then, seat), _pairs(now, seat)
    wars = [who.get(o, "?") for o, st in after.items() if st == "war" and before.get(o) != "war"]
    peace = [who.get(o, "?") for o, st in after.items() if st != "war" and before.get(o) == "war"]
    if wars:
        out.append(f"you are at war with {_names(wars)}")
    if peace:
        out.append(f"you made peace with {_names(peace)}")
    was = {int(a.get("id", 0)): a for a in then.get("agreements") or []}
    for ag in now.get("agreements") or []:
        parties = [int(p) for p in ag.get("parties") or []]
        if seat not in parties:
            continue
        other = who.get(next((p for p in parties if p != seat), seat), "?")
        old = was.get(int(ag.get("id", 0)))
        if old is None:
            out.append(f"you signed agreement {ag.get('id')} with {other}")
        elif old.get("status") == "in_force" and ag.get("status") != "in_force":
            out.append(f"your agreement {ag.get('id')} with {other} is {ag.get('status')}")
    out.append(_vp_line(then, now, seat))
    others = [c for c in changes if not c["mine"]]
    if others:
        out.append(f"{plural(len(others), 'other area')} changed")
    if standin_moves:
        out.append(f"your stand-in made {plural(standin_moves, 'decision')} for you")
    return out


def _vp_line(then: dict[str, Any], now: dict[str, Any], seat: int) -> str:
    """ "your VP 16 → 19 (standing 5 → 8, 2nd of 6)": her points and her place (26.2)."""
    score_then = (then.get("score") or {}).get(str(seat)) or {}
    score_now = (now.get("score") or {}).get(str(seat)) or {}
    vp_then, vp_now = score_then.get("total"), score_now.get("total")
    standings = sorted(
        ((float(s.get("standing", 0)), int(k)) for k, s in (now.get("score") or {}).items()),
        key=lambda x: (-x[0], x[1]),
    )
    place = next((i for i, (_, k) in enumerate(standings, 1) if k == seat), None)
    where = f", {_ordinal(place)} of {len(standings)} on standing" if place else ""
    if vp_now is None:
        return "your VP are unchanged"
    if vp_then == vp_now:
        return f"your VP stay at {vp_now}{where}"
    return f"your VP {vp_then} → {vp_now}{where}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def on_page_load(db: Session, game: Game, user_id: int | None) -> dict[str, Any] | None:
    """The game page opens: the seat's catch-up since its last look (None on a first look,
    or with nothing new), and its mark moved to now. The caller commits."""
    seat = lobby.seat_of(game, user_id)
    if seat is None or game.state is None:
        return None
    since = seat.seen_event
    found = catch_up(db, game, seat, since) if since is not None else None
    if since is None or game.last_event > since:
        _move_mark(db, seat.id, game.last_event)
    return found


def since_last_look(db: Session, game_id: int, user_id: int) -> dict[str, Any] | None:
    """The seat's catch-up since its mark, the mark left where it is (the page moves it
    with ``mark_seen`` once it has shown it)."""
    game = lobby.get_game(db, game_id)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    since = seat.seen_event
    return catch_up(db, game, seat, since) if since is not None else None


def mark_seen(db: Session, game_id: int, user_id: int, seq: int) -> int:
    """The page has shown the events up to `seq`: the seat's mark moves on (never back,
    never past the game's last event). Returns the mark. The caller commits."""
    game = lobby.get_game(db, game_id)
    seat = lobby.seat_of(game, user_id)
    if seat is None:
        raise Forbidden("You have no seat in this game.")
    mark = min(max(int(seq), 0), game.last_event)
    if seat.seen_event is None or mark > seat.seen_event:
        _move_mark(db, seat.id, mark)
        return mark
    return seat.seen_event


def _move_mark(db: Session, seat_id: int, seq: int) -> None:
    """One UPDATE of the seat's mark, only forward (a later page's mark stays)."""
    seats.move_seen_mark(db, seat_id, seq)
