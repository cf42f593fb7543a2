"""The catch-up's words (issue 40, item 5): it opens with what matters to her (areas gained
and lost, wars, agreements, her VP), never an event count; her own stand-in's moves are
told in the second person; a line is said once in a game turn; "1 coin", not "1 coins"."""

from __future__ import annotations

from typing import Any

from app.services import catchup


def test_plurals_and_plain_english() -> None:
    assert catchup.tidy("Kushan recruits Yu Xu for 3 talents (taking 1 coins).") == (
        "Kushan recruits Yu Xu for 3 talents (taking 1 coin)."
    )
    assert (
        catchup.tidy("taking 11 coins, 1 talents, +1 areas") == "taking 11 coins, 1 talent, +1 area"
    )
    assert (
        catchup.tidy("a administration for the plot_coup") == "an administration for the plot coup"
    )
    assert catchup.plural(1, "decision") == "1 decision" and catchup.plural(0, "area") == "0 areas"


def test_her_own_stand_in_is_told_in_the_second_person() -> None:
    away = {
        "kind": "standin",
        "text": "alice (Kushan) is away: their standing orders and a Standard bot play for them",
        "data": {"seat": 0, "why": "away"},
    }
    assert catchup.yours(away, away["text"], "Kushan", False) == (
        "You said you were away: your standing orders and your stand-in (a Standard bot) "
        "played for you."
    )
    vote = {**away, "data": {"seat": 0, "why": "vote"}}
    assert catchup.yours(vote, "", "Kushan", False).startswith(
        "The table voted to hand your seat to a stand-in"
    )
    back = {
        "kind": "standin_end",
        "text": "alice (Kushan) takes the seat back",
        "data": {"seat": 0, "decisions": 1},
    }
    assert catchup.yours(back, back["text"], "Kushan", False) == (
        "You took your seat back from your stand-in (it made 1 decision)."
    )
    late = {
        "kind": "deadline",
        "text": "Time ran out for alice (Kushan): they pass.",
        "data": {"seat": 0},
    }
    assert catchup.yours(late, late["text"], "Kushan", False) == "Your time ran out: you pass."
    move = {"kind": "recruit", "text": "Kushan recruits Yu Xu."}
    assert catchup.yours(move, move["text"], "Kushan", True) == "Your stand-in recruits Yu Xu."
    deed = "Kushan's pillage against Ferghana: they carry off gold."
    assert catchup.yours(move, deed, "Kushan", True) == (
        "Your stand-in's pillage against Ferghana: they carry off gold."
    )
    # what followed from its move is no deed of the stand-in's; another's move is left alone
    assert catchup.yours(move, "Vima Takto dies.", "Kushan", True) == "Vima Takto dies."
    assert (
        catchup.yours(move, "Kushan recruits Yu Xu.", "Kushan", False) == "Kushan recruits Yu Xu."
    )


def test_the_turns_tell_her_stand_in_once_and_each_line_once() -> None:
    events: list[dict[str, Any]] = [
        {"seq": 1, "kind": "turn", "text": "Game turn 2 begins (115)."},
        {
            "seq": 2,
            "kind": "standin",
            "text": "alice (Kushan) is away: their standing orders and a Standard bot play for them.",
            "data": {"seat": 0, "why": "away"},
        },
        {
            "seq": 3,
            "kind": "recruit",
            "text": "Kushan recruits Yu Xu (taking 1 coins).",
            "action_seq": 40,
        },
        {
            "seq": 4,
            "kind": "rebellion",
            "text": "Bactria enters unrest.",
            "data": {"area": "bactria"},
        },
        {
            "seq": 5,
            "kind": "rebellion",
            "text": "Bactria enters unrest.",
            "data": {"area": "bactria"},
        },
        {"seq": 6, "kind": "recruit", "text": "Han recruits Zhang Heng.", "action_seq": 41},
    ]
    (turn,) = catchup.group_by_turn(
        events, 2, 0, "Kushan", {"bactria"}, standin_moves=frozenset({40})
    )
    texts = [ln["text"] for ln in turn["lines"]]
    assert texts == [
        "You said you were away: your standing orders and your stand-in (a Standard bot) "
        "played for you.",
        "Your stand-in recruits Yu Xu (taking 1 coin).",
        "Bactria enters unrest. (twice)",
        "Han recruits Zhang Heng.",
    ]
    assert [ln["standin"] for ln in turn["lines"]] == [False, True, False, False]
    assert not any("alice (" in t for t in texts)


def view(
    owner: dict[str, int | None], status: str, agreements: list[dict[str, Any]], vp: int
) -> dict[str, Any]:
    return {
        "turn": 2,
        "players": [{"name": "Kushan"}, {"name": "Han"}, {"name": "Rome"}],
        "areas": {a: {"owner": o} for a, o in owner.items()},
        "relations": {
            "0|1": {"status": status},
            "0|2": {"status": "neutral"},
            "1|2": {"status": "war"},
        },
        "agreements": agreements,
        "score": {
            "0": {"total": vp, "standing": vp},
            "1": {"total": 20, "standing": 18},
            "2": {"total": 1, "standing": 1},
        },
    }


def test_it_opens_with_what_matters_never_an_event_count() -> None:
    pact = {"id": 3, "parties": [0, 2], "status": "in_force"}
    then = view({"bactria": 0, "gandhara": 1, "aria": 2}, "peace", [], 16)
    then["turn"] = 1
    now = view({"bactria": 1, "gandhara": 0, "aria": 1}, "war", [pact], 19)
    changes = catchup.area_changes(then, now, 0)
    headlines = catchup._headlines(changes, then, now, 0, 1)
    names = {c["area"]: c["name"] for c in changes}
    assert headlines == [
        f"you gained {names['gandhara']}",
        f"you lost {names['bactria']}",
        "you are at war with Han",
        "you signed agreement 3 with Rome",
        "your VP 16 → 19, 1st of 3 on standing",
        "1 other area changed",
        "your stand-in made 1 decision for you",
    ]
    quiet = catchup._headlines([], then, then, 0, 0)
    assert quiet == ["you kept all your areas", "your VP stay at 16, 2nd of 3 on standing"]
    assert all("event" not in h for h in headlines + quiet)
    assert catchup._span(then, now) == "game turns 1 to 2"
