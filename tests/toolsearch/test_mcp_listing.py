"""`toolbelt mcp` serving 500 MCP tools behind tool search (stdio and streamable HTTP), driven by
the official MCP client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.session import IncomingMessage
from mcp.client.stdio import stdio_client

from mcp import ClientSession, StdioServerParameters, types
from tests.mcp.http_server import start
from tests.support.toolbelt_cli import TOOLBELT_ARGS
from toolbelt.tools import builtin_toolset

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[2]
BUILTINS = list(builtin_toolset().names())
CATALOG = "tests.toolsearch.fake_catalog:searchable_toolset"


class ListChanges:
    """Records the server's ``notifications/tools/list_changed``."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.arrived = anyio.Event()

    async def __call__(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.seen.append(message.method)
            self.arrived.set()


@asynccontextmanager
async def connect(root: Path, changes: ListChanges) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--root", str(root), "--toolset", CATALOG],
        cwd=str(root),
        env={**os.environ, "PYTHONPATH": str(REPO), "HOME": str(root)},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=changes) as session:
            yield session


async def test_over_stdio_the_listing_holds_our_tools_tool_search_and_what_it_loaded(
    tmp_path: Path,
) -> None:
    changes = ListChanges()
    async with connect(tmp_path, changes) as client:
        await check_listing(client, changes)


async def test_over_http_the_same(tmp_path: Path) -> None:
    server = start(tmp_path, "--toolset", CATALOG, env={"PYTHONPATH": str(REPO)})
    try:
        changes = ListChanges()
        async with server.transport() as (read, write):
            async with ClientSession(read, write, message_handler=changes) as client:
                await check_listing(client, changes)
    finally:
        server.stop()


async def check_listing(client: ClientSession, changes: ListChanges) -> None:
    initialized = await client.initialize()
    assert initialized.capabilities.tools is not None
    assert initialized.capabilities.tools.list_changed is True
    listed = [tool.name for tool in (await client.list_tools()).tools]
    assert listed == [*BUILTINS, "tool_search"]

    found = await client.call_tool("tool_search", {"query": "select:mcp__github__get_issue"})
    assert not found.is_error
    assert found.content[0].text.startswith(  # type: ignore[union-attr]
        "Loaded 1 tool for 'select:mcp__github__get_issue'; call it by name from now on."
    )
    with anyio.fail_after(10):  # sent before the response; the client may hand it on later
        await changes.arrived.wait()
    assert changes.seen == ["notifications/tools/list_changed"]
    listed = [tool.name for tool in (await client.list_tools()).tools]
    assert listed == [*BUILTINS, "tool_search", "mcp__github__get_issue"]

    again = await client.call_tool("tool_search", {"query": "mcp__github__get_issue"})
    assert not again.is_error
    assert changes.seen == ["notifications/tools/list_changed"]  # nothing new was loaded

    # a deferred tool that was never searched for runs when called by its exact name
    refund = await client.call_tool("mcp__stripe__get_refund", {"refund_id": "re_9"})
    assert refund.content[0].text == (  # type: ignore[union-attr]
        "mcp__stripe__get_refund called with [('refund_id', 're_9')]"
    )
