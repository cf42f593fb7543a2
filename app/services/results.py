"""A finished game's result in words: the seats ranked by what decides the game (docs/rules.md
26.2: the highest standing, then more areas, then more talents, then the lower seat), each
row with its victory points, victory level, standing and, where standings tie, the
tie-break figures, and why each seat stands where it does. Every column comes with one
line saying what it is and the rule it comes from (the end screen, static/js/game/result.js).

The ranking is the engine's own (``outcome.ranking``); this only explains it, from the
final state's public parts (areas owned, talents, starting score).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.engine.scoring import as_points
from app.services import gamelog, lobby, ratings
from app.services.errors import Conflict, Forbidden
from app.store.models import Game

#: what each column of the result table means, with the rule that says so (/rules#r…)
COLUMNS: list[dict[str, str]] = [
    {
        "key": "vp",
        "label": "VP",
        "rule": "26.1",
        "text": "Victory points: the population of the areas you own, +2 for each of them "
        "you also claim, monuments, innovations, banked points, half your popularity, "
        "one per junior partner.",
    },
    {
        "key": "level",
        "label": "Victory level",
        "rule": "26.2",
        "text": "A handicap per power, set because the empires start unequal: a strong "
        "start carries a higher level, taken off its VP; a weak one a level below zero, "
        "which adds to its VP (−11: 11 more).",
    },
    {
        "key": "standing",
        "label": "Standing",
        "rule": "26.2",
        "text": "VP less the victory level. The highest standing wins; this is the column "
        "that ranks the table.",
    },
    {
        "key": "tiebreak",
        "label": "Tie-break",
        "rule": "26.2",
        "text": "Only between equal standings: more areas owned, then more talents, then "
        "the lower seat.",
    },
]

#: the rating column, in a game with two people or more (issue 40)
RATING_COLUMN = {
    "key": "rating",
    "label": "Rating",
    "rule": "",
    "text": "Each person's rating before and after this game (openskill, every finished game "
    "between people). A seat a stand-in played for more than half of its decisions is "
    "unrated for its person and counts as a Standard bot's seat in the others' ratings.",
}

#: 26.3's bands, for the line that says what the solitaire rating measures
SOLITAIRE = {
    "rule": "26.3",
    "text": "The solitaire rating measures only how many VP a power gained since the "
    "start (12 or more Excellent, 8–11 Very Good, 4–7 Good, 1–3 Fair, −2 to 0 Poor, "
    "less Very Poor): growth, not the result, so a winner may rate Poor.",
}

VP_PARTS = ("areas", "claims", "monuments", "innovations", "popularity", "banked", "hegemony")


def _seat_name(game: Game, index: int) -> tuple[str, str]:
    """(power name, who plays it) of seat `index`."""
    seat = next((s for s in game.seats if s.index == index), None)
    if seat is None:
        return f"Seat {index + 1}", ""
    power = lobby.power_name(game.scenario, seat.power) or f"Seat {index + 1}"
    if seat.user is not None:
        return power, seat.user.username
    level = lobby.bot_labels().get(seat.bot_level or "", seat.bot_level or "")
    return power, f"{level} bot" if level else "bot"


def signed(value: float) -> str:
    """A number as it is printed: a true minus sign, a half point as ½ ("−11", "6½")."""
    whole = int(value)
    text = str(abs(whole)) if value == whole else f"{abs(whole) or ''}½"
    return ("−" if value < 0 else "") + text


def level_sum(vp: int, level: float) -> str:
    """ "16 VP plus 11 for a victory level of −11": the sum a standing is (26.2)."""
    if level < 0:
        return f"{vp} VP plus {signed(-level)} for a victory level of {signed(level)}"
    if level == 0:
        return f"{vp} VP at a victory level of 0"
    return f"{vp} VP less a victory level of {signed(level)}"


def level_words(vp: int, level: float, standing: float) -> str:
    """How a standing comes from the VP and the victory level (26.2), in words: a level
    below zero is added to the VP (the power starts weak), which a bare "−11" does not
    say."""
    why = ": a level below zero is added, as this power starts weak" if level < 0 else ""
    return f"{level_sum(vp, level)}{why} (standing {signed(standing)})"


def _edge(above: dict[str, Any], row: dict[str, Any]) -> str:
    """What puts `above` before `row` (26.2, in its order): standing, areas, talents, seat."""
    for key in ("standing", "areas_owned", "talents"):
        if above[key] != row[key]:
            return key
    return "seat"


def tiebreak_words(areas: int, talents: int) -> str:
    """ "2 areas, 1 talent": the tie-break column (26.2)."""
    return f"{areas} area{'' if areas == 1 else 's'}, {talents} talent{'' if talents == 1 else 's'}"


def _why(above: dict[str, Any], row: dict[str, Any]) -> str:
    """Why `row` comes after `above`, in words."""
    edge = _edge(above, row)
    if edge == "standing":
        return (
            f"standing {signed(row['standing'])}, below {above['power']}'s "
            f"{signed(above['standing'])}"
        )
    tied = f"tied with {above['power']} on standing {signed(row['standing'])}"
    if edge == "areas_owned":
        return f"{tied}; {above['power']} owns more areas ({above['areas_owned']} to {row['areas_owned']})"
    if edge == "talents":
        return (
            f"{tied} and on areas; {above['power']} has more talents "
            f"({above['talents']} to {row['talents']})"
        )
    return f"{tied}, areas and talents: the lower seat goes first"


def result_table(game: Game, state: dict[str, Any]) -> dict[str, Any]:
    """The end screen's table for finished `game` whose final state is `state`."""
    outcome = game.outcome or {}
    ranking = [int(s) for s in outcome.get("ranking") or []]
    scores = outcome.get("scores") or {}
    bands = outcome.get("solitaire_rating") or {}
    people = {s.user_id for s in game.seats if s.user_id is not None}
    # 26.3's growth is a measure for one person playing bots: at a table of people the
    # ranking says who did well, and a winner told "Poor" is only confused
    solo = len(people) <= 1
    owned: dict[int, int] = {}
    for area in state["areas"].values():
        if area.get("owner") is not None:
            owned[int(area["owner"])] = owned.get(int(area["owner"]), 0) + 1
    rows: list[dict[str, Any]] = []
    for place, seat in enumerate(ranking, start=1):
        score = scores.get(str(seat)) or {}
        player = state["players"][seat]
        power, who = _seat_name(game, seat)
        total = int(score.get("total", 0))
        rows.append(
            {
                "place": place,
                "seat": seat,
                "power": power,
                "player": who,
                "vp": total,
                "vp_parts": {k: score[k] for k in VP_PARTS if score.get(k)},
                "level": as_points(score.get("level", 0)),
                "standing": as_points(score.get("standing", total)),
                "areas_owned": owned.get(seat, 0),
                "talents": int(player.get("talents", 0)),
                "gain": total - int(player.get("start_score", 0)),
                "solitaire": bands.get(str(seat)) if solo else None,
            }
        )
        level, standing = rows[-1]["level"], rows[-1]["standing"]
        rows[-1]["level_words"] = level_words(total, level, standing)
        rows[-1].update(_rating(game, seat))
    for i, row in enumerate(rows):
        tied = [r for r in rows if r is not row and r["standing"] == row["standing"]]
        row["tiebreak"] = tiebreak_words(row["areas_owned"], row["talents"]) if tied else None
        row["why"] = (
            "the highest standing" + (", and first on the tie-break" if tied else "")
            if i == 0
            else _why(rows[i - 1], row)
        )
    return {
        "game_id": game.id,
        "winner": rows[0]["seat"] if rows else None,
        "rows": rows,
        "columns": COLUMNS + ([RATING_COLUMN] if not solo else []),
        "solitaire": SOLITAIRE if solo else None,
        "headline": _headline(rows),
        "rating_note": _rating_note(game, solo),
    }


