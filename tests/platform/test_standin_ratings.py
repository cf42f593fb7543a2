"""Ratings of games played by stand-ins (issue 40, item 4): a seat a stand-in played for
more than half of its decisions is unrated for its person, and the others' ratings are
computed as if it were a bot's seat (the Standard bot a stand-in is); the end screen's
table and the profile say so; the solitaire growth shows only in a game with one person."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, gamelog, lobby, ratings, results, standins, starting
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Action, Game, PlayerStats, User

PEOPLE_THEN_BOTS = [lobby.SeatSpec("human")] * 3 + [lobby.SeatSpec("bot", "standard")] * 3


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def table(db: Session, people: list[User], seats: list[lobby.SeatSpec]) -> Game:
    """A Four Empires game of `seats`, `people` in its first seats, started."""
    game = lobby.create_game(db, people[0], "four_empires", seats, pace="live")
    for person in people[1:]:
        lobby.join(db, game, person)
    starting.start(db, game, people[0])
    return game


def seat_of(game: Game, user: User) -> int:
    seat = lobby.seat_of(game, user.id)
    assert seat is not None
    return seat.index


def finish(db: Session, game: Game, ranking: list[int], notes: dict[str, object]) -> None:
    """End `game` with `ranking`, its decisions already counted in `notes` (what
    ``standins.on_finish`` writes from the action log), and run the real end."""
    game.status = "finished"
    game.outcome = {"winner": ranking[0], "ranking": ranking, "scores": {}}
    game.result_notes = dict(notes)
    standins.on_finish(db, game)
    db.flush()


def people(db: Session, *names: str) -> list[User]:
    return [accounts.signup(db, name, "correct horse 1") for name in names]


def test_a_seat_a_stand_in_played_is_unrated_and_counts_as_a_bot(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice, bob, carol = people(db, "alice", "bob", "carol")
        game = table(db, [alice, bob, carol], PEOPLE_THEN_BOTS)
        a, b, c = seat_of(game, alice), seat_of(game, bob), seat_of(game, carol)
        ranking = [a, c, 3, b, 4, 5]  # carol's stand-in came second
        finish(
            db,
            game,
            ranking,
            {"standin": {str(c): 133}, "decisions": {str(a): 150, str(b): 160, str(c): 180}},
        )
        notes = game.result_notes or {}
        assert set(notes["rated"]) == {str(alice.id), str(bob.id)}
        assert notes["standin_unrated"] == {
            str(carol.id): "a stand-in made 133 of the seat's 180 decisions (more than half)"
        }
        assert db.get(PlayerStats, carol.id) is None, "her rating never moved"
        moved = {uid: tuple(v) for uid, v in notes["rated"].items()}

        # the same table with a Standard bot in carol's seat moves the others the same
        ann, ben = people(db, "ann", "ben")
        seats = [lobby.SeatSpec("human")] * 2 + [lobby.SeatSpec("bot", "heuristic")] * 4
        twin = table(db, [ann, ben], seats)
        bot = next(s.index for s in twin.seats if s.user_id is None and s.index not in (a, b))
        order = {a: seat_of(twin, ann), b: seat_of(twin, ben), c: bot}
        others = iter(s.index for s in twin.seats if s.index not in order.values())
        finish(db, twin, [order[s] if s in order else next(others) for s in ranking], {})
        twin_moved = {uid: tuple(v) for uid, v in (twin.result_notes or {})["rated"].items()}
        assert moved[str(alice.id)] == twin_moved[str(ann.id)]
        assert moved[str(bob.id)] == twin_moved[str(ben.id)]

        # had carol played her seat, she would be a newcomer person in the update
        cleo, dan, eve = people(db, "cleo", "dan", "eve")
        played = table(db, [cleo, dan, eve], PEOPLE_THEN_BOTS)
        mapped = {a: seat_of(played, cleo), b: seat_of(played, dan), c: seat_of(played, eve)}
        rest = iter(s.index for s in played.seats if s.index not in mapped.values())
        finish(db, played, [mapped[s] if s in mapped else next(rest) for s in ranking], {})
        cleo_moved = tuple((played.result_notes or {})["rated"][str(cleo.id)])
        assert cleo_moved != moved[str(alice.id)], "the stand-in's seat is not a person's"

        # the end screen's table: her row says why, the others show their change
        state = gamelog.load_state(game, db)
        shown = results.result_table(game, state)
        rows = {r["seat"]: r for r in shown["rows"]}
        assert rows[c]["rating"] is None and rows[c]["stood_in"] == {
            "standin": 133,
            "decisions": 180,
        }
        assert "133 of the seat's 180 decisions" in rows[c]["unrated"]
        before, after = moved[str(alice.id)]
        assert rows[a]["rating"] == {"before": before, "after": after, "change": after - before}
        assert rows[3]["rating"] is None and rows[3]["unrated"] is None, "a bot's seat"
        assert [col["key"] for col in shown["columns"]][-1] == "rating"
        assert "not for carol" in shown["rating_note"]
        assert shown["solitaire"] is None, "no solitaire growth at a table of people"
        assert all(r["solitaire"] is None for r in shown["rows"])

        # and her profile lists the game as unrated, saying why
        line = ratings.game_line(game, carol.id)
        assert not line["rated"] and "a stand-in made 133" in str(line["unrated_reason"])
        assert ratings.game_line(game, alice.id)["rated"]
        db.rollback()


def test_half_or_less_stays_rated_and_one_person_left_is_unrated(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice, bob = people(db, "alice", "bob")
        seats = [lobby.SeatSpec("human"), lobby.SeatSpec("human")]
        half = lobby.create_game(db, alice, "teaching", seats, pace="live")
        lobby.join(db, half, bob)
        starting.start(db, half, alice)
        a, b = seat_of(half, alice), seat_of(half, bob)
        finish(db, half, [a, b], {"standin": {str(b): 60}, "decisions": {str(a): 90, str(b): 120}})
        assert set((half.result_notes or {})["rated"]) == {str(alice.id), str(bob.id)}

        most = lobby.create_game(db, alice, "teaching", seats, pace="live")
        lobby.join(db, most, bob)
        starting.start(db, most, alice)
        a, b = seat_of(most, alice), seat_of(most, bob)
        finish(db, most, [a, b], {"standin": {str(b): 61}, "decisions": {str(a): 90, str(b): 120}})
        notes = most.result_notes or {}
        assert "rated" not in notes and "stand-ins made most decisions" in notes["unrated"]
        assert notes["standin_unrated"] == {
            str(bob.id): "a stand-in made 61 of the seat's 120 decisions (more than half)"
        }
        stats = db.get(PlayerStats, alice.id)
        assert stats is not None and stats.games == 1, "only the first game moved her rating"
        shown = results.result_table(most, gamelog.load_state(most, db))
        assert shown["rating_note"].startswith("This game is unrated: fewer than two people")
        assert ratings.game_line(most, bob.id)["unrated_reason"].startswith("a stand-in made 61")
        db.rollback()


def test_on_finish_counts_every_decision_of_a_seat_by_its_source(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice, bob = people(db, "alice", "bob")
        seats = [lobby.SeatSpec("human"), lobby.SeatSpec("human")]
        game = lobby.create_game(db, alice, "teaching", seats, pace="live")
        lobby.join(db, game, bob)
        starting.start(db, game, alice)
        a, b = seat_of(game, alice), seat_of(game, bob)
        made = {
            a: {"player": 5, "forced": 2, "order": 1, "standin": 7},  # 7 of 15: not most
            b: {"player": 2, "deadline": 1, "standin": 4},  # 4 of 7: most
        }
        seq = 10_000
        for seat, by_source in made.items():
            for source, n in by_source.items():
                for _ in range(n):
                    seq += 1
                    db.add(
                        Action(
                            game_id=game.id,
                            seq=seq,
                            seat=seat,
                            action={"type": "pass"},
                            source=source,
                            version=1,
                        )
                    )
        db.flush()
        game.status = "finished"
        game.outcome = {"winner": a, "ranking": [a, b], "scores": {}}
        standins.on_finish(db, game)
        notes = game.result_notes or {}
        assert notes["decisions"] == {str(a): 15, str(b): 7}
        assert notes["standin"] == {str(a): 7, str(b): 4}
        assert ratings.stood_in(notes) == {b: (4, 7)}
        assert "unrated" in notes and str(bob.id) in notes["standin_unrated"]
        db.rollback()


def test_the_solitaire_growth_shows_in_a_game_with_one_person(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        (alice,) = people(db, "alice")
        seats = [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "standard")]
        game = lobby.create_game(db, alice, "teaching", seats)
        starting.start(db, game, alice)
        game.status = "finished"
        game.outcome = {
            "winner": 0,
            "ranking": [0, 1],
            "scores": {"0": {"total": 5, "level": -11, "standing": 16}, "1": {"total": 9}},
            "solitaire_rating": {"0": "Poor", "1": "Good"},
        }
        standins.on_finish(db, game)
        shown = results.result_table(game, gamelog.load_state(game, db))
        assert shown["solitaire"] is not None and shown["rows"][0]["solitaire"] == "Poor"
        assert [c["key"] for c in shown["columns"]] == ["vp", "level", "standing", "tiebreak"]
        assert shown["rating_note"] == "This game is unrated: no other person at the table."
        # a victory level below zero, in words (26.2)
        first = shown["rows"][0]
        assert first["level_words"] == (
            "5 VP plus 11 for a victory level of −11: a level below zero is added, as this "
            "power starts weak (standing 16)"
        )
        assert "5 VP plus 11 for a victory level of −11" in shown["headline"]
        db.rollback()


def test_the_profile_says_a_stand_in_played_her_seat(
    factory: sessionmaker[Session], migrated_url: str, start_server: Any
) -> None:
    with factory() as db:
        alice, bob, carol = people(db, "alice", "bob", "carol")
        game = table(db, [alice, bob, carol], PEOPLE_THEN_BOTS)
        a, b, c = seat_of(game, alice), seat_of(game, bob), seat_of(game, carol)
        finish(
            db,
            game,
            [a, c, b, 3, 4, 5],
            {"standin": {str(c): 100}, "decisions": {str(a): 150, str(b): 160, str(c): 150}},
        )
        db.commit()
        gid = game.id
    server = start_server(migrated_url)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        carol_page = http.get("/players/carol").text
        alice_page = http.get("/players/alice").text
    unrated = carol_page.split('id="history-unrated"', 1)[1].split("</table>", 1)[0]
    assert f"#{gid}<" in unrated
    assert "a stand-in made 100 of the seat&#39;s 150 decisions (more than half)" in unrated
    assert 'id="history"' not in carol_page, "no rated game for her"
    assert "seat a stand-in played for more than half of its decisions" in carol_page
    rated = alice_page.split('id="history"', 1)[1].split("</table>", 1)[0]
    assert f"#{gid}<" in rated and re.search(r"[+-]\d+</td>", rated)
