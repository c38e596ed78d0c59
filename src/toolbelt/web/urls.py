"""Parse http(s) URLs as a browser does (the WHATWG URL standard's host parser).

An SSRF check is only as good as its agreement with whatever connects: if the checker reads
``http://evil.test\\@127.0.0.1/`` as host ``127.0.0.1`` and the client reads ``evil.test`` (or
the other way round), one of them is fooled. Browsers, curl and glibc also accept IPv4 hosts in
forms a naive check misses: ``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1`` and full-width
or circled digits all mean 127.0.0.1. So the URL is parsed once, here, by the standard's rules —
backslashes are slashes, the host follows the *last* ``@``, the host is percent-decoded and
IDNA-mapped, a host ending in a number is an IPv4 address in any of those forms — and the
canonical URL rebuilt from the parts is what the client is given.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import unquote, urljoin

from toolbelt.core.errors import ToolError

__all__ = ["WebUrl", "parse_web_url", "resolve_redirect"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_FORBIDDEN_HOST_CHARS = set("\x00\t\n\r #/:<>?@[\\]^|%")
_C0_AND_SPACE = "".join(map(chr, range(0x21)))


@dataclass(frozen=True, slots=True)
class WebUrl:
    """A parsed http(s) URL: the host is lower-case ASCII, an IP address in canonical form."""

    scheme: str
    host: str
    """A domain name (ASCII, lower-case, a trailing dot kept) or an IP address without brackets."""
    port: int
    target: str
    """Path and query, starting with ``/`` (the fragment is dropped: it is never sent)."""
    userinfo: str = ""

    @property
    def ip(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
        """The host as an address, when it is one."""
        try:
            return ipaddress.ip_address(self.host)
        except ValueError:
            return None

    @property
    def netloc(self) -> str:
        """``host[:port]`` as it goes into a URL or a Host header (the default port left out)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    @property
    def origin(self) -> str:
        """``scheme://host[:port]``, the unit ``webFetch.allowPrivateOrigins`` lists."""
        return f"{self.scheme}://{self.netloc}"

    def __str__(self) -> str:
        return self.origin + self.target


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")


def parse_web_url(text: str) -> WebUrl:
    """Parse ``text``; ToolError saying what to write instead when it is not an http(s) URL."""
    url = "".join(ch for ch in text.strip(_C0_AND_SPACE) if ch not in "\t\n\r")
    match = _SCHEME.match(url)
    if match is None:
        raise ToolError(f"{text[:200]!r} is not a URL; write a full http:// or https:// URL.")
    scheme = match.group(1).lower()
    if scheme not in _DEFAULT_PORTS:
        hint = " To read a local file, use read_file." if scheme == "file" else ""
        raise ToolError(f"web_fetch reads only http:// and https:// URLs, not {scheme}:.{hint}")
    rest = url[match.end() :].lstrip("/\\")
    end = next((i for i, ch in enumerate(rest) if ch in "/\\?#"), len(rest))
    authority, target = rest[:end], rest[end:]
    userinfo, _, hostport = authority.rpartition("@")
    host_text, port = _split_port(hostport, scheme, text)
    host = _parse_host(host_text, text)
    return WebUrl(scheme, host, port, _target(target), userinfo)


def resolve_redirect(base: WebUrl, location: str) -> WebUrl:
    """The URL a ``Location`` header points at, relative to ``base``."""
    return parse_web_url(urljoin(str(base), location.replace("\\", "/")))


def _split_port(hostport: str, scheme: str, text: str) -> tuple[str, int]:
    bracket = hostport.rfind("]")
    colon = hostport.rfind(":")
    if colon <= bracket:
        return hostport, _DEFAULT_PORTS[scheme]
    host, digits = hostport[:colon], hostport[colon + 1 :]
    if not digits:
        return host, _DEFAULT_PORTS[scheme]
    if not digits.isascii() or not digits.isdigit() or int(digits) > 65535:
        raise ToolError(f"{text[:200]!r} has an invalid port {digits[:20]!r}; use 1-65535.")
    return host, int(digits)


def _parse_host(raw: str, text: str) -> str:
    if not raw:
        raise ToolError(f"{text[:200]!r} has no host; write a URL such as https://example.com/.")
    if raw.startswith("["):
        if not raw.endswith("]"):
            raise ToolError(f"{text[:200]!r} has an unclosed IPv6 address; close it with `]`.")
        try:
            return str(ipaddress.IPv6Address(raw[1:-1]))
        except ValueError as exc:
            raise ToolError(f"{raw[:100]!r} is not a valid IPv6 address.") from exc
    try:
        host = unquote(raw, errors="strict") if "%" in raw else raw
        ascii_host = host.lower() if host.isascii() else host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise ToolError(f"{raw[:100]!r} is not a valid host name.") from exc
    ascii_host = ascii_host.lower()
    if not ascii_host.strip(".") or any(ch in _FORBIDDEN_HOST_CHARS for ch in ascii_host):
        raise ToolError(f"{raw[:100]!r} is not a valid host name.")
    address = _ipv4(ascii_host)
    return ascii_host if address is None else str(address)


def _ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host "ending in a number" stands for (None for domain names)."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not _is_number(parts[-1]):
        return None
    if len(parts) > 4:
        raise ToolError(f"{host!r} is not a valid IPv4 address (more than four parts).")
    numbers = []
    for part in parts:
        value = _number(part)
        if value is None:
            raise ToolError(f"{host!r} is not a valid IPv4 address.")
        numbers.append(value)
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        raise ToolError(f"{host!r} is not a valid IPv4 address (a part is out of range).")
    value = last
    for index, number in enumerate(head):
        value += number * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)


def _is_number(part: str) -> bool:
    if part.isascii() and part.isdigit():
        return True
    return part[:2] in ("0x", "0X") and all(ch in "0123456789abcdefABCDEF" for ch in part[2:])


def _number(part: str) -> int | None:
    if not part:
        return None
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if not digits:
        return 0
    try:
        return int(digits, base) if digits.isascii() and digits.isalnum() else None
    except ValueError:
        return None


def _target(raw: str) -> str:
    """Path and query: backslashes in the path become slashes, the fragment is dropped."""
    raw = raw.split("#", 1)[0]
    path, question, query = raw.partition("?")
    path = path.replace("\\", "/") or "/"
    return path + question + query
