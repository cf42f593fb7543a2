"""E-mail addresses: exactly one, valid, normalised, before one is stored or mailed to.

An address goes into a mail header (``To:``); a list (``a@x.org, b@y.org``) there mails
every stranger in it, and a line break is a header of its own (``Bcc: …``). So an
address is checked by a maintained parser (``email-validator``: RFC 5321/5322 syntax, an
internationalised domain's IDNA form) and stored in its normalised form: the domain in
lower case, Unicode in NFC. No DNS lookup is made (that would make a sign-up wait on a
remote resolver); a display name, angle brackets, quoted local parts, IP-address
domains and special-use domains (``.test``, ``.local``, ``localhost``) are refused.
"""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email

from app.services.errors import Invalid

#: RFC 5321's limit on a forward path (the address a server accepts)
MAX_EMAIL = 254


def normalise(text: str, field: str = "email") -> str:
    """The normalised form of the one address in `text`, or Invalid (422) saying why."""
    text = text.strip()
    if len(text) > MAX_EMAIL:
        raise Invalid(
            f"An e-mail address has at most {MAX_EMAIL} characters.",
            code="bad_email",
            field=field,
        )
    try:
        checked = validate_email(text, check_deliverability=False)
    except EmailNotValidError as exc:
        raise Invalid(
            f"That is not one valid e-mail address: {exc}",
            code="bad_email",
            field=field,
        ) from exc
    return str(checked.normalized)


def is_one_address(text: str) -> bool:
    """Whether `text` is one valid address (a row written before addresses were
    checked may not be: no mail goes to it)."""
    try:
        normalise(text)
    except Invalid:
        return False
    return True
