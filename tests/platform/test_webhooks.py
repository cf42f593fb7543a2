"""Webhook targets (app/services/webhooks.py): the server posts only to public
addresses, whatever the player typed or the name resolves to."""

from __future__ import annotations

import pytest

from app.services import webhooks
from app.services.webhooks import UnsafeWebhook


@pytest.mark.parametrize(
    "url",
    [
        "ftp://hooks.example/x",
        "https://user:secret@hooks.example/x",
        "http://127.0.0.1:8000/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://172.16.5.5/hook",
        "http://169.254.169.254/latest/meta-data/",  # cloud metadata
        "http://100.64.0.1/",  # shared address space
        "http://0.0.0.0/",
        "http://[::1]/hook",
        "http://[fe80::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",  # IPv4-mapped loopback
        "http://224.0.0.1/",
        "http://localhost:9000/hook",
        "http://LOCALHOST./hook",
        "http://printer.local/",
        "http://db.internal/",
        "http://hooks.example:notaport/",
        "http:///nohost",
    ],
)
def test_refused_when_saved(url: str) -> None:
    with pytest.raises(UnsafeWebhook) as caught:
        webhooks.check_saved(url)
    assert str(caught.value)


def test_the_refusal_names_the_address_once() -> None:
    """An address typed as it is is not said twice ("127.0.0.1 is 127.0.0.1"); a name
    is said with the address it resolves to."""
    with pytest.raises(UnsafeWebhook) as caught:
        webhooks.check_saved("http://127.0.0.1:9/hook")
    assert str(caught.value) == (
        "A webhook must point to a public address; 127.0.0.1, which is local or private."
    )
    with pytest.raises(UnsafeWebhook) as caught:
        webhooks.check_target("http://hooks.example/x", resolver=lambda h, p: ["10.0.0.7"])
    assert "hooks.example is 10.0.0.7, which is local or private" in str(caught.value)


@pytest.mark.parametrize(
    "url", ["https://hooks.example/x", "http://93.184.216.34/hook", "https://[2606:4700::1]/h"]
)
def test_public_targets_are_accepted_when_saved(url: str) -> None:
    webhooks.check_saved(url)


def test_private_targets_when_the_operator_allows_them() -> None:
    webhooks.check_saved("http://127.0.0.1:8000/hook", allow_private=True)
    webhooks.check_target("http://localhost/hook", allow_private=True, resolver=_boom)


def _boom(host: str, port: int) -> list[str]:
    raise AssertionError("no lookup when private targets are allowed")


def test_every_resolved_address_must_be_public() -> None:
    """A public-looking name that resolves (even in part) to a private address is refused
    before the post; one that does not resolve is refused too."""

    def answers(*addresses: str) -> webhooks.Resolver:
        return lambda host, port: list(addresses)

    webhooks.check_target("https://hooks.example/x", resolver=answers("93.184.216.34"))
    for bad in (("10.0.0.7",), ("93.184.216.34", "127.0.0.1"), ("::1",), ()):
        with pytest.raises(UnsafeWebhook):
            webhooks.check_target("https://hooks.example/x", resolver=answers(*bad))

    def unknown(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    with pytest.raises(UnsafeWebhook, match="does not resolve"):
        webhooks.check_target("https://hooks.example/x", resolver=unknown)


def test_the_resolver_passes_the_default_port() -> None:
    seen: list[tuple[str, int]] = []

    def record(host: str, port: int) -> list[str]:
        seen.append((host, port))
        return ["93.184.216.34"]

    webhooks.check_target("https://hooks.example/x", resolver=record)
    webhooks.check_target("http://hooks.example/x", resolver=record)
    webhooks.check_target("http://hooks.example:8080/x", resolver=record)
    assert seen == [("hooks.example", 443), ("hooks.example", 80), ("hooks.example", 8080)]


def test_localhost_really_resolves_to_a_refused_address() -> None:
    """The real resolver, on a name that is in /etc/hosts everywhere."""
    addresses = webhooks.resolve("localhost", 80)
    assert addresses
    with pytest.raises(UnsafeWebhook):
        for address in addresses:
            webhooks._refuse_address(address, "localhost")
