"""pygls's reader and writer over a process tree's pipes.

A server is started as a ``procs.tree.ProcessTree`` (``spawn``), whose pipes are anyio byte
streams; pygls's message loop (``pygls.io_.run_async``) reads with ``readline`` and
``readexactly``, as an asyncio ``StreamReader`` does, and its protocol writes through a
``write`` it does not await in order (an awaitable is handed to ``ensure_future``). So
``PipeReader`` buffers the stream and says end of file as asyncio does (``b""``), and
``PipeWriter`` takes each message at once into a queue that one task sends in order.
"""

from __future__ import annotations

import contextlib
import math

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.buffered import BufferedByteReceiveStream

__all__ = ["MAX_HEADER_BYTES", "PipeReader", "PipeWriter"]

MAX_HEADER_BYTES = 64 * 1024
"""The longest header line a server may send (LSP's are a few dozen bytes)."""

_ENDED = (
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.DelimiterNotFound,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    OSError,
)


class PipeReader:
    """``readline`` and ``readexactly`` on a byte stream; ``b""`` once it has ended."""

    def __init__(self, stream: ByteReceiveStream) -> None:
        self._buffered = BufferedByteReceiveStream(stream)

    async def readline(self) -> bytes:
        try:
            return await self._buffered.receive_until(b"\n", MAX_HEADER_BYTES) + b"\n"
        except _ENDED:
            return b""

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._buffered.receive_exactly(n)
        except _ENDED:
            return b""


class PipeWriter:
    """A writer for pygls's protocol: ``write`` queues, ``run`` sends the queue in order."""

    def __init__(self, stream: ByteSendStream) -> None:
        self._stream = stream
        self._queue, self._queued = anyio.create_memory_object_stream[bytes](math.inf)

    def write(self, data: bytes) -> None:
        # closed: the server is being ended, nothing more is said to it
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._queue.send_nowait(data)

    def close(self) -> None:
        self._queue.close()

    async def run(self) -> None:
        """Send what is written until ``close`` (then stdin is closed) or the pipe breaks."""
        async with self._queued:
            # the server has gone: ``ServerConnection.gone`` tells its waiters
            with contextlib.suppress(*_ENDED):
                async for data in self._queued:
                    await self._stream.send(data)
        with contextlib.suppress(*_ENDED):
            await self._stream.aclose()
