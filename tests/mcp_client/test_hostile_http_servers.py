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
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.requesters import AutoApprove

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
    servers = {"h": {"type": "http", "url": url, **entry}, "good": fake_entry(mark, tmp_path)}
    write_servers(workspace / ".mcp.json", servers)
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        yield runtime


async def good_echo(runtime: Runtime, text: str) -> ToolCallResult:
    with anyio.fail_after(10):
        return await runtime.run_one(ToolCall(f"good-{text}", "mcp__good__echo", {"text": text}))


async def test_a_server_listing_20000_tools_gives_1000_within_its_start_up_time(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    async with (
        hostile_server(mark, "tools", 20_000) as hostile,
        beside_a_good_server(workspace, mark, tmp_path, hostile, startupTimeout=5) as runtime,
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
        "19,000 tools past the first 1,000 were left out, toolbelt takes no more from one "
        f"server: {named} and 18,980 more"
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
