"""What a remote MCP server over HTTP or SSE can make toolbelt hold: the stdio limit, again.

A stdio server's message may hold at most ``stdio.MAX_MESSAGE_BYTES`` (16 MB); an HTTP server
could otherwise answer a request with a JSON body of any size, which the SDK reads whole into
memory before parsing it. So the HTTP client the transports use reads every response through
a counter: a plain body stops at the limit, and an event stream (it lasts as long as the
session) at the limit for any one event. What is over the limit fails the request it answers
(the SDK turns the error into that request's error) and the session goes on. Event streams are
reopened no faster than ``reconnect_pacing`` allows, whatever the server's ``retry:``; an answer
to ``tools/list`` is cut to the tools toolbelt takes before the SDK reads it (``listing_trim``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import httpx2

from toolbelt.mcp_client.listing_trim import trimmed_events, trimmed_listing
from toolbelt.mcp_client.reconnect_pacing import ReconnectPacing
from toolbelt.mcp_client.stdio import MAX_MESSAGE_BYTES

__all__ = ["TOO_LARGE", "capped_client"]

TOO_LARGE = (
    f"sent a message larger than {MAX_MESSAGE_BYTES // (1024 * 1024)} MB, the most toolbelt accepts"
)
_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # the SDK's: a server may hold a stream open
_EVENT_END = (b"\n\n", b"\r\r", b"\r\n\r\n")


class _BodyTooLarge(httpx2.StreamError):
    """A response body past the limit: the SDK reports a ``StreamError`` while reading a JSON
    answer to the request it answers, and keeps the connection."""

    def __init__(self) -> None:
        super().__init__(f"the server {TOO_LARGE}")


class _EventTooLarge(httpx2.SSEError):
    """An event past the limit: the SDK reports an ``SSEError`` to the request whose stream it
    was on (any other error it takes for a dropped stream, and reconnects)."""

    def __init__(self) -> None:
        super().__init__(f"the server {TOO_LARGE}")


def capped_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
    *,
    limit: int = MAX_MESSAGE_BYTES,
    inner: httpx2.AsyncBaseTransport | None = None,
) -> httpx2.AsyncClient:
    """An HTTP client like the SDK's ``create_mcp_http_client`` (and usable as the SDK's
    client factory) whose responses are read at most ``limit`` bytes per message; ``inner``:
    the transport under the cap (default: plain HTTP)."""
    return httpx2.AsyncClient(
        headers=headers,
        timeout=timeout or _TIMEOUT,
        auth=auth,
        transport=_CappedTransport(inner or httpx2.AsyncHTTPTransport(), limit),
    )


class _CappedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int) -> None:
        self._inner = inner
        self._limit = limit
        self._pacing = ReconnectPacing()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":  # an event stream, maybe reopened: never in a tight loop
            await self._pacing.before_opening()
        response = await self._inner.handle_async_request(request)
        assert isinstance(response.stream, httpx2.AsyncByteStream)  # an async transport's
        events = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        response.stream = _CappedStream(response.stream, self._limit, events=events)
        if request.method == "GET":
            response.stream = _Timed(response.stream, self._pacing)
        if _lists_tools(request):  # cut to what toolbelt takes before the SDK reads it
            response.stream = _TrimmedListing(response.stream, events=events)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CappedStream(httpx2.AsyncByteStream):
    """The body, failing once one message (the whole body, or one event) passes ``limit``."""

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, *, events: bool) -> None:
        self._inner = inner
        self._limit = limit
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        held, tail = 0, b""  # bytes of the current message; the end of the previous chunk
        async for chunk in self._inner:
            held += len(chunk)
            if self._events:
                window = tail + chunk  # an event's end may straddle two chunks
                ends = [window.rfind(mark) + len(mark) for mark in _EVENT_END if mark in window]
                if ends:
                    held = len(window) - max(ends)
                tail = window[-3:]
            if held > self._limit:
                raise _EventTooLarge() if self._events else _BodyTooLarge()
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def _lists_tools(request: httpx2.Request) -> bool:
    """Whether ``request`` is a ``tools/list`` POST (its body is small and already read)."""
    if request.method != "POST" or b'"tools/list"' not in request.content[:4096]:
        return False
    try:
        return bool(json.loads(request.content).get("method") == "tools/list")
    except (ValueError, AttributeError):
        return False


class _TrimmedListing(httpx2.AsyncByteStream):
    """The answer to ``tools/list``, read whole (it is capped) and cut to ``MAX_TOOLS`` tools in
    a worker thread (``listing_trim``)."""

    def __init__(self, inner: httpx2.AsyncByteStream, *, events: bool) -> None:
        self._inner = inner
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        body = bytearray()
        async for chunk in self._inner:
            body += chunk
        trim = trimmed_events if self._events else trimmed_listing
        yield await anyio.to_thread.run_sync(trim, bytes(body), abandon_on_cancel=True)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Timed(httpx2.AsyncByteStream):
    """A GET's event stream, telling ``pacing`` when it ends."""

    def __init__(self, inner: httpx2.AsyncByteStream, pacing: ReconnectPacing) -> None:
        self._inner = inner
        self._pacing = pacing
        self._opened = anyio.current_time()
        self._told = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        finally:
            self._end()

    async def aclose(self) -> None:
        self._end()
        await self._inner.aclose()

    def _end(self) -> None:
        if not self._told:
            self._told = True
            self._pacing.ended(self._opened)
