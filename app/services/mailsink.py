"""The development mail sink: with no SMTP server configured (SMTP_HOST unset) and
MAIL_SINK naming a directory, every e-mail the server would send is written there as
one ``.eml`` file instead, and ``/dev/mail`` lists them, newest first. `make run` turns
it on (``data/mail``) so turn notices, stand-in notices and password-reset links can be
seen and tested without a mail server.

It is a development tool: on a public site anyone could read the list (reset links
included), so leave MAIL_SINK unset there and configure SMTP_HOST.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from app.store.types import utcnow

#: the list shows at most this many, newest first
SHOWN = 100


@dataclass(frozen=True)
class SunkMail:
    name: str
    to: str
    subject: str
    sent_at: str
    body: str


def deliver(directory: str, message: EmailMessage, now: datetime | None = None) -> Path:
    """Write `message` into the sink; the file appears whole (written, then renamed)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = (now or utcnow()).strftime("%Y%m%dT%H%M%S%f")
    final = folder / f"{stamp}-{secrets.token_hex(4)}.eml"
    partial = final.with_suffix(".part")
    partial.write_bytes(message.as_bytes(policy=policy.SMTP))
    os.replace(partial, final)
    return final


def read(directory: str, limit: int = SHOWN) -> list[SunkMail]:
    """The mails in the sink, newest first (file names start with the time)."""
    folder = Path(directory)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.eml"), reverse=True)[:limit]:
        message = message_from_bytes(path.read_bytes(), policy=policy.default)
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
