"""Which IP addresses a fetch may reach: global unicast only.

Everything else can be a service that trusts whoever reaches it: loopback, private networks,
link-local (the cloud metadata service at 169.254.169.254 and fd00:ec2::254), the carrier-grade
NAT range, unspecified addresses (connecting to ``0.0.0.0`` or ``::`` reaches local listeners),
multicast, and the reserved and documentation ranges. IPv6 addresses that carry an IPv4
address inside — IPv4-mapped ``::ffff:a.b.c.d``, IPv4-compatible ``::a.b.c.d``, NAT64
``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo ``2001::/32`` — are judged by that IPv4 address
too, so ``::ffff:127.0.0.1`` is loopback here as it is to the kernel.
"""

from __future__ import annotations

import ipaddress

__all__ = ["IPAddress", "blocked_reason"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
_COMPATIBLE = ipaddress.IPv6Network("::/96")
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")


def blocked_reason(address: IPAddress) -> str | None:
    """Why ``address`` is off limits (``"a loopback address"``), or None when it is global."""
    if isinstance(address, ipaddress.IPv4Address):
        return _ipv4_reason(address)
    for inner in _embedded_ipv4(address):
        reason = _ipv4_reason(inner)
        if reason is not None:
            return f"{reason} ({inner}) inside an IPv6 address"
    if address.ipv4_mapped is not None or address in _COMPATIBLE:
        return None if address.ipv4_mapped is not None else "an IPv4-compatible IPv6 address"
    if address in _NAT64:
        return None
    return _ipv6_reason(address)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    inner: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        inner.append(address.ipv4_mapped)
    if address in _COMPATIBLE and int(address) > 1:
        inner.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if address in _NAT64:
        inner.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if address.sixtofour is not None:
        inner.append(address.sixtofour)
    if address.teredo is not None:
        inner.extend(address.teredo)
    return inner


def _ipv4_reason(address: ipaddress.IPv4Address) -> str | None:
    if address.is_unspecified or address in ipaddress.IPv4Network("0.0.0.0/8"):
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address (cloud metadata lives here)"
    if address in ipaddress.IPv4Network("100.64.0.0/10"):
        return "a carrier-grade NAT address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:
        return "a private-network address"
    if address.is_reserved or not address.is_global:
        return "a reserved address"
    return None


def _ipv6_reason(address: ipaddress.IPv6Address) -> str | None:
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address in ipaddress.IPv6Network("fc00::/7"):
        return "a unique-local (private) address (cloud metadata lives here)"
    if address not in _GLOBAL_UNICAST or address.is_private or not address.is_global:
        return "a reserved address"
    return None
