"""The development mail sink's list, /dev/mail (app/services/mailsink.py): it holds
password-reset links, so a signed-in person sees only her own mails, an operator may
open it to all (MAIL_SINK_SHOW_ALL), it does not exist without MAIL_SINK, and the
server warns at start when the sink is on and it listens beyond loopback.

The takeover of issue 40 is tried over real HTTP against a real server: ask a reset
for the victim, then read /dev/mail with no cookie, and as another person who saved
the victim's address as her own."""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx

from app.config import Settings
from app.services import mailsink
from app.web.serve import is_loopback, mail_sink_warning

TOKEN = re.compile(r"token=([\w.\-]+)")
NEW_PASSWORD = "taken over 1234"


def sink_server(start_server: Any, tmp_path: Path, **env: str) -> tuple[Any, Path]:
    sink = tmp_path / "mail"
    server = start_server(
        f"sqlite:///{tmp_path / 'sink.sqlite3'}",
        env={"MAIL_SINK": str(sink), "SMTP_HOST": "", **env},
    )
    return server, sink


def reset_token_in(sink: Path) -> str:
    """The token of the one reset mail in the sink (read from the files, not the page)."""
    mails = mailsink.read(str(sink))
    assert len(mails) == 1 and mails[0].subject == "Reset your password", mails
    found = TOKEN.search(mails[0].body)
    assert found is not None
    return found.group(1)


def test_the_takeover_through_dev_mail_fails(
    start_server: Any, new_player: Any, tmp_path: Path
) -> None:
    server, sink = sink_server(start_server, tmp_path)
    victim = new_player(server)
    assert victim.http.patch("/api/me", json={"email": "victim@example.org"}).status_code == 200
    # The attacker has an account, and saves the victim's address as hers (unverified).
    attacker = new_player(server)
    r = attacker.http.patch("/api/me", json={"email": "Victim@example.org"})
    assert r.status_code == 200, r.text
    with httpx.Client(base_url=server.url, timeout=30) as anyone:
        r = anyone.post("/api/password-reset", json={"who": victim.username})
        assert r.status_code == 202
        token = reset_token_in(sink)  # the mail went out: there is something to steal

        # No cookie: sent to log in, and nothing of the mail on the way.
        r = anyone.get("/dev/mail")
        assert r.status_code == 303 and r.headers["location"].startswith("/login")
        assert token not in r.text
        r = anyone.get("/dev/mail", follow_redirects=True)
        assert r.status_code == 200 and token not in r.text and "Reset your password" not in r.text

        # Another person, even one who saved the victim's address: none of the victim's mail.
        page = attacker.http.get("/dev/mail")
        assert page.status_code == 200
        assert token not in page.text and "Reset your password" not in page.text
        assert 'id="no-mail"' in page.text
        stolen = TOKEN.findall(page.text)
        assert stolen == []

        # Whatever the attacker tries, the reset is not confirmed, and the victim's
        # password still works.
        for guess in [*stolen, "", "1.2.3", f"{victim.user_id}.9999999999.AAAA"]:
            r = anyone.post(
                "/api/password-reset/confirm", json={"token": guess, "new_password": NEW_PASSWORD}
            )
            assert r.status_code == 422, r.text
        assert victim.login().status_code == 200

    # The victim herself reads her reset mail at /dev/mail, and only she can use it.
    mine = victim.http.get("/dev/mail")
    assert mine.status_code == 200
    assert TOKEN.findall(mine.text) == [token]
    assert "victim@example.org" in mine.text
    r = victim.http.post(
        "/api/password-reset/confirm", json={"token": token, "new_password": NEW_PASSWORD}
    )
    assert r.status_code == 200, r.text


