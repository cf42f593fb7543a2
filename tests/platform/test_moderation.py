"""Moderation's services (issue 41, part 5; app/services/moderation.py) on SQLite and
PostgreSQL: a block hides the blocked person's chat from the blocker alone and keeps the
two apart at a table; a table's chat muted; reports of lines and players with each
refusal; the admins' queue with each line's context, dismissal; a suspension (seats to
stand-ins, announced; sessions ended; sign-in refused with the reason; lobby seats
given up; the open reports closed) and its lifting (sign in, opening the game takes the
seat back); every action in the moderation log."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.services import accounts, chat, lobby, moderation, presence, publisher
from app.services.errors import Blocked, Conflict, Forbidden, Invalid, NotFound, Suspended
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Event, Game, ModerationEntry, Report, User
from tests.games import two_person_game

PASSWORD = "correct horse 1"


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def people(db: Session, *names: str) -> list[User]:
    return [accounts.signup(db, name, PASSWORD) for name in names]


def table(db: Session, host: User, *guests: User, public: bool = True) -> Game:
    """A lobby game hosted by `host` with a seat for each guest (who joins)."""
    seats = [lobby.SeatSpec("human")] * max(2, 1 + len(guests))
    game = lobby.create_game(db, host, "four_empires", seats, public=public)
    for guest in guests:
        lobby.join(db, game, guest)
    db.flush()
    return game


def texts(lines: list[dict[str, Any]]) -> list[str]:
    return [m["text"] for m in lines]


def actions(db: Session) -> list[tuple[str, str | None]]:
    rows = db.scalars(select(ModerationEntry).order_by(ModerationEntry.id))
    return [(e.action, e.target.username if e.target else None) for e in rows]


def test_a_block_hides_chat_from_the_blocker_and_keeps_the_two_apart(
    factory: sessionmaker[Session],
) -> None:
    with factory() as db:
        alice, bob, carol = people(db, "alice", "bob", "carol")
        game = table(db, alice, bob, carol)
        db.commit()
        gid = game.id
        chat.post(db, gid, carol, "hello all")
        chat.post(db, gid, bob, "hi")

        moderation.block(db, bob, "Carol")  # any case
        db.commit()
        assert texts(chat.since(db, gid, bob.id)) == ["hi"]
        assert texts(chat.since(db, gid, alice.id)) == ["hello all", "hi"]
        assert texts(chat.since(db, gid, None)) == ["hello all", "hi"]  # a spectator
        # The hub reads every line once and is told whose lines each reader may not get.
        assert texts(chat.since(db, gid, bob.id, everyone=True)) == ["hello all", "hi"]
        hidden = moderation.chat_hidden(db, gid, [alice.id, bob.id, None])
        assert hidden == {bob.id: frozenset({carol.id})}
        assert moderation.blocks_of(db, bob)[0]["username"] == "carol"
        assert moderation.block(db, bob, "carol")[1] is False  # again: nothing new

        with pytest.raises(Invalid, match="cannot block yourself"):
            moderation.block(db, bob, "bob")
        with pytest.raises(NotFound, match="no player 'nobody'"):
            moderation.block(db, bob, "nobody")

        # Neither can seat the other: carol cannot join bob's table, bob not carol's.
        bobs = table(db, bob)
        with pytest.raises(Blocked, match="a player at it has blocked you"):
            lobby.join(db, bobs, carol)
        carols = table(db, carol)
        with pytest.raises(Conflict, match="You block carol") as refused:
            lobby.join(db, carols, bob)
        assert refused.value.code == "you_block"
        db.rollback()

        # A rematch seats the old table without asking: not with a block among them.
        old = lobby.get_game(db, gid)
        lobby.leave(db, old, alice)  # the host leaves: cancelled, a rematch may follow
        db.commit()
        with pytest.raises(Blocked, match="one of its players blocks another"):
            lobby.rematch(db, old, alice)
        with pytest.raises(Blocked, match="has blocked you"):
            lobby.rematch(db, old, carol)
        db.rollback()

        moderation.unblock(db, bob, "carol")
        db.commit()
        assert texts(chat.since(db, gid, bob.id)) == ["hello all", "hi"]
        with pytest.raises(NotFound, match="You do not block carol"):
            moderation.unblock(db, bob, "carol")
        assert ("block", "carol") in actions(db) and ("unblock", "carol") in actions(db)


def test_mutes_reports_and_the_admins_queue(factory: sessionmaker[Session]) -> None:
    with factory() as db:
        alice, bob, carol, dave, root = people(db, "alice", "bob", "carol", "dave", "root")
        moderation.set_admin(db, None, "root", True)
        game = table(db, alice, bob, carol)
        private = table(db, alice, public=False)
        db.commit()
        gid = game.id
        lines = [
            chat.post(db, gid, who, text)
            for who, text in [
                (alice, "good luck"),
                (bob, "thanks"),
                (carol, "you idiot"),
                (alice, "hey"),
            ]
        ]
        secret = chat.post(db, private.id, alice, "just me")

        # Mute: the hub sends her no chat of this table; unmute.
        assert moderation.set_muted(db, dave, gid, True) is True
        db.commit()
        assert moderation.is_muted(db, dave.id, gid)
        assert moderation.chat_hidden(db, gid, [dave.id, bob.id]) == {dave.id: None}
        with pytest.raises(Forbidden):
            moderation.set_muted(db, dave, private.id, True)  # not hers to see
        moderation.set_muted(db, dave, gid, False)
        db.commit()
        assert not moderation.is_muted(db, dave.id, gid)

        # A line reported, and each refusal.
        made = moderation.report(db, bob, "abuse", "rude to me", message_id=lines[2].id)
        db.commit()
        assert (made.reported_id, made.game_id, made.status) == (carol.id, gid, "open")
        with pytest.raises(Conflict, match="reported this line already") as dup:
            moderation.report(db, bob, "spam", message_id=lines[2].id)
        assert dup.value.code == "already_reported"
        with pytest.raises(Invalid, match="your own line"):
            moderation.report(db, bob, "abuse", message_id=lines[1].id)
        with pytest.raises(NotFound, match="no chat line 999999"):
            moderation.report(db, bob, "abuse", message_id=999999)
        with pytest.raises(NotFound):  # a private table's line: not hers to see
            moderation.report(db, bob, "abuse", message_id=secret.id)
        with pytest.raises(Invalid, match="Choose a reason"):
            moderation.report(db, bob, "boring", message_id=lines[0].id)
        with pytest.raises(Invalid, match="say what happened"):
            moderation.report(db, bob, "other", message_id=lines[0].id)
        with pytest.raises(Invalid, match="under 500 characters"):
            moderation.report(db, bob, "abuse", "x" * 501, message_id=lines[0].id)
        with pytest.raises(Invalid, match="is not alice's"):
            moderation.report(db, bob, "abuse", username="alice", message_id=lines[2].id)
        # A player reported; a second open report of her by the same reporter is refused.
        moderation.report(db, dave, "name", username="carol")
        with pytest.raises(Conflict, match="You reported carol already"):
            moderation.report(db, dave, "spam", username="carol")
        with pytest.raises(Invalid, match="cannot report yourself"):
            moderation.report(db, dave, "spam", username="dave")
        with pytest.raises(NotFound):
            moderation.report(db, dave, "spam", username="nobody")
        db.commit()

        # The queue: oldest first, the reported line among the lines around it.
        with pytest.raises(Forbidden, match="Only an admin"):
            moderation.require_admin(bob)
        queue = moderation.queue(db)
        assert [(r["reporter"], r["reported"], r["reason"]) for r in queue] == [
            ("bob", "carol", "abuse"),
            ("dave", "carol", "name"),
        ]
        context = queue[0]["context"]
        assert [m["text"] for m in context] == ["good luck", "thanks", "you idiot", "hey"]
        assert [m["reported"] for m in context] == [False, False, True, False]
        assert queue[1]["context"] == []

        with pytest.raises(Forbidden):
            moderation.dismiss(db, bob, made.id)
        moderation.dismiss(db, root, made.id, "banter")
        db.commit()
        with pytest.raises(Conflict, match="closed already"):
            moderation.dismiss(db, root, made.id)
        with pytest.raises(NotFound):
            moderation.dismiss(db, root, 999999)
        assert [r["reporter"] for r in moderation.queue(db)] == ["dave"]
        logged = actions(db)
        for entry in [("grant", "root"), ("mute", None), ("report", "carol"), ("dismiss", "carol")]:
            assert entry in logged


def test_a_suspension_hands_the_seats_to_stand_ins_and_ends_every_session(
    factory: sessionmaker[Session],
) -> None:
    gid, users = two_person_game(factory)  # alice (seat 0) and bob (seat 1), started
    ended: list[int] = []

    class Listening:
        origin = ""

        def publish(self, game_id: int, version: int, notified: bool = False) -> None:
            pass

        def end_sockets(self, user_id: int, reason: str) -> None:
            ended.append(user_id)

    with factory() as db:
        alice, bob = db.get(User, users[0]), db.get(User, users[1])
        assert alice is not None and bob is not None
        carol, root, ops = people(db, "carol", "root", "ops")
        for admin in ("root", "ops"):
            moderation.set_admin(db, None, admin, True)
        carols = table(db, carol, bob)  # bob sits at carol's lobby table too
        token, _ = accounts.create_session(db, bob, 30)
        moderation.report(db, alice, "abuse", username="bob")
        db.commit()
        carols_id = carols.id

        for actor, name, reason, error in [
            (alice, "bob", "rude", Forbidden),  # not an admin
            (root, "root", "test", Invalid),  # herself
            (root, "ops", "test", Forbidden),  # an admin
            (root, "bob", "  ", Invalid),  # no reason
            (root, "nobody", "rude", NotFound),
        ]:
            with pytest.raises(error):
                moderation.suspend(db, actor, name, reason)
            db.rollback()

        previous = publisher.install(Listening())
        try:
            changed = moderation.suspend(db, root, "bob", "abusive chat")  # committed
        finally:
            publisher.install(previous)
        assert ended == [bob.id]
        assert set(changed) == {gid, carols_id}

    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        seat = next(s for s in game.seats if s.user_id == bob.id)
        assert seat.standin == "heuristic"
        assert (game.clocks or {})["away"][str(seat.index)]["why"] == "suspended"
        last = db.scalars(
            select(Event).where(Event.game_id == gid).order_by(Event.seq.desc())
        ).first()
        assert last is not None and last.payload["kind"] == "standin"
        assert last.payload["text"].startswith("The account of bob (")
        assert "until the account is restored" in last.payload["text"]
        lobby_game = lobby.get_game(db, carols_id)
        assert bob.id not in {s.user_id for s in lobby_game.seats}  # his lobby seat freed
        assert accounts.session_for_token(db, token) is None
        with pytest.raises(Suspended, match=r"suspended by the moderators \(abusive chat\)"):
            accounts.authenticate(db, "bob", PASSWORD, "127.0.0.1")
        with pytest.raises(accounts.LoginFailed):  # a wrong password learns nothing of it
            accounts.authenticate(db, "bob", "wrong password", "127.0.0.1")
        report = db.scalars(select(Report)).one()
        assert (report.status, report.resolution) == ("actioned", "suspended: abusive chat")
        listed = moderation.suspended_accounts(db)
        assert [(s["username"], s["reason"], s["by"]) for s in listed] == [
            ("bob", "abusive chat", "root")
        ]
        root = moderation.user_named(db, "root")
        with pytest.raises(Conflict, match="suspended already"):
            moderation.suspend(db, root, "bob", "again")
        db.rollback()

        moderation.unsuspend(db, root, "bob", "apologised")
        db.commit()
        assert accounts.authenticate(db, "bob", PASSWORD, "127.0.0.1").id == bob.id
        with pytest.raises(Conflict, match="not suspended"):
            moderation.unsuspend(db, root, "bob")
        db.rollback()
        assert ("suspend", "bob") in actions(db) and ("unsuspend", "bob") in actions(db)

    # Back: opening the game gives the seat back from its stand-in.
    with factory() as db:
        presence.arrived(db, gid, bob.id, "here")
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        assert next(s for s in game.seats if s.user_id == bob.id).standin is None


def test_admin_role_from_the_command_line_service(factory: sessionmaker[Session]) -> None:
    with factory() as db:
        (alice,) = people(db, "alice")
        accounts.update_preferences(db, alice, email="alice@example.com")
        assert moderation.set_admin(db, None, "alice@example.com", True).is_admin
        with pytest.raises(Conflict, match="an admin already"):
            moderation.set_admin(db, None, "alice", True)
        moderation.set_admin(db, None, "alice", False)
        with pytest.raises(NotFound):
            moderation.set_admin(db, None, "nobody@example.com", True)
        db.commit()
        assert not alice.is_admin
        entries = moderation.log_json(db)
        assert [(e["actor"], e["action"]) for e in entries] == [
            ("the command line", "revoke"),
            ("the command line", "grant"),
        ]
