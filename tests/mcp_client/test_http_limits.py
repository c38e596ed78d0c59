"""A remote HTTP server cannot make toolbelt hold more than a stdio server can (16 MB a
message): an oversize answer fails that call with the stdio error's words, and the session
goes on. Against a real MCP server on 127.0.0.1, answering with a JSON body or an event stream.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.mcp.http_server import free_port
from tests.mcp_client.conftest import write_servers
from tests.support.waiting import accepts_connections, wait_until_async
from toolbelt import Runtime, ToolCall
from toolbelt.core.requesters import AutoApprove
from toolbelt.mcp_client.http_limits import _CappedStream
from toolbelt.mcp_client.stdio import MAX_MESSAGE_BYTES

pytestmark = pytest.mark.anyio
SERVER = Path(__file__).with_name("http_fake_server.py")


async def serve(mode: str, mark: str) -> tuple[anyio.abc.Process, str]:
    """``http_fake_server.py`` in ``mode`` on a free port, once it accepts connections."""
    port = free_port()
    process = await anyio.open_process(
        [sys.executable, str(SERVER), str(port), mode],
        env={**os.environ, "TOOLBELT_TEST_MARK": mark},
        stdout=None,
        stderr=None,
    )
    await wait_until_async(lambda: accepts_connections(port), "the server to listen")
    return process, f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("mode", ["json", "sse"])
async def test_an_oversize_answer_fails_the_call_and_the_session_goes_on(
    workspace: Path, mark: str, mode: str
) -> None:
    process, url = await serve(mode, mark)
    try:
        write_servers(workspace / ".mcp.json", {"big": {"type": "http", "url": url}})
        async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
            huge = await runtime.run_one(
                ToolCall("a", "mcp__big__big", {"size": MAX_MESSAGE_BYTES + 1})
            )
            small = await runtime.run_one(ToolCall("b", "mcp__big__big", {"size": 5}))
    finally:
        process.terminate()
        with anyio.fail_after(20):
            await process.wait()
    assert (huge.state.value, huge.text) == (
        "error",
        "The MCP server `big` sent a message larger than 16 MB, the most toolbelt accepts, as "
        "its answer to `big`, so it was dropped; ask it for less (a narrower query or a "
        "smaller page).",
    )
    assert (small.state.value, small.text) == ("success", "xxxxx")


class _Chunks(httpx2.AsyncByteStream):
    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


async def _read(stream: httpx2.AsyncByteStream) -> bytes:
    return b"".join([chunk async for chunk in stream])


async def test_an_event_stream_is_capped_per_event_not_in_total() -> None:
    events = [b"data: " + b"x" * 8 + b"\n\n"] * 10  # 16 bytes each, 160 in all
    assert len(await _read(_CappedStream(_Chunks(*events), 20, events=True))) == 160
    # an end split across chunks (\n | \n) still ends the event
    split = (b"data: xxxxxxxxxx\n", b"\ndata: yyyyyyyyyy\n", b"\n")
    assert len(await _read(_CappedStream(_Chunks(*split), 20, events=True))) == 36
    with pytest.raises(httpx2.SSEError, match="larger than 16 MB"):
        await _read(_CappedStream(_Chunks(b"data: ", b"x" * 30, b"\n\n"), 20, events=True))
    with pytest.raises(httpx2.StreamError, match="larger than 16 MB"):
        await _read(_CappedStream(_Chunks(*events), 20, events=False))
