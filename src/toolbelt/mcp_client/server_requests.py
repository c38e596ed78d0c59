"""How many of a server's own requests (sampling, roots, elicitation) toolbelt answers at once.

A server may ask its client things while a call runs. The SDK starts a task for each request
and writes each answer through its transport, one at a time (over HTTP, one POST after the
other); so a server that sent 1,500 requests in a burst had its answers take 40 s to post, and
every request of toolbelt's own — the next call — waited behind them until it timed out
(issue #32). Here at most ``MAX_PENDING`` of a server's requests are being answered at any
moment, concurrently, each as its callback decides; a request that arrives while that many
are pending is not answered at all (the server stops waiting for it after its own timeout)
and is counted, so the queue in front of toolbelt's own requests — and the call's result —
never holds more than ``MAX_PENDING`` answers.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

__all__ = ["MAX_PENDING", "RequestCap", "bounded_requests"]

MAX_PENDING = 16
_log = logging.getLogger("mcp.toolbelt")


class RequestCap:
    """The server's requests being answered, and those refused for want of room."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.pending: set[Any] = set()
        self.dropped = 0

    def admit(self, message: Any) -> bool:
        """Whether an incoming message goes on to the session (every one but a request past
        the cap)."""
        if not isinstance(message, SessionMessage):
            return True
        inner = message.message
        if not isinstance(inner, JSONRPCRequest):
            return True
        if len(self.pending) >= MAX_PENDING:
            self.dropped += 1
            if self.dropped == 1:
                _log.warning(
                    "the MCP server `%s` sent more than %d requests at once; the ones past "
                    "them are not answered",
                    self.server,
                    MAX_PENDING,
                )
            return False
        self.pending.add(inner.id)
        return True

    def answered(self, message: SessionMessage) -> None:
        """An answer of ours went out: its request no longer counts."""
        inner = message.message
        if isinstance(inner, JSONRPCResponse | JSONRPCError):
            self.pending.discard(inner.id)


@asynccontextmanager
async def bounded_requests(read: Any, write: Any, cap: RequestCap) -> AsyncIterator[Any]:
    """The stream pair ``(read, write)`` as the session should see it: a server's requests past
    ``cap`` never reach the session."""
    to_session, session_reads = anyio.create_memory_object_stream[Any](0)
    session_writes, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def inbound() -> None:
        async with to_session:
            async for item in read:
                if cap.admit(item):
                    await to_session.send(item)

    async def outbound() -> None:
        async with from_session:
            async for message in from_session:
                await write.send(message)
                cap.answered(message)

    async with anyio.create_task_group() as group:
        group.start_soon(inbound)
        group.start_soon(outbound)
        try:
            yield session_reads, session_writes
        finally:
            group.cancel_scope.cancel()
