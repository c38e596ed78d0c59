"""The SSRF guard: resolve a host once, refuse it unless every address is global, pin them.

The address checked is the address connected to (``client`` dials exactly the ``Target``
returned here), so a name that answers a public address to the check and a private one to the
connection (DNS rebinding) gets nowhere: there is no second lookup. A name with several
addresses is refused when any of them is not global, so a multi-record answer cannot smuggle a
private one in. Private origins the user listed in ``webFetch.allowPrivateOrigins`` are the one
exception, matched on the URL's canonical origin (``http://127.1:8080`` and
``http://127.0.0.1:8080`` are the same origin).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from toolbelt.core.errors import ToolError
from toolbelt.web.addresses import IPAddress, blocked_reason
from toolbelt.web.urls import WebUrl, parse_web_url

__all__ = ["Resolver", "Target", "canonical_origins", "check_target", "system_resolver"]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Host name and port → the addresses it resolves to (``system_resolver``, or a stub in tests)."""


@dataclass(frozen=True, slots=True)
class Target:
    """A URL checked for fetching, the address it will be fetched from, and the host's other
    checked addresses to fall back to if that one cannot be connected to (IPv6 without a route)."""

    url: WebUrl
    address: IPAddress
    alternatives: tuple[IPAddress, ...] = ()


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``getaddrinfo`` gives for ``host`` (TCP), in its order."""
    import anyio

    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ToolError(f"The host {host!r} could not be resolved ({exc}); check the URL.") from exc
    return [str(info[4][0]) for info in infos]


def canonical_origins(origins: Iterable[str]) -> frozenset[str]:
    """The listed private origins as ``scheme://host[:port]``, spelled the way URLs parse."""
    canonical = set()
    for origin in origins:
        try:
            canonical.add(parse_web_url(origin).origin)
        except ToolError:
            continue  # settings validation names bad entries; a bad one here allows nothing
    return frozenset(canonical)


async def check_target(
    url: WebUrl, *, private_origins: frozenset[str], resolver: Resolver
) -> Target:
    """Resolve ``url``'s host once and return the address to connect to; ToolError if refused."""
    allowed = url.origin in private_origins
    literal = url.ip
    if literal is not None:
        addresses: list[IPAddress] = [literal]
    else:
        answers = await resolver(url.host.rstrip("."), url.port)
        addresses = []
        for answer in answers:
            try:
                addresses.append(ipaddress.ip_address(answer.split("%", 1)[0]))
            except ValueError:
                continue
        if not addresses:
            raise ToolError(f"The host {url.host!r} has no address; check the URL.")
    if not allowed:
        for address in addresses:
            reason = blocked_reason(address)
            if reason is not None:
                raise ToolError(refusal(url, address, reason))
    unique = list(dict.fromkeys(addresses))
    return Target(url, unique[0], tuple(unique[1:4]))


def refusal(url: WebUrl, address: IPAddress, reason: str) -> str:
    """The model-facing message for a refused destination."""
    via = "" if str(address) == url.host else f" resolves to {address}, which is"
    host = url.host if via else str(address)
    return (
        f"web_fetch does not reach {host}:{via} {reason}, and fetching private addresses could "
        f"expose internal services. Fetch a public URL instead; to allow {url.origin}, the user "
        'can list it in their settings under "webFetch": {"allowPrivateOrigins": [...]}.'
    )
