"""A result everyone understands (issue 26, item 5): the end screen ranks the seats by
what decides the game (rules 26.2: standing, then areas, then talents, then the lower
seat), with VP, victory level, standing and the tie-break, each column explained with
its rule, and the solitaire rating said for what it measures."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, gamelog, lobby, results, starting
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Game
from tests.conftest import migrate
from tests.platform.finish import play_to_the_end

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp"))


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def test_a_tie_on_standing_is_explained_by_the_areas(factory: sessionmaker[Session]) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "standard")]
        )
        starting.start(db, game, alice)
        db.commit()
        state = copy.deepcopy(gamelog.load_state(game, db))  # the cached one is shared
        free = next(a for a in state["areas"].values() if a["owner"] is None)
        free["owner"] = 0  # seat 0 owns one area more than at the start
        owned = [sum(1 for a in state["areas"].values() if a["owner"] == s) for s in (0, 1)]
        more, fewer = (0, 1) if owned[0] > owned[1] else (1, 0)
        assert owned[more] != owned[fewer]
        # the end: 15 VP at level 0 against 16 VP at level 1, both standing 15
        game.status = "finished"
        game.outcome = {
            "winner": more,
            "ranking": [more, fewer],
            "scores": {
                str(more): {"total": 15, "level": 0, "standing": 15, "areas": 11},
                str(fewer): {"total": 16, "level": 1, "standing": 15, "areas": 12},
            },
            "solitaire_rating": {str(more): "Poor", str(fewer): "Fair"},
        }
        table = results.result_table(game, state)
        first, second = table["rows"]
        assert (first["seat"], first["place"], second["place"]) == (more, 1, 2)
        assert (first["vp"], first["level"], first["standing"]) == (15, 0, 15)
        assert (second["vp"], second["level"], second["standing"]) == (16, 1, 15)
        assert (
            first["tiebreak"] == f"{owned[more]} areas, {state['players'][more]['talents']} talents"
        )
        assert "tie-break" in table["headline"] and "owns more areas" in table["headline"]
        assert f"({owned[more]} to {owned[fewer]})" in table["headline"]
        assert "owns more areas" in second["why"]
        assert [c["rule"] for c in table["columns"]] == ["26.1", "26.2", "26.2", "26.2"]
        assert all(c["text"] for c in table["columns"])
        assert "growth, not the result" in table["solitaire"]["text"]


def test_the_tie_break_column_counts_in_words() -> None:
    assert results.tiebreak_words(1, 3) == "1 area, 3 talents"
    assert results.tiebreak_words(2, 1) == "2 areas, 1 talent"
    assert results.tiebreak_words(0, 0) == "0 areas, 0 talents"


def test_the_result_waits_for_the_end(factory: sessionmaker[Session]) -> None:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "standard")]
        )
        starting.start(db, game, alice)
        db.commit()
        with pytest.raises(results.Conflict):
            results.result_for(db, game.id, alice.id)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no Chromium at /usr/bin/chromium")
def test_the_end_screen_of_a_finished_game(sqlite_url: str, start_server: Any) -> None:
    migrate(sqlite_url)
    eng = make_engine(sqlite_url)
    factory = make_sessionmaker(eng)
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1")
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "random")]
        )
        starting.start(db, game, alice)
        db.commit()
        gid, uid = game.id, alice.id
    play_to_the_end(factory, gid, uid)
    with factory() as db:
        done = db.get(Game, gid)
        assert done is not None and done.status == "finished" and done.outcome
        ranking = [int(s) for s in done.outcome["ranking"]]
    eng.dispose()
    server = start_server(sqlite_url)
    table = httpx.get(f"{server.url}/api/games/{gid}/result", timeout=30).json()
    assert [r["seat"] for r in table["rows"]] == ranking, "the engine's ranking, as it is"
    standings = [r["standing"] for r in table["rows"]]
    assert standings == sorted(standings, reverse=True)

    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page(base_url=server.url, viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto("/login")
            page.fill("input[name=username]", "alice")
            page.fill("input[name=password]", "correct horse 1")
            page.click("form button[type=submit]")
            page.wait_for_url(f"{server.url}/")
            page.goto(f"/games/{gid}")
            result = page.locator(".outcome.result")
            result.wait_for(timeout=20_000)
            heads = result.locator(".result-table thead th").all_inner_texts()
            assert heads == [
                "#",
                "Power",
                "VP",
                "Victory level",
                "Standing",
                "Tie-break",
                "Why this place",
            ]
            rows = result.locator(".result-table tbody tr")
            assert rows.count() == len(ranking)
            assert [
                int(s) for s in rows.evaluate_all("rs => rs.map(r => r.dataset.seat)")
            ] == ranking
            legend = result.locator(".result-legend")
            for rule in ("26.1", "26.2"):
                assert legend.locator(f"a[href='/rules#r{rule}']").count() >= 1
            assert legend.locator("dd").count() == 4
            text = result.inner_text()
            assert "The highest standing wins" in text
            assert "growth, not the result" in text, "the solitaire rating says what it measures"
            assert "Solitaire rating:" not in text
            assert result.locator(".result-table tr.me").count() == 1
            page.screenshot(path=str(SHOTS / "catchup-end-screen.png"), full_page=True)
            assert not errors, errors
        finally:
            browser.close()
