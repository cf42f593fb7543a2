"""Mail times in the recipient's time zone, and a mail that says why a stand-in took her
seat (issue 40): an account has a time zone (``users.time_zone``, set from the browser at
sign-up and on /account, UTC when unset); "Decide before …" is written in it; the mail after
a table vote says the table voted. The column's migration goes up and down on SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import inspect
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.services import (
    accounts,
    gamelog,
    lobby,
    mailsink,
    notifications,
    standins,
    starting,
    timezones,
)
from app.services.errors import Invalid
from app.store.cli import downgrade, upgrade
from app.store.db import make_engine, make_sessionmaker


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def test_times_read_in_a_zone() -> None:
    winter = datetime(2026, 12, 1, 14, 16, tzinfo=UTC)
    assert timezones.local(winter, None) == "2026-12-01 14:16 UTC"
    assert timezones.local(winter, "Europe/Paris") == "2026-12-01 15:16 CET"
    assert timezones.local(winter, "America/New_York") == "2026-12-01 09:16 EST"
    assert timezones.local(winter, "Asia/Kolkata") == "2026-12-01 19:46 IST"
    assert timezones.local(winter.replace(tzinfo=None), "UTC") == "2026-12-01 14:16 UTC"
    assert timezones.local(winter, "Nowhere/Atlantis") == "2026-12-01 14:16 UTC"
    assert "UTC+04" in timezones.local(winter, "Asia/Dubai")  # no abbreviation: named
    assert timezones.check("Europe/Paris") == "Europe/Paris" and timezones.check(" ") is None
    assert timezones.check("Europe/Paris\n") == "Europe/Paris"  # stored clean
    for bad in ("Mars/Olympus", "europe/paris", "x" * 65, "Europe/\nParis"):
        with pytest.raises(Invalid) as refused:
            timezones.check(bad)
        assert refused.value.code == "bad_time_zone"
    assert timezones.from_browser("Mars/Olympus") is None  # never refuses a sign-up
    assert timezones.zones()[0] == "UTC" and "Europe/Paris" in timezones.zones()


def _table(factory: sessionmaker[Session]) -> int:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1", "alice@example.org", "Europe/Paris")
        bob = accounts.signup(db, "bob", "correct horse 1", "bob@example.org", "Mars/Olympus")
        assert (alice.time_zone, bob.time_zone) == ("Europe/Paris", None)
        accounts.update_preferences(db, bob, time_zone="America/New_York")
        assert bob.time_zone == "America/New_York"
        with pytest.raises(Invalid):
            accounts.update_preferences(db, bob, time_zone="Mars/Olympus")
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="24h"
        )
        lobby.join(db, game, bob)
        starting.start(db, game, alice)
        db.commit()
        return game.id


def test_the_mails_write_her_time_and_say_the_table_voted(
    factory: sessionmaker[Session], tmp_path: Any
) -> None:
    sink = str(tmp_path / "mail")
    settings = Settings(smtp_host=None, mail_sink=sink, base_url="http://table.example")
    gid = _table(factory)
    with factory() as db:
        game = gamelog.lock_game(db, gid)
        key, deadline = next(iter(game.deadlines.items()))
        assert deadline is not None
        seat = next(s for s in game.seats if s.index == int(key))
        assert seat.user is not None
        zone, email = seat.user.time_zone, seat.user.email
        started = notifications.prompt_started(game, deadline)
    assert notifications.run_once(factory, settings, started + timedelta(minutes=2)) == 1
    (mail,) = mailsink.read(sink)
    assert mail.to == email
    local = timezones.local(datetime.fromisoformat(deadline), zone)
    assert f"Decide before {local};" in mail.body, mail.body
    assert "UTC" not in mail.body and local[-3:] in ("CET", "EST")

    # The table votes her seat to a stand-in: the mail says so, not "you are away".
    with factory() as db:
        game = gamelog.lock_game(db, gid)
        seat = next(s for s in game.seats if s.index == int(key))
        standins.stand_in(db, game, seat, "vote", started + timedelta(minutes=3))
        db.commit()
    assert notifications.run_once(factory, settings, started + timedelta(minutes=4)) == 1
    voted = [m for m in mailsink.read(sink) if m.subject != mail.subject]
    assert len(voted) == 1
    assert "the table voted you a stand-in" in voted[0].subject, voted[0].subject
    assert "the table voted to hand your seat" in voted[0].body, voted[0].body


def test_the_time_zone_migration_both_ways(db_url: str) -> None:
    def columns() -> set[str]:
        eng = make_engine(db_url)
        try:
            return {c["name"] for c in inspect(eng).get_columns("users")}
        finally:
            eng.dispose()

    upgrade(db_url)
    assert "time_zone" in columns()
    eng = make_engine(db_url)
    try:
        with make_sessionmaker(eng)() as db:
            old = accounts.signup(db, "olduser", "correct horse 1")
            db.commit()
            assert old.time_zone is None  # an account from before: UTC
    finally:
        eng.dispose()
    downgrade(db_url, "0009")
    assert "time_zone" not in columns()
    upgrade(db_url)
    assert "time_zone" in columns()
