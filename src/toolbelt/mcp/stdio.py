"""MCP over stdio: newline-delimited JSON-RPC on stdin and stdout.

Messages are read as they arrive and dispatched concurrently; every outgoing message goes
through one ordered outbox, so progress notifications precede the result they belong to.
When stdin closes (the client went away) or SIGTERM arrives, in-flight calls are given a
moment to finish, then the session is closed and every process it started is ended.
"""

from __future__ import annotations

import asyncio
import json
import math
import signal
import sys
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from toolbelt.core.strict_json import strict_loads
from toolbelt.mcp.server import McpServer, Outgoing
from toolbelt.runtime import Runtime

__all__ = ["serve_stdio"]

MAX_LINE = 64 * 1024 * 1024


async def serve_stdio(runtime: Runtime) -> None:
    """Serve ``runtime`` to the client on this process's stdin/stdout until it disconnects."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    send, receive = anyio.create_memory_object_stream[Outgoing](math.inf)
    server = McpServer(runtime, send)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_write_all, receive, writer)
            group.start_soon(_stop_on_sigterm, group)
            while line := await reader.readline():
                message = _parse(line)
                if message is None:
                    await send.send((_parse_error(), None))
                    continue
                await server.handle(message, group)
            with anyio.move_on_after(5):  # the client left: let running calls finish briefly
                while server.busy:  # noqa: ASYNC110 - a bounded poll, only at shutdown
                    await anyio.sleep(0.01)
            group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await server.aclose()


async def _write_all(
    receive: MemoryObjectReceiveStream[Outgoing], writer: asyncio.StreamWriter
) -> None:
    async for message, _ in receive:
        writer.write(
            json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        )
        await writer.drain()


async def _stop_on_sigterm(group: anyio.abc.TaskGroup) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            group.cancel_scope.cancel()
            return


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        message = strict_loads(line)
    except ValueError:  # bad JSON, a duplicate key, NaN, nesting deep enough to crash
        return None
    return message if isinstance(message, dict) else None


def _parse_error() -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
