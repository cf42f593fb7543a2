"""Every place a URL is stored, over real HTTP against a real server: a URL with a
control character or a space inside, or an IPv6 literal that carries a private IPv4
address, is answered 422 with the reason, and the URL saved before stays.

The places (both through ``webhooks.saved_url``): a person's own webhook
(``PATCH /api/me`` and the ``/account`` form) and a table's chat-channel webhook (the
game's Notices form)."""

from __future__ import annotations

from typing import Any

import pytest

INJECTED = "https://h.example.com/x\r\nX-Injected: 1"
SAVED = "https://hooks.example.com/saved"
BAD = [
    (INJECTED, "line break"),
    ("https://h.example.com/x\tX", "tab"),
    ("https://h.example.com/a b", "space"),
    ("https://h.example.com/x\x00", "control character"),
    ("http://[::127.0.0.1]/hook", "127.0.0.1"),
    ("http://[2002:a00:1::]/hook", "10.0.0.1"),
]


@pytest.mark.parametrize(("url", "said"), BAD)
def test_patch_me_refuses_the_url_and_keeps_the_saved_one(
    live_server: Any, new_player: Any, url: str, said: str
) -> None:
    player = new_player(live_server)
    assert player.http.patch("/api/me", json={"webhook_url": SAVED}).status_code == 200
    r = player.http.patch("/api/me", json={"webhook_url": url, "email": "kept@example.org"})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "webhook_url" and said in r.json()["detail"]
    user = player.http.get("/api/me").json()["user"]
    assert user["webhook_url"] == SAVED
    assert user["email"] is None  # the request is refused whole: nothing half-saved


def test_the_account_form_refuses_a_url_with_a_line_break(
    live_server: Any, new_player: Any
) -> None:
    player = new_player(live_server)
    assert player.http.patch("/api/me", json={"webhook_url": SAVED}).status_code == 200
    r = player.http.post(
        "/account",
        data={"email": "", "webhook_url": INJECTED, "csrf_token": player.csrf},
    )
    assert r.status_code == 422
    assert "may not contain a line break" in r.text
    assert player.http.get("/api/me").json()["user"]["webhook_url"] == SAVED


@pytest.mark.parametrize(("url", "said"), BAD)
def test_the_tables_notices_form_refuses_the_url_and_keeps_the_saved_one(
    live_server: Any, new_player: Any, url: str, said: str
) -> None:
    host = new_player(live_server)
    gid = host.create_game(scenario="teaching")["id"]
    form = {"webhook_url": SAVED, "csrf_token": host.csrf}
    r = host.http.post(f"/games/{gid}/notices", data=form)
    assert r.status_code == 303, r.text
    r = host.http.post(f"/games/{gid}/notices", data={**form, "webhook_url": url})
    assert r.status_code == 422, r.text[:300]
    assert 'id="form-error"' in r.text and said in r.text
    page = host.http.get(f"/games/{gid}/notices")
    assert f'value="{SAVED}"' in page.text
    assert "X-Injected" not in page.text.split('name="webhook_url"', 1)[1][:200]
