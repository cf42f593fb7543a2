"""Ratings people trust (issue 26, item 6): the tutorial and games with no other person
change no rating; a rating is provisional ("1138?") until PROVISIONAL_GAMES rated games;
the profile page (a real server) lists rated and unrated games apart."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, lobby, ratings, standins, starting, tutorial
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Game, PlayerStats, User


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def finish(db: Session, game: Game, ranking: list[int]) -> None:
    """End `game` with `ranking` and run what a real end runs (stand-in notes, ratings)."""
    game.status = "finished"
    game.outcome = {"winner": ranking[0], "ranking": ranking, "scores": {}}
    standins.on_finish(db, game)
    db.flush()


def two_people(db: Session, host: User, other: User) -> Game:
    game = lobby.create_game(
        db, host, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="live"
    )
    lobby.join(db, game, other)
    starting.start(db, game, host)
    return game


def against_bot(db: Session, host: User) -> Game:
    game = lobby.create_game(
        db, host, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "standard")]
    )
    starting.start(db, game, host)
    return game


def test_the_tutorial_and_a_game_against_bots_change_no_rating(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        lesson = tutorial.start(db, alice)
        finish(db, lesson, [0, 1])  # she wins the tutorial
        solo = against_bot(db, alice)
        finish(db, solo, [0, 1])  # and a game against a Standard bot
        db.commit()
        assert (lesson.result_notes or {}).get("unrated") == "the tutorial"
        assert (solo.result_notes or {}).get("unrated") == "no other person at the table"
        assert "rated" not in (lesson.result_notes or {})
        stats = db.get(PlayerStats, alice.id)
        assert stats is None or (stats.games == 0 and stats.wins == 0)
        shown = ratings.ratings_of(db, [alice.id])[alice.id]
        assert (shown.value, str(shown)) == (1000, "1000?"), "no rating change at all"
        assert ratings.rate_game(db, solo) == {}, "still unrated when asked again"


def test_a_rating_is_provisional_until_enough_rated_games(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        labels = []
        for n in range(ratings.PROVISIONAL_GAMES):
            game = two_people(db, alice, bob)
            mine = lobby.seat_of(game, alice.id)
            assert mine is not None
            finish(db, game, [mine.index, 1 - mine.index])
            assert "rated" in (game.result_notes or {}), "a game between people is rated"
            shown = ratings.ratings_of(db, [alice.id])[alice.id]
            labels.append(str(shown))
            assert shown.provisional is (n + 1 < ratings.PROVISIONAL_GAMES), labels
        db.commit()
        assert all(label.endswith("?") for label in labels[:-1]), labels
        assert re.fullmatch(r"\d+", labels[-1]), labels
        assert int(labels[-1]) > 1000
        settled = ratings.ratings_of(db, [alice.id])[alice.id]
        assert "after 5 rated games" in settled.title


def test_the_profile_shows_rated_and_unrated_games_apart(
    factory: sessionmaker[Session], migrated_url: str, start_server: object
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        bob = accounts.signup(db, "bob", "correct horse 1")
        rated = two_people(db, alice, bob)
        seat = lobby.seat_of(rated, alice.id)
        assert seat is not None
        finish(db, rated, [seat.index, 1 - seat.index])
        lesson = tutorial.start(db, alice)
        finish(db, lesson, [0, 1])
        solo = against_bot(db, alice)
        finish(db, solo, [1, 0])
        db.commit()
        ids = {"rated": rated.id, "lesson": lesson.id, "solo": solo.id}
    server = start_server(migrated_url)  # type: ignore[operator]
    with httpx.Client(base_url=server.url, timeout=30) as http:
        # logged in as herself: her private games (the tutorial) are listed too
        login = http.post("/api/login", json={"username": "alice", "password": "correct horse 1"})
        assert login.status_code == 200, login.text
        page = http.get("/players/alice")
    assert page.status_code == 200
    html = page.text
    rated_part = html.split('id="history"', 1)[1].split("</table>", 1)[0]
    unrated_part = html.split('id="history-unrated"', 1)[1].split("</table>", 1)[0]
    assert f"#{ids['rated']}<" in rated_part and re.search(r"[+-]\d+</td>", rated_part)
    assert f"#{ids['lesson']}<" in unrated_part and "the tutorial" in unrated_part
    assert f"#{ids['solo']}<" in unrated_part and "no other person" in unrated_part
    assert f"#{ids['lesson']}<" not in rated_part and f"#{ids['rated']}<" not in unrated_part
    rating = re.search(r'id="rating"[^>]*>([^<]+)<', html)
    assert rating is not None and rating.group(1).endswith("?"), "one rated game: provisional"
    assert "settles after 5 rated games (1 so far)" in html
