"""Hostile MCP servers over HTTP and SSE (issue #32, items 5–10), through real HTTP on 127.0.0.1.

Each test runs ``tests/support/hostile_mcp_server.py`` in one attack beside a well-behaved
server (``fake_server.py`` over stdio) in the same runtime, and checks that the attack is
bounded — in count, size and time — while the well-behaved server's calls keep being answered.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.mcp.http_server import free_port
from tests.mcp_client.conftest import fake_entry, write_servers
from toolbelt import Runtime, ToolCall
from toolbelt.core.content import ImageBlock, TextBlock
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.requesters import AutoApprove
from toolbelt.shell.output import spill_dir

pytestmark = pytest.mark.anyio
HOSTILE = Path(__file__).parents[1] / "support" / "hostile_mcp_server.py"


class Hostile:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def stats(self) -> dict[str, Any]:
        return dict(httpx.get(f"{self.base}/stats", timeout=10).json())


@asynccontextmanager
async def hostile_server(mark: str, behaviour: str, size: int) -> AsyncIterator[Hostile]:
    port = free_port()
    process = await anyio.open_process(
        [sys.executable, str(HOSTILE), str(port), behaviour, str(size)],
        env={**os.environ, "TOOLBELT_TEST_MARK": mark},
        stdout=None,
        stderr=None,
    )
    try:
        with anyio.fail_after(30):
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    await anyio.sleep(0.05)
        yield Hostile(port)
    finally:
        process.terminate()
        with anyio.fail_after(20):
            await process.wait()


@asynccontextmanager
async def beside_a_good_server(
    workspace: Path, mark: str, tmp_path: Path, hostile: Hostile, **entry: Any
) -> AsyncIterator[Runtime]:
    """A runtime with the hostile server as ``h`` and a well-behaved stdio server as ``good``."""
    url = entry.pop("url", f"{hostile.base}/mcp")
    kind = entry.pop("type", "http")
    servers = {"h": {"type": kind, "url": url, **entry}, "good": fake_entry(mark, tmp_path)}
    write_servers(workspace / ".mcp.json", servers)
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        yield runtime


async def good_echo(runtime: Runtime, text: str) -> ToolCallResult:
    with anyio.fail_after(10):
        return await runtime.run_one(ToolCall(f"good-{text}", "mcp__good__echo", {"text": text}))


@pytest.mark.parametrize(("listed", "startup"), [(20_000, 5), (100_000, 20)])
async def test_a_server_listing_too_many_tools_gives_1000_within_its_start_up_time(
    workspace: Path, mark: str, tmp_path: Path, listed: int, startup: int
) -> None:
    """20,000 tools took 38 s against a start-up time of 5 s; 100,000 (13 MB) never ended."""
    async with (
        hostile_server(mark, "tools", listed) as hostile,
        beside_a_good_server(workspace, mark, tmp_path, hostile, startupTimeout=startup) as runtime,
    ):
        with anyio.fail_after(30):
            tools = [tool.name for tool in await runtime.toolset.list_tools()]
        assert runtime.mcp_servers is not None
        server = runtime.mcp_servers.server("h")
        assert server is not None
        first = await runtime.run_one(ToolCall("t", "mcp__h__t0", {"text": "x"}))
        good = await good_echo(runtime, "served")
        assert (server.state, server.error) == ("running", None)
    assert len([name for name in tools if name.startswith("mcp__h__")]) == 1000
    assert "mcp__h__t999" in tools and "mcp__h__t1000" not in tools
    named = ", ".join(f"'t{i}'" for i in range(1000, 1020))
    assert server.skipped == [
        f"{listed - 1000:,} tools past the first 1,000 were left out, toolbelt takes no more "
        f"from one server: {named} and {listed - 1020:,} more"
    ]
    assert (first.text, good.text) == ("echo: x", "echo: served")


async def test_list_changed_floods_cost_one_listing_at_a_time(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    """2,000 ``list_changed`` during one call: one listing in flight, one pending."""
    async with (
        hostile_server(mark, "list_changed", 2000) as hostile,
        beside_a_good_server(workspace, mark, tmp_path, hostile) as runtime,
    ):
        await runtime.toolset.list_tools()
        with anyio.fail_after(20):
            spam = await runtime.run_one(ToolCall("s", "mcp__h__spam", {}))
        good = await good_echo(runtime, "served")
        with anyio.fail_after(10):
            after = await runtime.run_one(ToolCall("e", "mcp__h__echo", {"text": "next"}))
        stats = hostile.stats()
    assert (spam.text, good.text, after.text) == ("spam: done", "echo: served", "echo: next")
    assert stats["max_listings"] == 1
    assert stats["methods"]["tools/list"] < 200  # 2,001 when each notification listed anew


async def test_an_unreadable_legacy_sse_answer_fails_its_call_at_once_in_one_line(
    workspace: Path, mark: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    async with (
        hostile_server(mark, "bad_sse", 1) as hostile,
        beside_a_good_server(
            workspace, mark, tmp_path, hostile, type="sse", url=f"{hostile.base}/sse"
        ) as runtime,
    ):
        await runtime.toolset.list_tools()
        with anyio.fail_after(15):  # the call's own timeout is 300 s
            deep = await runtime.run_one(ToolCall("d", "mcp__h__deep", {}))
            shaped = await runtime.run_one(ToolCall("u", "mcp__h__bad_utf8", {}))
        good = await good_echo(runtime, "served")
        with anyio.fail_after(10):
            after = await runtime.run_one(ToolCall("e", "mcp__h__echo", {"text": "next"}))
    assert (deep.error_kind, deep.text) == (
        "tool_error",
        "The MCP server `h` answered `deep` with a message toolbelt cannot read (Invalid JSON: "
        "recursion limit exceeded at line 1 column 234), so the call failed; try again, or "
        "continue without it.",
    )
    assert shaped.text == (
        "The MCP server `h` answered `bad_utf8` with a message toolbelt cannot read (`result`: "
        "Input should be an object), so the call failed; try again, or continue without it."
    )
    assert (good.text, after.text) == ("echo: served", "echo: next")
    err = capfd.readouterr().err
    assert "Traceback" not in err
    sdk_lines = [line for line in err.splitlines() if line.startswith("toolbelt: MCP: ")]
    assert sdk_lines == [
        "toolbelt: MCP: Error parsing server message (ValidationError: 1 validation error for "
        "union[JSONRPCRequest,JSONRPCNotification,JSONRPCResponse,JSONRPCError])",
        "toolbelt: MCP: Error parsing server message (ValidationError: 4 validation errors for "
        "union[JSONRPCRequest,JSONRPCNotification,JSONRPCResponse,JSONRPCError])",
    ]


async def test_retry_zero_cannot_make_the_client_reconnect_in_a_loop(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    """Every GET stream says ``retry: 0`` and ends; a call's stream ends with no answer."""
    async with (
        hostile_server(mark, "retry0", 1) as hostile,
        beside_a_good_server(workspace, mark, tmp_path, hostile, timeout=6) as runtime,
    ):
        await runtime.toolset.list_tools()
        with anyio.fail_after(20):
            dropped = await runtime.run_one(ToolCall("d", "mcp__h__drop", {}))
        good = await good_echo(runtime, "served")
        with anyio.fail_after(10):
            after = await runtime.run_one(ToolCall("e", "mcp__h__echo", {"text": "next"}))
        gets = hostile.stats()["gets"]
    assert dropped.error_kind == "tool_error"
    assert (good.text, after.text) == ("echo: served", "echo: next")
    # at most one stream a second, doubling: 1 + 1 + 2 + 4 s fill the call's 6 s (hundreds
    # a second when the client believed retry: 0)
    assert 2 <= gets <= 6


