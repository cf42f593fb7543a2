"""``imperial-glory admin backup PATH`` and ``admin restore PATH`` (app/store/backup.py,
app/services/backup_cli.py), on SQLite and PostgreSQL: a site with finished, live and
unstarted games is backed up while a game is being played on it, restored into an empty
database, and there every game verifies and a live one plays on; the refusals."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, lobby, play, starting, unit
from app.services.backup_cli import verify_all
from app.services.errors import StaleVersion
from app.store.backup import revision_of
from app.store.db import make_engine, make_sessionmaker
from tests.conftest import ROOT, create_pg_database, drop_pg_database, migrate
from tests.platform.finish import play_to_the_end


def admin(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command: ``imperial-glory admin --url URL ...``."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "admin", "--url", url, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@dataclass
class Site:
    factory: sessionmaker[Session]
    finished: list[int] = field(default_factory=list)
    live: dict[int, dict[int, int]] = field(default_factory=dict)  # game -> seat -> user
    lobby: list[int] = field(default_factory=list)


def _person(db: Session) -> Any:
    return accounts.signup(db, f"p{uuid.uuid4().hex[:10]}", "correct horse 1")


def step(factory: sessionmaker[Session], game_id: int, seats: dict[int, int], rng: Any) -> bool:
    """The prompted person of `game_id` makes a random legal move through the unit of
    work; False when no person is prompted (the game ended, or a bot is to move)."""
    with factory() as db:
        view = play.seat_view(db, game_id, None)
        people = [int(p["seat"]) for p in view["prompts"] if int(p["seat"]) in seats]
        if view["status"] != "active" or not people:
            return False
        user = seats[people[0]]
        mine = play.seat_view(db, game_id, user)
        try:
            unit.move(db, game_id, user, rng.choice(mine["legal_actions"]), mine["version"], None)
        except StaleVersion:
            db.rollback()
        return True


def build(url: str) -> Iterator[Site]:
    migrate(url)
    engine = make_engine(url)
    site = Site(make_sessionmaker(engine))
    try:
        rng = random.Random(7)
        for _ in range(2):  # a person against a bot, played to the end (~1 s each)
            with site.factory() as db:
                host = _person(db)
                seats = [lobby.SeatSpec("human"), lobby.SeatSpec("bot", "random")]
                game = lobby.create_game(db, host, "teaching", seats)
                starting.start(db, game, host)
                db.commit()
                game_id, host_id = game.id, host.id
            play_to_the_end(site.factory, game_id, host_id, seed=game_id)
            site.finished.append(game_id)
        for _ in range(2):  # two people, a few moves in
            with site.factory() as db:
                host, guest = _person(db), _person(db)
                seats = [lobby.SeatSpec("human"), lobby.SeatSpec("human")]
                game = lobby.create_game(db, host, "teaching", seats)
                lobby.join(db, game, guest)
                starting.start(db, game, host)
                db.commit()
                site.live[game.id] = {
                    s.index: int(s.user_id) for s in game.seats if s.user_id is not None
                }
            for _ in range(6):
                step(site.factory, game.id, site.live[game.id], rng)
        with site.factory() as db:  # and one still in its lobby
            host = _person(db)
            seats = [lobby.SeatSpec("human"), lobby.SeatSpec("human")]
            site.lobby.append(lobby.create_game(db, host, "teaching", seats).id)
            db.commit()
        yield site
    finally:
        engine.dispose()


@pytest.fixture
def target(db_url: str, tmp_path: Path) -> Iterator[str]:
    """An empty database of the same kind as `db_url`: a fresh name on the test server
    for PostgreSQL (dropped afterwards), a new file for SQLite."""
    if db_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'restored' / 'site.sqlite3'}"
        return
    url = create_pg_database(db_url.rsplit("/", 1)[0])
    try:
        yield url
    finally:
        drop_pg_database(url)


@pytest.mark.slow
def test_a_backup_restores_into_an_empty_database_where_every_game_verifies(
    db_url: str, target: str, tmp_path: Path
) -> None:
    site_gen = build(db_url)
    site = next(site_gen)
    try:
        started = len(site.finished) + len(site.live)
        # Backed up while a game is being played: the backup is one consistent moment.
        busy, stop = next(iter(site.live.items())), threading.Event()
        played: list[int] = []

        def play_on() -> None:
            rng = random.Random(11)
            while not stop.is_set() and step(site.factory, busy[0], busy[1], rng):
                played.append(1)

        writer = threading.Thread(target=play_on)
        writer.start()
        try:
            path = tmp_path / "site.backup"
            made = admin(db_url, "backup", str(path))
        finally:
            stop.set()
            writer.join(30)
        assert made.returncode == 0, made.stderr
        assert "backed up to" in made.stdout and path.stat().st_size > 0
        assert played, "no move was made while the backup ran"
        assert admin(db_url, "backup", str(path)).returncode == 1  # it exists: not replaced

        restored = admin(target, "restore", str(path), "--verify")
        assert restored.returncode == 0, restored.stderr
        assert f"verified {started} of {started} started games" in restored.stdout

        engine = make_engine(target)
        factory = make_sessionmaker(engine)
        try:
            with factory() as db:
                checked, failed = verify_all(db)
                assert (checked, failed) == (started, [])
                for game_id in site.finished:
                    assert lobby.get_game(db, game_id).status == "finished"
                assert lobby.get_game(db, site.lobby[0]).status == "lobby"
            # A live game plays on in the restored database: a legal move commits.
            game_id, seats = list(site.live.items())[-1]
            with factory() as db:
                before = lobby.get_game(db, game_id).version
            assert step(factory, game_id, seats, random.Random(3))
            with factory() as db:
                assert lobby.get_game(db, game_id).version > before
                assert verify_all(db) == (started, [])
            engine.dispose()  # no connection held while the target is replaced

            # The target now holds a site: refused, unless forced (then replaced whole).
            again = admin(target, "restore", str(path))
            assert again.returncode == 1
            assert "not empty" in again.stderr and "--force" in again.stderr
            forced = admin(target, "restore", str(path), "--force")
            assert forced.returncode == 0, forced.stderr
            with factory() as db:
                assert lobby.get_game(db, game_id).version == before
                assert verify_all(db) == (started, [])
        finally:
            engine.dispose()
    finally:
        site_gen.close()


def test_an_older_schema_is_upgraded_and_bad_files_are_refused(
    db_url: str, target: str, tmp_path: Path
) -> None:
    from app.store.cli import upgrade

    upgrade(db_url, "0010")  # a release before the newest migration
    path = tmp_path / "old.backup"
    assert admin(db_url, "backup", str(path)).returncode == 0
    restored = admin(target, "restore", str(path))
    assert restored.returncode == 0, restored.stderr
    assert "(upgraded from 0010)" in restored.stdout
    assert revision_of(target) == revision_of_head()

    junk = tmp_path / "junk.backup"
    junk.write_bytes(b"not a backup at all")
    refused = admin(target, "restore", str(junk), "--force")
    assert refused.returncode == 1
    assert "is not a backup of this site" in refused.stderr
    missing = admin(target, "restore", str(tmp_path / "nowhere.backup"))
    assert missing.returncode == 1 and "nowhere.backup" in missing.stderr


def revision_of_head() -> str | None:
    from alembic.script import ScriptDirectory

    from app.store.cli import alembic_config

    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
