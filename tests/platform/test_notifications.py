"""Notices for absent players, through a real SMTP server (aiosmtpd) and a real
HTTP webhook receiver: after a minute's wait, once per decision and hour; digests."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.services import accounts, lobby, notifications, starting
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Game, Notification


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Mailbox:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Mailbox, int]]:
    box, port = Mailbox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    yield box, port
    controller.stop()


@pytest.fixture
def webhook() -> Iterator[tuple[list[dict[str, Any]], str]]:
    received: list[dict[str, Any]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers["Content-Length"])
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield received, f"http://127.0.0.1:{server.server_port}/hook"
    server.shutdown()


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def settings_for(smtp_port: int, allow_private: bool = True) -> Settings:
    """The receivers here listen on 127.0.0.1, a private target the server refuses unless
    the operator allows it (WEBHOOK_ALLOW_PRIVATE)."""
    return Settings(
        smtp_host="127.0.0.1",
        smtp_port=smtp_port,
        base_url="http://table.example",
        webhook_allow_private=allow_private,
    )


def start_game(factory: sessionmaker[Session], hook_url: str) -> int:
    with factory() as db:
        alice = accounts.signup(db, "alice", "correct horse 1", "alice@example.org")
        bob = accounts.signup(db, "bob", "correct horse 1", "bob@example.org")
        for user in (alice, bob):
            accounts.update_preferences(db, user, webhook_url=hook_url, allow_private_webhooks=True)
        game = lobby.create_game(
            db, alice, "teaching", [lobby.SeatSpec("human"), lobby.SeatSpec("human")], pace="24h"
        )
        lobby.join(db, game, bob)
        starting.start(db, game, alice)
        db.commit()
        return game.id


def test_turn_notice_by_email_and_webhook_once(
    factory: sessionmaker[Session], smtp: tuple[Mailbox, int], webhook: Any
) -> None:
    box, port = smtp
    hooks, hook_url = webhook
    settings = settings_for(port)
    gid = start_game(factory, hook_url)
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        (seat_key, deadline), *_ = game.deadlines.items()
        waiting = next(s for s in game.seats if s.index == int(seat_key))
        started = notifications.prompt_started(game, deadline)
        assert waiting.user is not None
        name, email = waiting.user.username, waiting.user.email
    # Within the first minute nobody is disturbed.
    assert notifications.run_once(factory, settings, started + timedelta(seconds=30)) == 0
    assert box.messages == [] and hooks == []
    assert notifications.run_once(factory, settings, started + timedelta(minutes=2)) == 2
    assert len(box.messages) == 1 and len(hooks) == 1
    mail = box.messages[0]
    assert mail["To"] == email and f"#{gid}" in mail["Subject"]
    assert f"http://table.example/games/{gid}" in mail.get_payload()
    # what happens when the time runs out, as the clocks do it (no "default applies")
    body = mail.get_payload(decode=True).decode()
    assert "your standing orders and a stand-in bot play for you" in body
    assert hooks[0]["game_id"] == gid and name in hooks[0]["text"]
    # The same decision is not announced twice.
    assert notifications.run_once(factory, settings, started + timedelta(minutes=90)) == 0
    with factory() as db:
        rows = list(db.scalars(select(Notification).where(Notification.game_id == gid)))
        assert sorted(r.channel for r in rows) == ["email", "webhook"]
        assert {r.status for r in rows} == {"sent"}


def test_opted_out_and_failures(factory: sessionmaker[Session], webhook: Any) -> None:
    hooks, hook_url = webhook
    dead_smtp = settings_for(free_port())  # nothing listens there
    gid = start_game(factory, hook_url)
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        deadline = next(iter(game.deadlines.values()))
        started = notifications.prompt_started(game, deadline)
        for seat in game.seats:
            assert seat.user is not None
            if str(seat.index) not in game.deadlines:
                continue
            accounts.update_preferences(db, seat.user, notify_turns=False)
        db.commit()
    assert notifications.run_once(factory, dead_smtp, started + timedelta(minutes=5)) == 0
    with factory() as db:
        for seat in db.get(Game, gid).seats:  # type: ignore[union-attr]
            assert seat.user is not None
            accounts.update_preferences(db, seat.user, notify_turns=True)
        db.commit()
    # The mail server is down: the webhook still goes out, the failure is recorded.
    assert notifications.run_once(factory, dead_smtp, started + timedelta(minutes=6)) == 1
    assert len(hooks) == 1
    with factory() as db:
        statuses = {
            r.channel: r.status
            for r in db.scalars(select(Notification).where(Notification.game_id == gid))
        }
        assert statuses == {"email": "failed", "webhook": "sent"}


def test_daily_digest(factory: sessionmaker[Session], smtp: tuple[Mailbox, int]) -> None:
    box, port = smtp
    settings = settings_for(port)
    gid = start_game(factory, "")
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        seat = next(s for s in game.seats if str(s.index) in game.deadlines)
        assert seat.user is not None
        seat.user.notify_turns = False  # only the digest
        accounts.update_preferences(db, seat.user, daily_digest=True)
        db.commit()
        now = notifications.utcnow()
    assert notifications.run_once(factory, settings, now) == 1
    assert "1 game(s) are waiting" in box.messages[0].get_payload()
    assert notifications.run_once(factory, settings, now + timedelta(hours=2)) == 0
    assert notifications.run_once(factory, settings, now + timedelta(hours=25)) == 1
    assert len(box.messages) == 2


def test_preferences_are_validated(factory: sessionmaker[Session]) -> None:
    from app.services.errors import Invalid

    with factory() as db:
        user = accounts.signup(db, "carol", "correct horse 1")
        with pytest.raises(Invalid) as caught:
            accounts.update_preferences(db, user, webhook_url="file:///etc/passwd")
        assert caught.value.extra["field"] == "webhook_url"
        with pytest.raises(Invalid):
            accounts.update_preferences(db, user, email="not-an-address")
        accounts.update_preferences(db, user, email="", webhook_url="https://hooks.example/x")
        assert user.email is None and user.webhook_url == "https://hooks.example/x"


def test_a_webhook_to_a_private_address_is_never_posted(
    factory: sessionmaker[Session], webhook: Any
) -> None:
    """Saved while the operator allowed private targets, then disallowed: the notice is
    recorded as failed with the reason, and the receiver on 127.0.0.1 gets nothing."""
    hooks, hook_url = webhook
    settings = settings_for(free_port(), allow_private=False)
    settings.smtp_host = None  # webhooks only
    gid = start_game(factory, hook_url)
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        started = notifications.prompt_started(game, next(iter(game.deadlines.values())))
    assert notifications.run_once(factory, settings, started + timedelta(minutes=2)) == 0
    assert hooks == []
    with factory() as db:
        rows = list(db.scalars(select(Notification).where(Notification.game_id == gid)))
        assert [(r.channel, r.status) for r in rows] == [("webhook", "failed")]
        assert "public address" in (rows[0].error or "")


# --------------------------------------------------------------------------- a table's own hook


def test_the_tables_hook_names_whose_move_it_is(
    factory: sessionmaker[Session], smtp: tuple[Mailbox, int], webhook: Any
) -> None:
    """The game's chat-channel hook hears "<Power> (<name>) to move, N h left" with the
    game's link, as both Discord's `content` and Slack's `text`; once per decision,
    whatever the person's own settings."""
    box, port = smtp
    hooks, hook_url = webhook
    settings = settings_for(port)
    gid = start_game(factory, "")
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        notifications.set_table_hook(db, game, game.host_id, hook_url, allow_private=True)
        (seat_key, deadline), *_ = game.deadlines.items()
        waiting = next(s for s in game.seats if s.index == int(seat_key))
        assert waiting.user is not None
        waiting.user.notify_turns = False  # her own notices are off: the table still hears
        power = lobby.power_name_or_none(waiting)
        name = waiting.user.username
        started = notifications.prompt_started(game, deadline)
        db.commit()
    assert notifications.run_once(factory, settings, started + timedelta(seconds=30)) == 0
    assert notifications.run_once(factory, settings, started + timedelta(minutes=2)) == 1
    assert box.messages == [] and len(hooks) == 1
    body = hooks[0]
    assert body["content"] == body["text"]
    assert f"{power} ({name}) to move, 23 h left" in body["text"]
    assert body["text"].endswith(f"http://table.example/games/{gid}")
    assert body["game_id"] == gid
    assert notifications.run_once(factory, settings, started + timedelta(minutes=90)) == 0
    with factory() as db:
        kinds = [
            (r.kind, r.channel, r.status)
            for r in db.scalars(select(Notification).where(Notification.game_id == gid))
        ]
    assert kinds == [("table", "webhook", "sent")]


