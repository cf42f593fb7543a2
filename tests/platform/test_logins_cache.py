"""The cached session lookup: a hit costs no query, and a log-out (or a change of the
user) is seen at once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, logins
from app.store.db import make_engine, make_sessionmaker


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


@contextmanager
def statements(factory: sessionmaker[Session]) -> Iterator[list[str]]:
    """The SQL sent through `factory`'s engine inside the block."""
    sent: list[str] = []

    def count(*args: Any) -> None:
        sent.append(args[2])

    bind = factory.kw["bind"]
    event.listen(bind, "before_cursor_execute", count)
    try:
        yield sent
    finally:
        event.remove(bind, "before_cursor_execute", count)


def test_whose_token_a_socket_action_carries(factory: sessionmaker[Session]) -> None:
    """``user_id_for_token`` (a socket's action): the same answer as the full lookup, a
    hit with no query, and a log-out seen at once."""
    with factory() as db:
        user = accounts.signup(db, "alice", "correct horse 1")
        token, _ = accounts.create_session(db, user, 30)
        db.commit()
        alice = user.id
    logins.clear()
    with factory() as db:
        assert logins.user_id_for_token(db, None) is None
        assert logins.user_id_for_token(db, "not-a-token") is None
        assert logins.user_id_for_token(db, token) == alice  # a miss reads, and fills
    with statements(factory) as queries, factory() as db:
        assert logins.user_id_for_token(db, token) == alice
    assert queries == []
    with factory() as db:
        accounts.logout(db, token)
        db.commit()
    with factory() as db:
        assert logins.user_id_for_token(db, token) is None


def test_a_hit_costs_no_query_and_a_logout_is_seen_at_once(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        user = accounts.signup(db, "alice", "correct horse 1")
        token, _ = accounts.create_session(db, user, 30)
        db.commit()
    with factory() as db:
        assert logins.session_for_token(db, token) is not None  # a miss fills the cache
    with statements(factory) as queries, factory() as db:
        login = logins.session_for_token(db, token)
        assert login is not None and login.user.username == "alice"
        assert queries == []
        login.user.email = "alice@example.org"  # a change of the user is written
        db.commit()
    with factory() as db:
        login = logins.session_for_token(db, token)
        assert login is not None and login.user.email == "alice@example.org"
    with factory() as db:
        accounts.logout(db, token)
        db.commit()
    with factory() as db:
        assert logins.session_for_token(db, token) is None


def test_a_miss_is_one_statement_and_the_cache_lives_longer_while_notices_are_heard(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A miss reads the session and its user in one statement. An entry lives ``TTL_S``
    unless the process hears the other processes' log-outs (``hearing``: its LISTEN
    connection is up), then ``HEARD_TTL_S``; losing the connection clears the cache."""
    with factory() as db:
        user = accounts.signup(db, "alice", "correct horse 1")
        token, _ = accounts.create_session(db, user, 30)
        db.commit()
        alice = user.id
    now = [1000.0]
    monkeypatch.setattr(logins.time, "monotonic", lambda: now[0])
    try:
        for heard, ttl in ((False, logins.TTL_S), (True, logins.HEARD_TTL_S)):
            logins.hearing(heard)
            with statements(factory) as queries, factory() as db:
                login = logins.session_for_token(db, token)
                assert login is not None and login.user.username == "alice"
            assert len(queries) == 1, queries
            now[0] += ttl - 1
            with statements(factory) as queries, factory() as db:
                assert logins.user_id_for_token(db, token) == alice
            assert queries == []  # still cached
            now[0] += 2
            with statements(factory) as queries, factory() as db:
                assert logins.user_id_for_token(db, token) == alice
            assert len(queries) == 1  # lived its time: read again
        logins.hearing(False)  # the connection lost: what was cached goes
        with statements(factory) as queries, factory() as db:
            assert logins.user_id_for_token(db, token) == alice
        assert len(queries) == 1
    finally:
        logins.hearing(False)
