"""The connection to one server, by its configured transport: stdio, streamable HTTP or SSE.

stdio is toolbelt's own (``stdio.StdioConnection``: bounded messages, the whole process tree
ended); HTTP and SSE are the SDK's clients, with the configured headers, over an HTTP client
whose responses are bounded the same way (``http_limits``). Each is an async
context manager yielding the stream pair an SDK ``ClientSession`` runs on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio

from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.http_limits import capped_client
from toolbelt.mcp_client.stdio import MAX_MESSAGE_BYTES, StdioConnection
from toolbelt.runners.runner import Runner

__all__ = ["connect"]


def connect(
    config: ServerConfig, stop: anyio.Event, runner: Runner | None = None
) -> tuple[AbstractAsyncContextManager[Any], StdioConnection | None]:
    """The transport for ``config``, and for stdio its connection (why it ended, its stderr);
    ``stop`` is set when a stdio server's output ends, so its session stops too; ``runner``
    starts a stdio server (None: unconfined)."""
    if config.transport == "stdio":
        connection = StdioConnection(config, runner=runner)
        return _watched(connection, stop), connection
    if config.transport == "sse":
        from mcp.client.sse import sse_client

        # each event also stays within the SDK's own cap (1 MB), which sse_client keeps
        client = sse_client(
            config.url, headers=dict(config.headers), httpx_client_factory=capped_client
        )
        return client, None
    return _streamable_http(config), None


@asynccontextmanager
async def _streamable_http(config: ServerConfig) -> AsyncIterator[Any]:
    from mcp.client.streamable_http import streamable_http_client

    async with (
        capped_client(headers=dict(config.headers)) as client,
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