def test_the_operator_may_show_every_mail_to_all(
    start_server: Any, new_player: Any, tmp_path: Path
) -> None:
    """MAIL_SINK_SHOW_ALL=true: the old open list, for one developer on her machine."""
    server, sink = sink_server(start_server, tmp_path, MAIL_SINK_SHOW_ALL="true")
    victim = new_player(server)
    assert victim.http.patch("/api/me", json={"email": "victim@example.org"}).status_code == 200
    assert httpx.post(f"{server.url}/api/password-reset", json={"who": victim.username})
    token = reset_token_in(sink)
    r = httpx.get(f"{server.url}/dev/mail")
    assert r.status_code == 200 and token in r.text and "MAIL_SINK_SHOW_ALL" in r.text


def test_no_dev_mail_without_the_sink(live_server: Any, new_player: Any) -> None:
    """Without MAIL_SINK the page does not exist, for anyone."""
    assert httpx.get(f"{live_server.url}/dev/mail").status_code == 404
    assert new_player(live_server).http.get("/dev/mail").status_code == 404


def test_the_server_warns_when_the_sink_is_reachable_from_elsewhere(
    start_server: Any, tmp_path: Path
) -> None:
    sink = str(tmp_path / "mail")
    wide = start_server(
        f"sqlite:///{tmp_path / 'wide.sqlite3'}",
        env={"MAIL_SINK": sink, "SMTP_HOST": ""},
        args=["--host", "0.0.0.0"],
    )
    assert "MAIL_SINK is on" in wide.log() and "listens on 0.0.0.0" in wide.log()
    local = start_server(
        f"sqlite:///{tmp_path / 'local.sqlite3'}", env={"MAIL_SINK": sink, "SMTP_HOST": ""}
    )
    assert "MAIL_SINK is on" not in local.log()


def test_which_hosts_are_loopback_and_when_to_warn() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST."):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "", "192.168.1.5", "example.org", "::ffff:127.0.0.1x"):
        assert not is_loopback(host), host
    on = Settings(mail_sink="data/mail", smtp_host=None)
    assert mail_sink_warning(on, "127.0.0.1") is None
    said = mail_sink_warning(on, "0.0.0.0")
    assert said is not None and "each signed-in person her own mails" in said
    every = Settings(mail_sink="data/mail", smtp_host=None, mail_sink_show_all=True)
    assert "to anyone" in (mail_sink_warning(every, "0.0.0.0") or "")
    assert mail_sink_warning(Settings(mail_sink=None, smtp_host=None), "0.0.0.0") is None
    assert mail_sink_warning(Settings(mail_sink="x", smtp_host="smtp.example"), "::") is None


def mail(to: str) -> EmailMessage:
    message = EmailMessage()
    message["To"] = to
    message["Subject"] = f"for {to}"
    message.set_content("hello")
    return message


def test_a_person_reads_only_the_mails_sent_for_her_account(tmp_path: Path) -> None:
    """Her account's id and her address, both: a mail to her address sent for another
    account that saved it too is not hers, nor one with no account (older mails)."""
    folder = str(tmp_path / "mail")
    mailsink.deliver(folder, mail("ann@example.org"), account=1)
    mailsink.deliver(folder, mail("ann@example.org"), account=2)  # bob saved ann's address
    mailsink.deliver(folder, mail("bob@example.org"), account=2)
    mailsink.deliver(folder, mail("ann@example.org"))  # no account
    ann = mailsink.Recipient(1, "ANN@example.org")
    assert [m.to for m in mailsink.read(folder, recipient=ann)] == ["ann@example.org"]
    bob = mailsink.Recipient(2, "bob@example.org")
    assert [m.to for m in mailsink.read(folder, recipient=bob)] == ["bob@example.org"]
    assert len(mailsink.read(folder)) == 4
    # Her own mails are found however many others' came after them.
    for _ in range(5):
        mailsink.deliver(folder, mail("bob@example.org"), account=2)
    assert len(mailsink.read(folder, limit=3, recipient=ann)) == 1
    assert len(mailsink.read(folder, limit=3, recipient=bob)) == 3
