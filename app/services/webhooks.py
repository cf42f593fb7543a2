"""Where a webhook may point: the server posts to a URL a player typed, so it must not
become a way to reach the operator's own network (server-side request forgery).

A target is refused when it is not http(s), carries credentials, or names (or resolves
to) an address that is not globally routable: loopback, private, link-local (cloud
metadata lives at 169.254.169.254), shared, reserved or multicast; an IPv6 address that
carries an IPv4 one (IPv4-mapped ``::ffff:a.b.c.d``, IPv4-compatible ``::a.b.c.d``,
IPv4-translated ``::ffff:0:a.b.c.d``, 6to4 ``2002::/16``, NAT64 ``64:ff9b::/96``) is
judged by that IPv4 address too, since a host or a translator on the way delivers it
there; the NAT64 local-use prefix ``64:ff9b:1::/48`` is the operator's own, refused.
A URL with a space or a control character in it (``\r\n`` would start a header of its
own, and http clients drop some silently) is refused as typed: it is not saved. The URL is checked
when it is saved (literal addresses and local names only: DNS may change) and again
before every post (every address the name resolves to). Redirects are never followed.
A table of friends on one LAN can allow private targets with `WEBHOOK_ALLOW_PRIVATE`.

Left open: a name whose DNS answer changes between the check and the post (rebinding)
could still reach a private address; closing that needs a resolver pinned inside the
HTTP client.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import unicodedata
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from app.services.errors import Invalid

TIMEOUT_S = 5.0
LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")
#: NAT64's well-known prefix (RFC 6052): the last 32 bits are the IPv4 address reached
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
#: NAT64's local-use prefix (RFC 8215): a network's own translator, never public
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
#: IPv4-translated addresses (RFC 2765, SIIT): ::ffff:0:a.b.c.d
TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
#: IPv4-compatible addresses (deprecated, RFC 4291): ::a.b.c.d
COMPATIBLE = ipaddress.IPv6Network("::/96")

Resolver = Callable[[str, int], list[str]]


class UnsafeWebhook(ValueError):
    """The URL may not be posted to; the message says why, for the player."""


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (IPv4 and IPv6)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UnsafeWebhook("A webhook is an http:// or https:// URL.")
    if parts.username is not None or parts.password is not None:
        raise UnsafeWebhook("A webhook URL may not carry a user name or password.")
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:  # a port that is not a number, or out of range
        raise UnsafeWebhook("That webhook URL has a bad port.") from exc
    if not host:
        raise UnsafeWebhook("That webhook URL names no host.")
    return host, port or (443 if parts.scheme == "https" else 80)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries and is delivered to (mapped, compatible,
    translated, 6to4, NAT64), or None."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in NAT64 or ip in TRANSLATED or ip in COMPATIBLE:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not ip.is_multicast


def _same_address(host: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `host` is `ip` typed as it is (in any spelling), so it is named once."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0]) == ip
    except ValueError:
        return False


def _refuse_address(address: str, host: str) -> None:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone
    inner = None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in NAT64_LOCAL:  # a network's own translator: whatever it carries
            raise UnsafeWebhook(
                f"A webhook must point to a public address; {ip} is in NAT64's local-use "
                f"prefix {NAT64_LOCAL}, which is local or private."
            )
        inner = embedded_ipv4(ip)
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # ::ffff:a.b.c.d is a.b.c.d: judged, and named, as that
    # named as the person typed it, or with the address a name resolved to
    named = host.strip("[]") if _same_address(host, ip) else f"{host} is {ip}"
    if not _is_public(ip):
        raise UnsafeWebhook(
            f"A webhook must point to a public address; {named}, which is local or private."
        )
    if inner is not None and not _is_public(inner):
        raise UnsafeWebhook(
            f"A webhook must point to a public address; {named}, which carries the IPv4 "
            f"address {inner}: local or private."
        )


def _refuse_characters(url: str) -> None:
    """Refuse a URL with a space or a control character in it: a line break would start
    a header of its own, and http clients drop tabs and line breaks silently, so what
    is posted to would not be what was saved."""
    for char in url:
        if char in "\r\n":
            bad = "a line break"
        elif char == "\t":
            bad = "a tab"
        elif char.isspace():
            bad = "a space" if char == " " else f"a blank character (U+{ord(char):04X})"
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            bad = f"a control character (U+{ord(char):04X})"
        else:
            continue
        raise UnsafeWebhook(
            f"A webhook URL may not contain {bad}: copy it again from the channel's "
            f"settings (a space inside a URL is written %20)."
        )


def saved_url(url: str, allow_private: bool = False) -> str | None:
    """A webhook URL as a form or the API gave it, checked for saving: stripped (a
    paste's surrounding blanks), at most 500 characters, no space or control character
    inside, http(s) and not private (`check_saved`); "" clears it (None). Invalid
    (422, field ``webhook_url``) with the reason otherwise, and nothing is saved."""
    url = url.strip()
    if not url:
        return None
    try:
        _refuse_characters(url)
        if not re.match(r"^https?://[^/]+", url):
            raise UnsafeWebhook("A webhook is an http:// or https:// URL.")
        if len(url) > 500:
            raise UnsafeWebhook("That URL is too long.")
        check_saved(url, allow_private)
    except UnsafeWebhook as exc:
        raise Invalid(str(exc), field="webhook_url") from exc
    return url


def check_saved(url: str, allow_private: bool = False) -> None:
    """The checks that hold without DNS: characters, scheme, credentials, literal
    addresses, local names. For saving a player's settings, and again before a post
    (a URL saved before a check existed)."""
    _refuse_characters(url)
    host, _ = _host_port(url)
    if allow_private:
        return
    name = host.rstrip(".").lower()
    if name in LOCAL_NAMES or name.endswith((".localhost", ".local", ".internal")):
        raise UnsafeWebhook(f"A webhook must point to a public address, not {host}.")
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return  # a name: checked by its addresses before each post
    _refuse_address(host, host)


def check_target(url: str, allow_private: bool = False, resolver: Resolver = resolve) -> None:
    """Everything `check_saved` checks, and every address the host resolves to now."""
    check_saved(url, allow_private)
    if allow_private:
        return
    host, port = _host_port(url)
    try:
        addresses = resolver(host, port)
    except OSError as exc:
        raise UnsafeWebhook(f"The webhook's host {host} does not resolve.") from exc
    if not addresses:
        raise UnsafeWebhook(f"The webhook's host {host} does not resolve.")
    for address in addresses:
        _refuse_address(address, host)


def post(url: str, payload: dict[str, Any], allow_private: bool = False) -> None:
    """Post `payload` as JSON to a checked target; raises on refusal or HTTP error."""
    check_target(url, allow_private)
    response = httpx.post(url, json=payload, timeout=TIMEOUT_S, follow_redirects=False)
    response.raise_for_status()
