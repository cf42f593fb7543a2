"""A player who finished the tutorial has it on her profile, for everyone (issue 40: her
profile read "no games"): the tutorial is listed among the unrated games, without a link
for others (the game itself stays private), and the profile counts her games. A private
game of hers against a bot stays off the profile for others."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, lobby, standins, starting, tutorial
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Game


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def finish(db: Session, game: Game, ranking: list[int]) -> None:
    game.status = "finished"
    game.outcome = {"winner": ranking[0], "ranking": ranking, "scores": {}}
    standins.on_finish(db, game)
    db.flush()


def test_a_finished_tutorial_is_on_the_profile_for_everyone(
    factory: sessionmaker[Session], migrated_url: str, start_server: object
) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        lesson = tutorial.start(db, alice)
        finish(db, lesson, [0, 1])
        hidden = lobby.create_game(
            db,
            alice,
            "teaching",
            [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "standard")],
            public=False,
        )
        starting.start(db, hidden, alice)
        finish(db, hidden, [0, 1])
        db.commit()
        ids = (lesson.id, hidden.id)
    server = start_server(migrated_url)  # type: ignore[operator]
    with httpx.Client(base_url=server.url, timeout=30) as http:
        page = http.get("/players/alice")  # nobody logged in
    assert page.status_code == 200
    html = page.text
    assert 'id="history-unrated"' in html, "no games on the profile"
    unrated = html.split('id="history-unrated"', 1)[1].split("</table>", 1)[0]
    assert f"#{ids[0]}" in unrated and "the tutorial" in unrated
    assert f'href="/games/{ids[0]}"' not in unrated, "a link others cannot open"
    assert f"#{ids[1]}" not in html, "a private game shown to a stranger"
    assert '<dd id="played-count">1</dd>' in html
