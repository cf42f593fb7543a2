"""The development mail sink: with no SMTP server configured (SMTP_HOST unset) and
MAIL_SINK naming a directory, every e-mail the server would send is written there as
one ``.eml`` file instead, and ``/dev/mail`` lists them, newest first. `make run` turns
it on (``data/mail``) so turn notices, stand-in notices and password-reset links can be
seen and tested without a mail server.

The list holds password-reset links, so it is not open: a signed-in person sees only
the mails sent to her account (`Recipient`): each sunk mail carries the id of the
account it was sent for (`ACCOUNT_HEADER`, written only here, never into a mail sent by
SMTP), and it must also be addressed to her account's e-mail address. The address alone
would not do: nothing stops a second account from saving the same address (addresses
are not verified), and it would then read the first one's reset link. An operator who
wants the whole list (one developer testing password resets) sets MAIL_SINK_SHOW_ALL;
either way it is a development tool: on a public site leave MAIL_SINK unset and set
SMTP_HOST (the server warns at start when the sink is on and it listens beyond
loopback, app/web/serve.py).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import datetime
from email import message_from_bytes, policy
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.utils import getaddresses
from pathlib import Path

from app.store.types import utcnow

#: the list shows at most this many, newest first
SHOWN = 100
#: the account a sunk mail was sent for (the sink's own header, never sent by SMTP)
ACCOUNT_HEADER = "X-Imperial-Glory-Account"


@dataclass(frozen=True)
class Recipient:
    """Whose mails a person may read: her account's id and its e-mail address."""

    account: int
    email: str


@dataclass(frozen=True)
class SunkMail:
    name: str
    to: str
    subject: str
    sent_at: str
    body: str


def deliver(
    directory: str,
    message: EmailMessage,
    now: datetime | None = None,
    account: int | None = None,
) -> Path:
    """Write `message` into the sink, tagged with the `account` it was sent for (None:
    nobody's, shown only with MAIL_SINK_SHOW_ALL); the file appears whole (written,
    then renamed)."""
    if account is not None:
        del message[ACCOUNT_HEADER]
        message[ACCOUNT_HEADER] = str(account)
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = (now or utcnow()).strftime("%Y%m%dT%H%M%S%f")
    final = folder / f"{stamp}-{secrets.token_hex(4)}.eml"
    partial = final.with_suffix(".part")
    partial.write_bytes(message.as_bytes(policy=policy.SMTP))
    os.replace(partial, final)
    return final


def is_for(headers: Message, recipient: Recipient) -> bool:
    """Whether a mail (its headers) was sent for `recipient`'s account and to her
    address: both, so a mail to an address two accounts saved stays its owner's."""
    if str(headers[ACCOUNT_HEADER] or "").strip() != str(recipient.account):
        return False
    addresses = {address.lower() for _, address in getaddresses([str(headers["To"] or "")])}
    return addresses == {recipient.email.lower()}


def read(directory: str, limit: int = SHOWN, recipient: Recipient | None = None) -> list[SunkMail]:
    """The mails in the sink, newest first (file names start with the time): all of
    them, or (`recipient`) only hers, up to `limit`."""
    folder = Path(directory)
    if not folder.is_dir():
        return []
    found: list[SunkMail] = []
    headers_only = BytesHeaderParser(policy=policy.default)
    for path in sorted(folder.glob("*.eml"), reverse=True):
        if len(found) >= limit:
            break
        raw = path.read_bytes()
        if recipient is not None and not is_for(headers_only.parsebytes(raw), recipient):
            continue
        message = message_from_bytes(raw, policy=policy.default)
        body = message.get_body(preferencelist=("plain",))
        found.append(
            SunkMail(
                name=path.name,
                to=str(message["To"] or ""),
                subject=str(message["Subject"] or ""),
                sent_at=str(message["Date"] or ""),
                body=body.get_content() if body is not None else "",
            )
        )
    return found
