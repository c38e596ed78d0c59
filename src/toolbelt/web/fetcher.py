"""Fetch a page: the guard and the capped exchange for every hop, at most five redirects.

A redirect to the same site (the same host, with or without ``www.``, http upgraded to https)
is followed after the new hop passes the guard like the first; a redirect to another host is
not followed but reported, so the model asks for it with a call of its own and the user's
per-domain permission is asked for that host too. The whole chain runs under one total
deadline; a body still arriving then is cut there and returned as it is, marked incomplete
(``client.exchange``), so a page dripping a byte at a time holds the call no longer.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, replace

from toolbelt.core.errors import ToolError
from toolbelt.web.client import (
    REDIRECT_STATUSES,
    ConnectFailed,
    FetchLimits,
    RawResponse,
    exchange,
)
from toolbelt.web.guard import Resolver, Target, check_target
from toolbelt.web.urls import WebUrl, resolve_redirect

__all__ = ["MAX_REDIRECTS", "Page", "fetch_page"]

MAX_REDIRECTS = 5
_MARGIN = 1.0
"""Seconds past the total deadline for a body cut at it to come back."""


@dataclass(frozen=True, slots=True)
class Page:
    """What a fetch ended with: the final response, or a redirect to another host."""

    url: WebUrl
    response: RawResponse
    redirect_to: WebUrl | None = None


async def fetch_page(
    url: WebUrl,
    *,
    private_origins: frozenset[str],
    resolver: Resolver,
    limits: FetchLimits,
    verify: ssl.SSLContext | None = None,
) -> Page:
    """Fetch ``url`` following same-site redirects; ToolError on refusals, timeouts, loops."""
    import anyio

    deadline = anyio.current_time() + limits.total_timeout
    try:
        # past the deadline the body's reading stops by itself; the margin lets it return
        with anyio.fail_at(deadline + _MARGIN):
            for _ in range(MAX_REDIRECTS + 1):
                target = await check_target(url, private_origins=private_origins, resolver=resolver)
                response = await _exchange_any(target, limits, verify, deadline)
                if response.incomplete and not response.body:
                    raise TimeoutError  # nothing of the body arrived in time
                location = response.headers.get("location")
                if response.status not in REDIRECT_STATUSES or not location:
                    return Page(url, response)
                following = resolve_redirect(url, location)
                if not _same_site(url, following):
                    return Page(url, response, redirect_to=following)
                url = following
    except TimeoutError as exc:
        raise ToolError(
            f"Fetching {url} did not finish within {limits.total_timeout:g} s; try again later "
            "or fetch a smaller page."
        ) from exc
    raise ToolError(
        f"{url} redirected more than {MAX_REDIRECTS} times; the site may be in a redirect loop."
    )


async def _exchange_any(
    target: Target, limits: FetchLimits, verify: ssl.SSLContext | None, deadline: float
) -> RawResponse:
    """The exchange with the first checked address that accepts a connection."""
    for address in target.alternatives:
        try:
            return await exchange(target, limits, verify=verify, body_deadline=deadline)
        except ConnectFailed:
            target = replace(target, address=address)
    return await exchange(target, limits, verify=verify, body_deadline=deadline)


def _same_site(current: WebUrl, following: WebUrl) -> bool:
    if following.scheme != current.scheme and following.scheme != "https":
        return False  # never downgrade https to http
    return _bare(current.host) == _bare(following.host)


def _bare(host: str) -> str:
    return host.rstrip(".").removeprefix("www.")
