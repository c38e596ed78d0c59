"""MCP over stdio: newline-delimited JSON-RPC on stdin and stdout.

Messages are read as they arrive and dispatched concurrently; every outgoing message goes
through one ordered outbox, so progress notifications precede the result they belong to.

A client that stops reading stdout cannot make the server grow without end: while
``MAX_QUEUED`` messages wait to be written or ``MAX_CALLS`` calls run, no further request is
read (``_Backlog``); reading resumes as the writer drains and calls end, so a client that
sends a thousand calls at once (``< requests.jsonl``) gets every answer, none refused. The
requests not read yet wait in the pipe, which stops the client's writes once full.

When stdin ends, every request already received is still answered: the calls run to the end
(a permission question can no longer be answered, so it is refused at once), the outbox is
written out, then the session is closed and every process it started is ended. So
``toolbelt mcp < requests.jsonl > replies.jsonl`` answers every request in the file. SIGTERM,
SIGINT or SIGHUP, or a reader that closed stdout, stop at once instead.

stdin and stdout may be pipes, sockets, regular files, terminals or ``/dev/null``: pipes and
sockets use the event loop's pipe transports, the rest (which those refuse) are read and
written in a worker thread.
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
import stat
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream

from toolbelt.core.strict_json import strict_loads
from toolbelt.mcp.call_tasks import CallTasks
from toolbelt.mcp.envelope import PARSE_ERROR, InvalidMessage, check_message, encode_message
from toolbelt.mcp.roots import RootedStart
from toolbelt.mcp.server import McpServer, Outbox, Outgoing

__all__ = ["serve_stdio"]

MAX_LINE = 64 * 1024 * 1024
BATCH_BYTES = 256 * 1024
"""Queued messages are joined into one write up to about this many bytes."""

MAX_QUEUED = 64
"""Messages waiting to be written from which no further request is read."""
MAX_CALLS = 256
"""Calls running at once from which no further request is read (the HTTP door's default
``--max-calls``)."""

ReadLine = Callable[[], Awaitable[bytes]]
Write = Callable[[bytes], Awaitable[None]]


async def serve_stdio(start: Callable[[Outbox], McpServer | RootedStart]) -> str | None:
    """Serve the connection ``start`` makes to the client on this process's stdin/stdout until
    it disconnects: an ``McpServer`` (its runtime opened and its tools listed first, so the
    configured MCP servers start), or a ``RootedStart`` that opens one once the client's roots
    say which workspace. Returns why no workspace was served (``RootedStart.refused``)."""
    send, receive = anyio.create_memory_object_stream[Outgoing](math.inf)
    server = start(send)
    try:
        await server.start()
        readline, write = await _line_reader(), await _writer()
        async with anyio.create_task_group() as group:
            group.start_soon(_stop_on_signal, group.cancel_scope)
            written, backlog = anyio.Event(), _Backlog(receive)
            group.start_soon(_write_all, receive, write, written, group.cancel_scope, backlog)
            calls = CallTasks(server.cancel_calls, on_finished=backlog.moved)
            async with calls:  # left when every call has been answered
                while line := await backlog.then(readline, calls):
                    try:
                        message = check_message(_parse(line))
                    except InvalidMessage as exc:
                        await send.send((exc.reply, None))
                        continue
                    await server.handle(message, calls)
                if isinstance(server, RootedStart):
                    await server.input_ended(calls)
                server.end_of_input()
            send.close()  # the writer writes what is queued, then stops
            await written.wait()
            group.cancel_scope.cancel()
    finally:
        # not under a shield scope of its own: a toolset holding connections (MCP servers)
        # leaves its task group here, which must be the task's innermost scope
        await server.aclose()
    return server.refused if isinstance(server, RootedStart) else None


class _Backlog:
    """What the server holds for the client: the messages waiting to be written and the calls
    running. The reader waits while either is at its bound."""

    def __init__(self, queue: MemoryObjectReceiveStream[Outgoing]) -> None:
        self._queue = queue
        self._moved = anyio.Event()

    async def then(self, readline: ReadLine, calls: CallTasks) -> bytes:
        """The next line, read once fewer than ``MAX_QUEUED`` messages wait to be written and
        fewer than ``MAX_CALLS`` calls run."""
        while (
            self._queue.statistics().current_buffer_used >= MAX_QUEUED or calls.running >= MAX_CALLS
        ):
            self._moved = anyio.Event()
            await self._moved.wait()
        return await readline()

    def moved(self) -> None:
        """Messages were written or a call ended: the reader looks again."""
        self._moved.set()


async def _write_all(
    receive: MemoryObjectReceiveStream[Outgoing],
    write: Write,
    written: anyio.Event,
    stop: anyio.CancelScope,
    backlog: _Backlog,
) -> None:
    """Write every outgoing message, in order. The messages already queued go out in one
    write: with many calls in flight, a write (a system call, and waking the client) per
    message was most of what a trivial call cost."""
    try:
        async for message, _ in receive:
            lines = [encode_message(message)]
            size = len(lines[0])
            while size < BATCH_BYTES:
                try:
                    queued, _ = receive.receive_nowait()
                except (anyio.WouldBlock, anyio.EndOfStream):
                    break
                lines.append(encode_message(queued))
                size += len(lines[-1])
            lines.append(b"")
            await write(b"\n".join(lines))
            backlog.moved()
    except (BrokenPipeError, ConnectionResetError):
        stop.cancel()  # nobody reads the replies any more: stop everything
    written.set()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        async for _ in signals:
            scope.cancel()
            return


async def _line_reader() -> ReadLine:
    """Reads stdin line by line (``b""`` at its end)."""
    if _needs_thread(sys.stdin.fileno()):
        raw = sys.stdin.buffer

        async def read_file() -> bytes:
            # a terminal may block in read: SIGTERM must not wait for a line
            return await anyio.to_thread.run_sync(raw.readline, MAX_LINE, abandon_on_cancel=True)

        return read_file
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader.readline


async def _writer() -> Write:
    """Writes to stdout, waiting until the reader has room (a pipe) or the data is flushed."""
    if _needs_thread(sys.stdout.fileno()):
        raw = sys.stdout.buffer

        def write_through(data: bytes) -> None:
            raw.write(data)
            raw.flush()

        async def write_file(data: bytes) -> None:
            await anyio.to_thread.run_sync(write_through, data)

        return write_file
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)

    async def write_pipe(data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    return write_pipe


def _needs_thread(fd: int) -> bool:
    """True unless ``fd`` is a pipe or a socket: the loop's pipe transports refuse a regular
    file (``< requests.jsonl``), and epoll refuses some character devices (``/dev/null``)."""
    mode = os.fstat(fd).st_mode
    return not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode))


def _parse(line: bytes) -> Any:
    """The JSON value on ``line``; a parse error (the request's id is unknown) otherwise."""
    try:
        return strict_loads(line)
    except ValueError as exc:  # bad JSON, a duplicate key, 1e999, a lone surrogate, deep nesting
        raise InvalidMessage(PARSE_ERROR, f"Parse error: {exc}", None) from None
