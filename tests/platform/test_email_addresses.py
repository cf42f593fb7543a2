"""E-mail addresses are one valid address, normalised, wherever one is stored (issue 29,
"the e-mail field is not validated"): PATCH /api/me, the sign-up (API and form) and the
account form, against a real server on both databases; and no mail goes to an address
stored before the check."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.services import emails, notifications
from app.services.errors import Invalid

PASSWORD = "correct horse 1"

#: the hostile client's cases (issue 29): a header injected, a list of strangers, a script
HOSTILE = [
    "a@x.test\r\nBcc: victim@evil.test",
    "a@example.org\r\nBcc: victim@example.com",
    "victim1@evil.test, victim2@evil.test",
    "victim1@example.com, victim2@example.com",
    "victim1@example.com;victim2@example.com",
    '"><script>alert(1)</script>@x.test',
    '"><script>alert(1)</script>@example.org',
    "<script>alert(1)</script>@example.org",
    "Eve <eve@example.org>",
    "no-at-sign.example.org",
    "eve@localhost",
    "eve@[127.0.0.1]",
    "a" * 250 + "@example.org",
]


@pytest.mark.parametrize("bad", HOSTILE)
def test_the_check_refuses_anything_but_one_address(bad: str) -> None:
    with pytest.raises(Invalid) as caught:
        emails.normalise(bad)
    assert caught.value.code == "bad_email" and caught.value.extra["field"] == "email"
    assert not emails.is_one_address(bad)


def test_the_check_normalises_one_address() -> None:
    assert emails.normalise("  Livia@Example.ORG ") == "Livia@example.org"
    assert emails.normalise("marcus@xn--bcher-kva.example") == "marcus@bücher.example"
    assert emails.is_one_address("Livia@Example.ORG")


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found
    return found[1]


def test_addresses_are_checked_wherever_one_is_stored(
    live_server_any: Any, new_player: Any
) -> None:
    player = new_player(live_server_any)
    r = player.http.patch("/api/me", json={"email": "p@example.org"})
    assert r.status_code == 200, r.text
    for bad in HOSTILE:
        r = player.http.patch("/api/me", json={"email": bad})
        assert r.status_code == 422, (bad, r.text)
        body = r.json()
        assert body["field"] == "email", body
        assert body["code"] in ("bad_email", "invalid_request"), body  # too long: the schema
        assert "e-mail address" in body["detail"] or body["code"] == "invalid_request"
        assert player.http.get("/api/me").json()["user"]["email"] == "p@example.org"
    r = player.http.patch("/api/me", json={"email": " Livia@Example.ORG "})
    assert r.status_code == 200 and r.json()["user"]["email"] == "Livia@example.org"
    r = player.http.patch("/api/me", json={"email": ""})
    assert r.status_code == 200 and r.json()["user"]["email"] is None

    # The sign-up: refused, and no account is made (the name stays free).
    with httpx.Client(base_url=live_server_any.url, timeout=30) as http:
        name = f"e{uuid.uuid4().hex[:10]}"
        for bad in HOSTILE[:8]:
            body = {"username": name, "password": PASSWORD, "email": bad}
            r = http.post("/api/signup", json=body)
            assert r.status_code == 422 and r.json()["code"] == "bad_email", r.text
        r = http.post("/api/login", json={"username": name, "password": PASSWORD})
        assert r.status_code == 401
        body = {"username": name, "password": PASSWORD, "email": "Who@Example.ORG"}
        r = http.post("/api/signup", json=body)
        assert r.status_code == 200 and r.json()["user"]["email"] == "Who@example.org"

    # The forms: the sign-up page and the account page say why, and store nothing.
    with httpx.Client(base_url=live_server_any.url, timeout=30) as page:
        name = f"f{uuid.uuid4().hex[:10]}"
        form = {"username": name, "password": PASSWORD, "email": HOSTILE[4]}
        r = page.post("/signup", data={**form, "csrf_token": _csrf(page.get("/signup").text)})
        assert r.status_code == 422 and "not one valid e-mail address" in r.text
        assert "<script>" not in r.text
    account = player.http.get("/account")
    r = player.http.post("/account", data={"email": HOSTILE[5], "csrf_token": _csrf(account.text)})
    assert r.status_code == 422 and "not one valid e-mail address" in r.text
    assert "<script>alert" not in r.text
    assert player.http.get("/api/me").json()["user"]["email"] is None


def test_no_mail_goes_to_an_address_stored_before_the_check(caplog: Any) -> None:
    """A comma list stored by an older version: nothing is sent (no SMTP connection is
    even tried: the port below answers nothing), one line says why."""
    settings = Settings(smtp_host="127.0.0.1", smtp_port=9)
    notifications.send_email(settings, "v1@example.com, v2@example.com", "Hi", "text")
    assert "not one valid e-mail address" in caplog.text
