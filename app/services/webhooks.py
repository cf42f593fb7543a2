"""Where a webhook may point: the server posts to a URL a player typed, so it must not
become a way to reach the operator's own network (server-side request forgery).

A target is refused when it is not http(s), carries credentials, or names (or resolves
to) an address that is not globally routable: loopback, private, link-local (cloud
metadata lives at 169.254.169.254), shared, reserved or multicast. The URL is checked
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
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from app.services.errors import Invalid

TIMEOUT_S = 5.0
LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")

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


def _refuse_address(address: str, host: str) -> None:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if not ip.is_global or ip.is_multicast:
        named = f"{host} is {ip}" if host.strip("[]") != str(ip) else str(ip)
        raise UnsafeWebhook(
            f"A webhook must point to a public address; {named}, which is local or private."
        )


def saved_url(url: str, allow_private: bool = False) -> str | None:
    """A webhook URL as a form or the API gave it, checked for saving: stripped, at most
    500 characters, http(s) and not private (`check_saved`); "" clears it (None).
    Invalid (field ``webhook_url``) with the reason otherwise."""
    url = url.strip()
    if not url:
        return None
    if not re.match(r"^https?://[^\s/]+", url):
        raise Invalid("A webhook is an http:// or https:// URL.", field="webhook_url")
    if len(url) > 500:
        raise Invalid("That URL is too long.", field="webhook_url")
    try:
        check_saved(url, allow_private)
    except UnsafeWebhook as exc:
        raise Invalid(str(exc), field="webhook_url") from exc
    return url


def check_saved(url: str, allow_private: bool = False) -> None:
    """The checks that hold without DNS: scheme, credentials, literal addresses, local
    names. For saving a player's settings."""
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
