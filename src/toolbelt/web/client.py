"""One HTTP exchange with a checked address, under byte and time caps.

The request goes to the address the guard checked, written into the URL as an IP literal, while
the ``Host`` header and the TLS server name (httpcore's ``sni_hostname``, also used for the
certificate check) carry the host name: the page is the named site's, and no second DNS lookup
exists that rebinding could answer differently. A fresh client per exchange means a kept-alive
TLS connection verified for one name is never reused for another on the same address.
Environment proxies are ignored (a proxy would do its own, unchecked, lookup).

The body is read raw and decompressed here, ``max_length``-bounded, so a gzip bomb stops at the
byte cap instead of inflating a whole compressed chunk into memory first.
"""

from __future__ import annotations

import math
import ssl
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolbelt.core.errors import ToolError
from toolbelt.web.guard import Target

if TYPE_CHECKING:
    import httpx

__all__ = ["REDIRECT_STATUSES", "ConnectFailed", "FetchLimits", "RawResponse", "exchange"]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "toolbelt-web-fetch/0.1 (an AI coding agent's fetch tool)"
_ACCEPT = (
    "text/html, text/markdown;q=0.95, text/plain;q=0.9, application/xhtml+xml, "
    "application/json;q=0.9, application/xml;q=0.8, application/pdf;q=0.8, */*;q=0.1"
)


class ConnectFailed(ToolError):
    """No connection could be made to the address (another checked address may work)."""


@dataclass(frozen=True, slots=True)
class FetchLimits:
    """How long and how much: timeouts in seconds, the body cap in decompressed bytes, and how
    much of an HTML body is converted (about 1.1 s per MB here, in a worker thread)."""

    connect_timeout: float = 10.0
    read_timeout: float = 15.0
    total_timeout: float = 20.0
    """The whole fetch, redirects included: well under the minute MCP clients wait for a
    call, with the small model's time (``condense.TIME_LIMIT``) on top. A body still arriving
    at the deadline (a server dripping a byte at a time) is cut there and what arrived is
    returned, marked ``incomplete``."""
    max_bytes: int = 10 * 1024 * 1024
    max_html_bytes: int = 3 * 1024 * 1024


@dataclass(slots=True)
class RawResponse:
    """Status, headers (lower-case names) and the body, cut at the cap when ``truncated``."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes = b""
    truncated: bool = False
    incomplete: str | None = None
    """Why the body ended before the server finished sending it (the deadline, a stall)."""

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()


async def exchange(
    target: Target,
    limits: FetchLimits,
    *,
    verify: ssl.SSLContext | None = None,
    body_deadline: float | None = None,
) -> RawResponse:
    """GET ``target.url`` from ``target.address``; the body is skipped for redirects.

    ``verify`` replaces the default certificate authorities (tests with their own CA). A body
    still arriving at ``body_deadline`` (``anyio.current_time()``), or one the server stops
    sending for ``read_timeout``, ends there: what arrived is kept and ``incomplete`` says why.
    """
    import anyio
    import httpx

    url = target.url
    literal = f"[{target.address}]" if target.address.version == 6 else str(target.address)
    extensions: dict[str, object] = {}
    if url.scheme == "https" and url.ip is None:
        extensions["sni_hostname"] = url.host.rstrip(".")
    headers = {
        "Host": url.netloc,
        "User-Agent": USER_AGENT,
        "Accept": _ACCEPT,
        "Accept-Encoding": "gzip, deflate",
    }
    timeout = httpx.Timeout(limits.read_timeout, connect=limits.connect_timeout)
    request_url = f"{url.scheme}://{literal}:{url.port}{url.target}"
    extensions["timeout"] = timeout.as_dict()
    request = httpx.Request("GET", request_url, headers=headers, extensions=extensions)
    raw: RawResponse | None = None
    try:
        # The transport, not a client: a client would parse a redirect's Location itself (and
        # fail on spellings the guard reads as a browser does), and would keep cookies.
        transport = httpx.AsyncHTTPTransport(verify=verify or True, trust_env=False)
        async with transport:
            response = await transport.handle_async_request(request)
            try:
                raw = RawResponse(
                    response.status_code,
                    response.reason_phrase,
                    {k.lower(): v for k, v in response.headers.items()},
                )
                if raw.status not in REDIRECT_STATUSES:
                    with anyio.move_on_at(body_deadline or math.inf) as scope:
                        await _read_body(response, raw, limits.max_bytes)
                    if scope.cancelled_caught:
                        raw.incomplete = (
                            f"the server was still sending when the {limits.total_timeout:g} s "
                            "the fetch may take were up"
                        )
            finally:
                with anyio.CancelScope(shield=True):
                    await response.aclose()
    except httpx.ConnectTimeout as exc:
        raise ConnectFailed(
            f"{url.origin} timed out connecting (limit {limits.connect_timeout:g} s); try again "
            "later or fetch another source."
        ) from exc
    except httpx.TimeoutException as exc:
        if raw is not None and raw.body:  # it stalled part way: what arrived is the page
            raw.incomplete = f"the server sent nothing more for {limits.read_timeout:g} s"
            return raw
        raise ToolError(
            f"{url.origin} timed out waiting for data (limit {limits.read_timeout:g} s); try "
            "again later or fetch another source."
        ) from exc
    except httpx.ConnectError as exc:
        raise ConnectFailed(f"Could not connect to {url.origin} ({exc}).") from exc
    except httpx.HTTPError as exc:
        raise ToolError(f"Fetching {url} failed ({type(exc).__name__}: {exc}).") from exc
    assert raw is not None
    return raw


async def _read_body(response: httpx.Response, raw: RawResponse, cap: int) -> None:
    """Read the body into ``raw.body`` (decoded, at most ``cap`` bytes); what arrived is kept
    there however the read ends — done, cut at the cap, cancelled, timed out."""
    encoding = raw.headers.get("content-encoding", "identity").strip().lower()
    decoder = _decoder(encoding)
    size = 0
    chunks: list[bytes] = []
    try:
        async for chunk in response.aiter_raw():
            data = chunk
            while data:
                room = cap - size + 1
                if decoder is None:
                    out, data = data[:room], b""
                else:
                    try:
                        out = decoder.decompress(data, room)
                    except zlib.error as exc:
                        raise ToolError(
                            f"The server sent a broken {encoding} body ({exc})."
                        ) from exc
                    data = decoder.unconsumed_tail
                chunks.append(out)
                size += len(out)
                if size > cap:
                    raw.truncated = True
                    return
                if decoder is not None and not out:
                    break
    finally:
        raw.body = b"".join(chunks)[:cap]


def _decoder(encoding: str) -> zlib._Decompress | None:
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise ToolError(
        f"The server answered with a {encoding!r}-compressed body, which web_fetch cannot "
        "decode; try another URL for the same content."
    )
