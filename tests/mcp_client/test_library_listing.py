"""A library call of an MCP tool works without listing the toolset first, as the CLI does:
an unknown ``mcp__`` name lists the toolset (starting its servers) once before it is refused."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.mcp_client.conftest import fake_entry, write_servers
from toolbelt import Runtime, ToolCall
from toolbelt.core.requesters import AutoApprove

pytestmark = pytest.mark.anyio


async def test_a_call_starts_the_server_without_a_listing_first(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, tmp_path)})
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        first = await runtime.run_one(ToolCall("c1", "mcp__fake__echo", {"text": "hi"}))
        (missing,) = await runtime.run([ToolCall("c2", "mcp__fake__nope", {})])
        again = await runtime.run_one(ToolCall("c3", "mcp__fake__nope", {}))
    assert (first.state.value, first.text) == ("success", "echo: hi")
    assert missing.text.startswith("There is no tool named `mcp__fake__nope`.")
    assert again.text == missing.text
    assert (tmp_path / "started").read_text().count("\n") == 1  # one start, no restart


async def test_a_server_that_cannot_start_is_tried_once_per_unknown_name(
    workspace: Path, tmp_path: Path
) -> None:
    tries = tmp_path / "tries"
    script = f"import sys; open({str(tries)!r}, 'a').write('x\\n'); sys.exit(1)"
    write_servers(
        workspace / ".mcp.json", {"broken": {"command": sys.executable, "args": ["-c", script]}}
    )
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        for call_id in ("a", "b", "c"):
            result = await runtime.run_one(ToolCall(call_id, "mcp__broken__x", {}))
            # the server's tool is missing because the server is: the model is told so
            assert result.text.startswith("The MCP server `broken` could not be started (")
        await runtime.run_one(ToolCall("d", "read_fil", {}))  # not an MCP name: no listing
    assert tries.read_text() == "x\n"