def _rating(game: Game, index: int) -> dict[str, Any]:
    """Seat `index`'s part in the ratings: ``rating`` (before, after, change) when it
    moved its person's rating; ``unrated`` (why not) for a person's seat that did not;
    ``stood_in`` (the stand-in's decisions, all decisions) when a stand-in played it for
    more than half of its decisions (ratings.stood_in). A bot's seat has none."""
    seat = next((s for s in game.seats if s.index == index), None)
    out: dict[str, Any] = {"rating": None, "unrated": None, "stood_in": None}
    if seat is None or seat.user_id is None:
        return out
    notes = game.result_notes or {}
    stood = ratings.stood_in(notes).get(index)
    if stood is not None:
        out["stood_in"] = {"standin": stood[0], "decisions": stood[1]}
    moved = (notes.get("rated") or {}).get(str(seat.user_id))
    if moved:
        before, after = int(moved[0]), int(moved[1])
        out["rating"] = {"before": before, "after": after, "change": after - before}
        return out
    out["unrated"] = (
        (notes.get("standin_unrated") or {}).get(str(seat.user_id))
        or notes.get("unrated")
        or ratings.unrated_reason(game)
        or "not rated yet"
    )
    return out


def _rating_note(game: Game, solo: bool) -> str:
    """One line under the table: whether the game moved ratings, and why not."""
    notes = game.result_notes or {}
    reason = notes.get("unrated")
    if reason:
        return f"This game is unrated: {reason}."
    if solo:
        return "This game is unrated: no other person at the table."
    stood = ratings.stood_in(notes)
    if not stood:
        return "This game is rated: each person's rating change is in the Rating column."
    names = ", ".join(_seat_name(game, i)[1] or _seat_name(game, i)[0] for i in sorted(stood))
    return (
        f"This game is rated, but not for {names}: a stand-in made more than half of "
        "the seat's decisions, so it counted as a Standard bot's seat in the others' ratings."
    )


def _headline(rows: list[dict[str, Any]]) -> str:
    """One sentence: who won and by what."""
    if not rows:
        return "The game is over."
    first = rows[0]
    if len(rows) == 1:
        return f"{first['power']} ends with a standing of {first['standing']}."
    second = rows[1]
    edge = _edge(first, second)
    if edge == "standing":
        return (
            f"{first['power']} wins with the highest standing, {signed(first['standing'])} "
            f"({level_sum(first['vp'], first['level'])}); "
            f"{second['power']} comes next with {signed(second['standing'])}."
        )
    both = f"{first['power']} and {second['power']} both stand at {first['standing']}"
    if edge == "areas_owned":
        decided = (
            f"{first['power']} owns more areas ({first['areas_owned']} to {second['areas_owned']})"
        )
    elif edge == "talents":
        decided = (
            f"they own as many areas, and {first['power']} has more talents "
            f"({first['talents']} to {second['talents']})"
        )
    else:
        decided = "areas and talents are equal too, and the lower seat goes first"
    return f"{first['power']} wins on the tie-break: {both}; {decided}."


def result_for(db: Session, game_id: int, user_id: int | None) -> dict[str, Any]:
    """The result table of a finished game the user may see."""
    game = lobby.get_game(db, game_id)
    if not lobby.can_see(db, game, user_id):
        raise Forbidden("This game is private.")
    if game.status != "finished" or not game.outcome or game.state is None:
        raise Conflict("The result is shown once the game is finished.")
    return result_table(game, gamelog.load_state(game, db))