def test_only_a_seated_person_sets_the_tables_hook(factory: sessionmaker[Session]) -> None:
    from app.services.errors import Invalid

    gid = start_game(factory, "")
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        stranger = accounts.signup(db, "mallory", "correct horse 1")
        with pytest.raises(Invalid, match="seated"):
            notifications.set_table_hook(db, game, stranger.id, "https://hooks.example/x", False)
        with pytest.raises(Invalid, match="public address"):
            notifications.set_table_hook(db, game, game.host_id, "http://127.0.0.1:9/x", False)
        with pytest.raises(Invalid, match="http"):
            notifications.set_table_hook(db, game, game.host_id, "ftp://hooks.example/x", False)
        notifications.set_table_hook(db, game, game.host_id, " https://hooks.example/x ", False)
        assert game.webhook_url == "https://hooks.example/x"
        notifications.set_table_hook(db, game, game.host_id, "", False)
        assert game.webhook_url is None
        with pytest.raises(Invalid, match="no webhook"):
            notifications.table_test(game, "alice", settings_for(25))


def test_the_channel_test_names_the_testers_own_power_and_pace(
    factory: sessionmaker[Session],
) -> None:
    """The test post quoted "Parthia (alice) to move, 23 h left" whatever the table."""
    gid = start_game(factory, "")
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        seat = next(s for s in game.seats if s.user is not None and s.user.username == "alice")
        power = lobby.power_name_or_none(seat)
        assert power and notifications.example_line(game, "alice") == (
            f"{power} (alice) to move, 24 h left"
        )
        game.pace = "live"
        assert notifications.example_line(game, "alice").endswith("to move, 10 min left")
        game.pace = "none"
        assert notifications.example_line(game, "alice").endswith("to move, no clock")