async def test_images_are_capped_by_count_and_bytes_the_rest_saved_and_described(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    async with (
        hostile_server(mark, "images", 2000) as hostile,
        beside_a_good_server(workspace, mark, tmp_path, hostile) as runtime,
    ):
        await runtime.toolset.list_tools()
        with anyio.fail_after(60):
            many = await runtime.run_one(ToolCall("many", "mcp__h__images", {}))
            one = await runtime.run_one(ToolCall("one", "mcp__h__one_image", {}))
        good = await good_echo(runtime, "served")
        spill = spill_dir(runtime.session.id)
        many_saved = sorted(p.name for p in (spill / "mcp-many-images").iterdir())
        one_saved = [p.stat().st_size for p in (spill / "mcp-one-images").iterdir()]
    images = [block for block in many.output.content if isinstance(block, ImageBlock)]
    notes = [block.text for block in many.output.content if isinstance(block, TextBlock)]
    assert (len(many.output.content), len(images)) == (9, 8)
    assert notes == [
        "[1,992 more images (2,039,808 bytes) not shown: a result shows at most 8 images and "
        f"5 MB of them; they are saved as {spill}/mcp-many-images/image-NNNNN.*, ask for "
        "fewer or smaller images]"
    ]
    assert (len(many_saved), many_saved[0], many_saved[-1]) == (
        1992,
        "image-00001.png",
        "image-01992.png",
    )
    assert [type(block) for block in one.output.content] == [TextBlock]
    assert one.output.content[0].text.startswith(  # type: ignore[union-attr]
        "[1 more image (6,291,456 bytes) not shown: a result shows at most 8 images and 5 MB"
    )
    assert (one_saved, good.text) == ([6_291_456], "echo: served")


async def test_a_flood_of_server_requests_holds_up_neither_the_result_nor_the_next_call(
    workspace: Path, mark: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """1,500 sampling, roots and elicitation requests in a burst, then the call's result;
    each answer takes the server 20 ms to accept."""
    async with (
        hostile_server(mark, "flood", 1500) as hostile,
        beside_a_good_server(workspace, mark, tmp_path, hostile, timeout=30) as runtime,
    ):
        await runtime.toolset.list_tools()
        with anyio.fail_after(10):
            flood = await runtime.run_one(ToolCall("f", "mcp__h__flood", {}))
        with anyio.fail_after(5):  # 30 s when every answer was posted before it
            after = await runtime.run_one(ToolCall("e", "mcp__h__echo", {"text": "next"}))
        good = await good_echo(runtime, "served")
        stats = hostile.stats()
    assert (flood.text, after.text, good.text) == ("flood: done", "echo: next", "echo: served")
    assert 16 <= stats["answers"] < 200
    assert (
        "toolbelt: MCP: the MCP server `h` sent more than 16 requests at once; the ones past "
        "them are not answered"
    ) in capfd.readouterr().err.splitlines()
