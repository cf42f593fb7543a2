"""The first ten minutes, server side (issue 13): the honest clock (no clock against
bots; missed deadlines and stand-ins said in the chronicle and counted in the result),
ratings after a finished game, the lobby's power names, presence and profiles, the
tutorial's fixed script, and colours no two seated powers share."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.services import (
    absence,
    accounts,
    deadlines,
    gamelog,
    lobby,
    ratings,
    standins,
    starting,
    tutorial,
)
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Event, Game, PlayerStats

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def test_a_game_against_bots_only_has_no_clock_by_default(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        solo = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot")], pace="auto"
        )
        starting.start(db, solo, alice)
        assert solo.pace == "none"
        # who owes a decision is still known (the lobby's "your move"), with no deadline
        assert set((solo.deadlines or {}).values()) <= {None} and solo.next_deadline is None
        state = gamelog.load_state(solo)
        owed = {str(p["seat"]) for p in engine.pending(state) if p["seat"] == 0}
        assert set(solo.deadlines or {}) == owed
        assert lobby.game_summary(solo, alice.id)["my_turn"] == bool(owed)
        people = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="auto"
        )
        assert people.pace == "live"
        assert lobby.game_summary(solo)["pace_label"] == "no clock"


def test_missed_deadlines_and_the_stand_in_are_said_and_counted(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="live"
        )
        lobby.join(db, game, bob)
        starting.start(db, game, alice)
        db.commit()
        gid = game.id
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None and game.next_deadline is not None
        now = game.next_deadline + timedelta(seconds=1)
    deadlines.run_once(factory, now)
    with factory() as db:
        texts = [e.payload["text"] for e in db.scalars(select(Event).where(Event.game_id == gid))]
        kinds = [
            e.payload.get("kind") for e in db.scalars(select(Event).where(Event.game_id == gid))
        ]
        assert "standin" in kinds
        line = next(t for t in texts if t.startswith("Time ran out for "))
        assert "a Standard bot play for them" in line and "takes the seat back" in line
        game = db.get(Game, gid)
        assert game is not None
        seat = next(s for s in game.seats if s.standin)
        user_id = seat.user_id
        assert user_id is not None
        # the stand-in plays at once; then the player takes the seat back
        absence.come_back(db, gid, user_id)
        db.commit()
        last = db.scalars(
            select(Event).where(Event.game_id == gid).order_by(Event.seq.desc()).limit(1)
        ).one()
        assert last.payload["kind"] == "standin_end"
        assert "takes the seat back from the bot" in last.payload["text"]
        # the result records the decisions made for each seat
        outcome = game.outcome
        standins.on_finish(db, game)
        assert game.outcome == outcome, "the engine's outcome is left as it is"
        notes = game.result_notes or {}
        assert "standin" in notes and "defaulted" in notes
        # the lobby's line for a finished game says who a bot played for
        game.result_notes = {**notes, "standin": {str(seat.index): 14}}
        note = lobby.game_summary(game)["standin_note"]
        assert note is not None and note.endswith("played by a bot for 14 decisions")


def finished_game(db: Session, host: accounts.User, other: accounts.User, winner: int) -> Game:
    game = lobby.create_game(
        db, host, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="live"
    )
    lobby.join(db, game, other)
    starting.start(db, game, host)
    game.status = "finished"
    game.outcome = {"winner": winner, "ranking": [winner, 1 - winner], "scores": {}}
    db.flush()
    return game


def test_ratings_move_after_every_finished_game_and_show_in_profiles(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        game = finished_game(db, alice, bob, 0)
        alice_seat = lobby.seat_of(game, alice.id)
        assert alice_seat is not None
        game.outcome = {
            **(game.outcome or {}),
            "winner": alice_seat.index,
            "ranking": [alice_seat.index, 1 - alice_seat.index],
        }
        changes = ratings.rate_game(db, game)
        assert changes[alice.id][1] > changes[alice.id][0] == 1000
        assert changes[bob.id][1] < 1000
        assert ratings.rate_game(db, game) == {}, "a game is rated once"
        stats = db.get(PlayerStats, alice.id)
        assert stats is not None and stats.games == 1 and stats.wins == 1
        ratings.seen(db, alice.id)
        db.commit()
        assert [p["username"] for p in ratings.online(db)] == ["alice"]
        found = ratings.profile(db, "ALICE", bob.id)
        assert found is not None and found.online and found.rating.value == changes[alice.id][1]
        assert found.history[0]["place"] == 1 and found.history[0]["rating_change"] > 0


def test_the_lobby_names_powers_never_codes(factory: sessionmaker[Session]) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        game = lobby.create_game(
            db,
            alice,
            "late_antiquity",
            [lobby.SeatSpec("human"), lobby.SeatSpec("bot")],
            host_power="wei",
        )
        seat = lobby.seat_summary(game.seats[0])
        assert seat["power_name"] == "Northern Wei" and seat["colour"] and seat["pattern"]


def test_no_two_powers_of_a_scenario_share_a_colour_or_a_pattern() -> None:
    scenarios = json.loads((ROOT / "app/content/data/scenarios.json").read_text())
    for sc in scenarios:
        colours = [p["colour"].lower() for p in sc["powers"]]
        patterns = [p["pattern"] for p in sc["powers"]]
        assert len(set(colours)) == len(colours), sc["id"]
        assert len(set(patterns)) == len(patterns), sc["id"]
        for i, a in enumerate(colours):
            for b in colours[i + 1 :]:
                # far enough apart to tell at a glance: CIE76 colour difference above 34
                # (the old Sasanian/Rouran oranges #E69F00/#D55E00 were 33.4 apart)
                assert delta_e(a, b) > 34, (sc["id"], a, b)


def delta_e(a: str, b: str) -> float:
    """CIE76 difference of two #rrggbb colours (sRGB, D65)."""

    def lab(h: str) -> tuple[float, float, float]:
        def lin(c: float) -> float:
            return ((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92

        r, g, bl = (lin(int(h[i : i + 2], 16) / 255) for i in (1, 3, 5))
        x = (r * 0.4124 + g * 0.3576 + bl * 0.1805) / 0.95047
        y = r * 0.2126 + g * 0.7152 + bl * 0.0722
        z = (r * 0.0193 + g * 0.1192 + bl * 0.9505) / 1.08883

        def f(v: float) -> float:
            return v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116

        return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))

    return float(sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5)