def test_time_left_reads_plainly() -> None:
    assert notifications.time_left(timedelta(hours=23, minutes=59)) == "23 h left"
    assert notifications.time_left(timedelta(minutes=119)) == "119 min left"
    assert notifications.time_left(timedelta(minutes=4, seconds=59)) == "4 min left"
    assert notifications.time_left(timedelta(seconds=20)) == "less than a minute left"


# --------------------------------------------------------------------------- stand-ins, the sink


def test_a_standin_is_announced_by_mail_into_the_sink(
    factory: sessionmaker[Session], tmp_path: Any
) -> None:
    """With no SMTP server and a sink directory, mail lands in the sink; a stand-in taking
    an absent person's seat queues "you are away" in the same transaction, sent once."""
    from app.services import gamelog, mailsink, standins

    sink = str(tmp_path / "mail")
    settings = Settings(smtp_host=None, mail_sink=sink, base_url="http://table.example")
    assert settings.mail_sink_active and settings.can_mail
    gid = start_game(factory, "")
    with factory() as db:
        game = gamelog.lock_game(db, gid)
        seat = next(s for s in game.seats if str(s.index) in game.deadlines)
        assert seat.user is not None
        email, power = seat.user.email, lobby.power_name_or_none(seat)
        started = notifications.prompt_started(game, game.deadlines[str(seat.index)])
        standins.announce_standin(db, game, seat, "time")
        db.commit()
    # Before TURN_DELAY no turn notice is owed: only the queued stand-in notice goes out.
    assert notifications.run_once(factory, settings, started + timedelta(seconds=5)) == 1
    mails = mailsink.read(sink)
    assert len(mails) == 1 and mails[0].to == email
    assert mails[0].subject.startswith(f"Imperial Glory: you are away, a bot plays {power} for")
    assert mails[0].subject.endswith(f" #{gid}")
    assert f"http://table.example/games/{gid}" in mails[0].body
    assert "Take your seat back" in mails[0].body
    assert notifications.run_once(factory, settings, started + timedelta(seconds=10)) == 0
    assert len(mailsink.read(sink)) == 1
    # Someone who turned these notices off hears nothing.
    with factory() as db:
        game = gamelog.lock_game(db, gid)
        seat = next(s for s in game.seats if str(s.index) in game.deadlines)
        assert seat.user is not None
        accounts.update_preferences(db, seat.user, notify_standin=False)
        standins.announce_standin(db, game, seat, "time")
        db.commit()
    assert notifications.run_once(factory, settings, started + timedelta(seconds=15)) == 0
    assert len(mailsink.read(sink)) == 1


def test_no_mail_is_sent_anywhere_without_smtp_or_sink() -> None:
    settings = Settings(smtp_host=None, mail_sink=None)
    assert not settings.can_mail
    with pytest.raises(RuntimeError, match="SMTP"):
        notifications.send_email(settings, "a@example.org", "s", "b")
    # An SMTP server, when set, wins over the sink.
    assert not Settings(smtp_host="mail.example", mail_sink="x").mail_sink_active


def test_only_games_owed_a_notice_are_locked_and_looked_at(
    factory: sessionmaker[Session], smtp: tuple[Mailbox, int]
) -> None:
    """The notice loop reads the running games' clocks without locks and claims only
    those where a notice may be owed: not a decision younger than a minute, nor one whose
    person has already heard of it (the lock and load of every running game at every
    pass cost a tenth of a busy process's time, and each lock held a move up)."""
    _box, port = smtp
    settings = settings_for(port)
    gid = start_game(factory, "")
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        (seat_key, deadline), *_ = game.deadlines.items()
        started = notifications.prompt_started(game, deadline)
        assert notifications.candidate_games(db, started + timedelta(seconds=30)) == []
        assert notifications.candidate_games(db, started + timedelta(minutes=2)) == [gid]
    assert notifications.run_once(factory, settings, started + timedelta(minutes=2)) == 1
    with factory() as db:
        # told: no longer a candidate, for this decision or within the hour
        assert notifications.candidate_games(db, started + timedelta(minutes=3)) == []
        assert notifications.candidate_games(db, started + timedelta(minutes=200)) == []
