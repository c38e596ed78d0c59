"""The connection to one server, by its configured transport: stdio, streamable HTTP or SSE.

stdio is toolbelt's own (``stdio.StdioConnection``: bounded messages, the whole process tree
ended); HTTP and SSE are the SDK's clients over the HTTP client ``http_connection`` sets up
(headers, the headers helper's, OAuth, bounded responses, the server's refusals noted). Each
is an async context manager yielding the stream pair an SDK ``ClientSession`` runs on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio

from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.http_connection import ServerAnswers, http_setup
from toolbelt.mcp_client.oauth_provider import LoginHandlers
from toolbelt.mcp_client.sdk_logs import quiet_sdk_loggers
from toolbelt.mcp_client.sse_guard import guarded
from toolbelt.mcp_client.stdio import MAX_MESSAGE_BYTES, StdioConnection

__all__ = ["connect"]


def connect(
    config: ServerConfig,
    stop: anyio.Event,
    *,
    answers: ServerAnswers | None = None,
    login: LoginHandlers | None = None,
) -> tuple[AbstractAsyncContextManager[Any], StdioConnection | None]:
    """The transport for ``config``, and for stdio its connection (why it ended, its stderr);
    ``stop`` is set when a stdio server's output ends, so its session stops too. A remote
    server's refusals go to ``answers``; ``login``: a person is there to log in."""
    quiet_sdk_loggers()  # the SDK's tracebacks become one-line messages (``sdk_logs``)
    if config.transport == "stdio":
        connection = StdioConnection(config)
        return _watched(connection, stop), connection
    answers = answers if answers is not None else ServerAnswers()
    if config.transport == "sse":
        return _sse(config, answers, login), None
    return _streamable_http(config, answers, login), None


@asynccontextmanager
async def _sse(
    config: ServerConfig, answers: ServerAnswers, login: LoginHandlers | None
) -> AsyncIterator[Any]:
    from mcp.client.sse import sse_client

    setup = await http_setup(config, answers, login)
    # each event also stays within the SDK's own cap (1 MB), which sse_client keeps; an
    # unreadable answer fails its request at once (``sse_guard``)
    client = sse_client(
        config.url, headers=setup.headers, httpx_client_factory=setup.client, auth=setup.auth
    )
    async with guarded(client) as streams:
        yield streams


@asynccontextmanager
async def _streamable_http(
    config: ServerConfig, answers: ServerAnswers, login: LoginHandlers | None
) -> AsyncIterator[Any]:
    from mcp.client.streamable_http import streamable_http_client

    setup = await http_setup(config, answers, login)
    async with (
        setup.client() as client,
        streamable_http_client(
            # our client caps each event at the stdio limit; the SDK's own cap is a bit above
            config.url,
            http_client=client,
            max_sse_event_size=MAX_MESSAGE_BYTES + 1024,
        ) as streams,
    ):
        yield streams


@asynccontextmanager
async def _watched(connection: StdioConnection, stop: anyio.Event) -> AsyncIterator[Any]:
    async with connection.open() as streams, anyio.create_task_group() as group:

        async def watch() -> None:
            await connection.ended.wait()
            stop.set()

        group.start_soon(watch)
        try:
            yield streams
        finally:
            group.cancel_scope.cancel()
