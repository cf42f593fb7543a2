"""Webhook targets (app/services/webhooks.py): the server posts only to public
addresses, whatever the player typed or the name resolves to."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from app.services import webhooks
from app.services.errors import Invalid
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


@pytest.mark.parametrize(
    ("url", "carried"),
    [
        ("http://[::127.0.0.1]/hook", "127.0.0.1"),  # IPv4-compatible loopback
        ("http://[::7f00:1]/hook", "127.0.0.1"),  # the same, spelt in hex
        ("http://[::10.0.0.1]/hook", "10.0.0.1"),
        ("http://[::ffff:0:10.0.0.1]/hook", "10.0.0.1"),  # IPv4-translated (SIIT)
        ("http://[2002:a00:1::1]/hook", "10.0.0.1"),  # 6to4 of 10.0.0.1
        ("http://[2002:7f00:1::]/hook", "127.0.0.1"),  # 6to4 of loopback
        ("http://[2002:c0a8:10a::1]/hook", "192.168.1.10"),
        ("http://[2002:a9fe:a9fe::]/latest/", "169.254.169.254"),  # 6to4 of cloud metadata
        ("http://[64:ff9b::a00:1]/hook", "10.0.0.1"),  # NAT64 of 10.0.0.1
        ("http://[64:ff9b::127.0.0.1]/hook", "127.0.0.1"),  # NAT64 of loopback
    ],
)
def test_ipv6_that_carries_a_private_ipv4_is_refused_when_saved(url: str, carried: str) -> None:
    """IPv6 literals whose embedded IPv4 address is loopback or private: Python calls
    ``::127.0.0.1``, 6to4 and NAT64 addresses global, but a host or a translator on the
    way delivers them to the IPv4 address they carry."""
    with pytest.raises(UnsafeWebhook) as caught:
        webhooks.check_saved(url)
    assert f"carries the IPv4 address {carried}: local or private" in str(caught.value)
    with pytest.raises(UnsafeWebhook):  # and before a post, whatever the name resolves to
        address = urlsplit(url).hostname or ""
        webhooks.check_target("https://hooks.example/x", resolver=lambda h, p: [address])


@pytest.mark.parametrize(
    "url",
    [
        "http://[::ffff:10.0.0.1]/hook",  # IPv4-mapped, as 10.0.0.1
        "http://[::ffff:127.0.0.1]/hook",
        "http://[64:ff9b:1::a00:1]/hook",  # NAT64's local-use prefix: a network's own
        "http://[::]/hook",
    ],
)
def test_other_embedding_ipv6_is_refused_when_saved(url: str) -> None:
    with pytest.raises(UnsafeWebhook, match="local or private"):
        webhooks.check_saved(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://[2002:5db8:d822::1]/hook",  # 6to4 of a public address
        "https://[64:ff9b::5db8:d822]/hook",  # NAT64 of a public address
        "https://[2001:4860:4860::8888]/hook",
    ],
)
def test_ipv6_that_carries_a_public_ipv4_is_accepted(url: str) -> None:
    webhooks.check_saved(url)


def test_embedded_ipv4_reads_each_form() -> None:
    from ipaddress import IPv4Address, IPv6Address

    assert webhooks.embedded_ipv4(IPv6Address("::127.0.0.1")) == IPv4Address("127.0.0.1")
    assert webhooks.embedded_ipv4(IPv6Address("::ffff:10.0.0.1")) == IPv4Address("10.0.0.1")
    assert webhooks.embedded_ipv4(IPv6Address("2002:a00:1::")) == IPv4Address("10.0.0.1")
    assert webhooks.embedded_ipv4(IPv6Address("64:ff9b::a00:1")) == IPv4Address("10.0.0.1")
    assert webhooks.embedded_ipv4(IPv6Address("2606:4700::1")) is None


def test_the_operator_may_still_allow_private_targets() -> None:
    """WEBHOOK_ALLOW_PRIVATE keeps its meaning: private and loopback targets, however
    spelt, are allowed; a URL with a line break is not, private or not."""
    for url in ("http://[::127.0.0.1]/h", "http://[2002:a00:1::]/h", "http://[64:ff9b::a00:1]/h"):
        webhooks.check_saved(url, allow_private=True)
        assert webhooks.saved_url(url, allow_private=True) == url
    with pytest.raises(Invalid):
        webhooks.saved_url("http://10.0.0.1/x\r\nX-Injected: 1", allow_private=True)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://h.example.com/x\r\nX-Injected: 1", "a line break"),
        ("https://h.example.com/x\nX-Injected: 1", "a line break"),
        ("https://h.example.com/x\rfoo", "a line break"),
        ("https://h.example.com/x y", "a space"),
        ("https://h.example.com/x\ty", "a tab"),
        ("https://h.example.com/x\x00", "a control character (U+0000)"),
        ("https://h.example.com/x\x7f", "a control character (U+007F)"),
        ("https://h.example.com/x\x1b[31m", "a control character (U+001B)"),
        ("https://h.example.com/x\u200by", "a control character (U+200B)"),  # zero width
        ("https://h.example.com/x\u202ey", "a control character (U+202E)"),  # bidi override
        ("https://h.example.com/x\u00a0y", "a blank character (U+00A0)"),
        ("https://h.exa mple.com/x", "a space"),
        ("https://h.example.com/x\u2028y", "a blank character (U+2028)"),
    ],
)
def test_a_url_with_a_control_character_or_a_space_is_not_saved(url: str, said: str) -> None:
    with pytest.raises(Invalid) as caught:
        webhooks.saved_url(url)
    assert caught.value.status == 422 and caught.value.extra == {"field": "webhook_url"}
    assert said in caught.value.message
    with pytest.raises(UnsafeWebhook):  # a row saved before the check is not posted to
        webhooks.check_target(url, resolver=lambda h, p: ["93.184.216.34"])


def test_a_pasted_urls_surrounding_blanks_are_trimmed() -> None:
    """Only inside a URL is a blank refused: a paste's trailing newline is dropped."""
    assert webhooks.saved_url("  https://hooks.example/x\n") == "https://hooks.example/x"
    assert webhooks.saved_url(" \t ") is None