def test_the_tutorial_script_meets_every_situation() -> None:
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from tutorial_seed import play as play_script
    finally:
        sys.path.pop(0)
    seen, decisions, over, order = play_script(tutorial.SEED)
    assert over and set(tutorial.SITUATIONS) <= seen, order
    assert decisions <= 40, "a tutorial a newcomer finishes in ten minutes"


def test_the_coach_tells_the_goal_first_and_names_the_area(
    factory: sessionmaker[Session],
) -> None:
    """Issue 26, item 9: before the first move the coach says how a game is won (26.1,
    26.2); a step that needs one area among many names it."""
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        game = tutorial.start(db, alice)
        db.commit()
        advice = tutorial.coach(db, game, alice.id)
    assert [s["id"] for s in advice["situations"]][:2] == ["goal", "diplomacy"]
    assert advice["situations"][0] == {"id": "goal", "title": "How a game is won", "done": False}
    goal = advice["goal"]
    assert goal["rules"] == ["26.1", "26.2"]
    for words in ("victory points", "victory level", "standing", "highest standing wins"):
        assert words in goal["text"].lower()
    assert tutorial.doing(
        {
            "type": "endeavour",
            "kind": "diplomacy",
            "base": "bactria",
            "target": "achaea",
            "talents": 0,
        }
    ) == ("This time: diplomacy from Bactria, target Achaea.")
    assert tutorial.doing({"type": "tax", "area": "gandhara", "amount": 2}) == (
        "This time: tax Gandhara for 2 talents."
    )
    assert tutorial.doing({"type": "draw"}) is None
