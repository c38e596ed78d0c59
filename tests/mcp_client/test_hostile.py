"""A server that misbehaves costs one call a clear error; the session and the next call survive."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp_client.conftest import fake_entry, write_servers
from toolbelt import Runtime, ToolCall
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.requesters import AutoApprove

pytestmark = pytest.mark.anyio


@pytest.fixture
def hostile(workspace: Path, mark: str, tmp_path: Path) -> Path:
    entry = fake_entry(mark, tmp_path, FAKE_EXTRA_TOOLS="1")
    # `hasty` gives a call 1 s: only the tool that never answers is called there
    write_servers(workspace / ".mcp.json", {"bad": entry, "hasty": {**entry, "timeout": 1}})
    return workspace


async def call_then_echo(
    workspace: Path, tool: str, server: str = "bad"
) -> tuple[ToolCallResult, ToolCallResult, str]:
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        first = await runtime.run_one(ToolCall("1", f"mcp__{server}__{tool}", {}))
        second = await runtime.run_one(ToolCall("2", f"mcp__{server}__echo", {"text": "alive"}))
        assert runtime.mcp_servers is not None
        state = runtime.mcp_servers.server(server).state  # type: ignore[union-attr]
    return first, second, state


async def test_a_server_that_never_answers_times_out(hostile: Path) -> None:
    first, second, state = await call_then_echo(hostile, "hang", "hasty")
    assert (first.error_kind, first.text) == (
        "tool_error",
        "The MCP server `hasty` did not answer `hang` within 1 s, so the call was cancelled; "
        "try again later or with less work.",
    )
    assert (second.text, state) == ("echo: alive", "running")


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        ("huge", "it sent a message larger than 16 MB, the most toolbelt accepts"),
        ("garbage", "it wrote a line that is not JSON ('this is not JSON-RPC')"),
        ("deep", "it sent JSON nested too deeply to read"),
    ],
)
async def test_a_server_breaking_the_protocol_is_disconnected_and_restarted(
    hostile: Path, tool: str, why: str
) -> None:
    first, second, state = await call_then_echo(hostile, tool)
    assert first.error_kind == "tool_error"
    assert first.text.startswith(f"The MCP server `bad` stopped during `{tool}` ({why}")
    assert first.text.endswith(
        "and was disconnected); it restarts on the next call, but check whether the work was "
        "done first."
    )
    assert len(first.text) < 1000
    assert (second.text, state) == ("echo: alive", "running")


async def test_a_crashed_server_is_restarted_on_the_next_call(hostile: Path) -> None:
    first, second, state = await call_then_echo(hostile, "crash")
    assert first.text.startswith("The MCP server `bad` stopped during `crash` (")
    assert "fake server: crashing on purpose" in first.text  # its stderr says why
    assert (second.text, state) == ("echo: alive", "running")


async def test_tools_with_a_ref_loop_or_odd_names_are_usable(hostile: Path) -> None:
    async with Runtime(hostile, trusted=True, requester=AutoApprove()) as runtime:
        tools = {tool.name: tool for tool in await runtime.toolset.list_tools()}
        assert runtime.mcp_servers is not None
        server = runtime.mcp_servers.servers[0]
        odd = await runtime.run_one(ToolCall("o", "mcp__bad__odd_name", {"text": "ü"}))
        twin = await runtime.run_one(ToolCall("t", "mcp__bad__odd_name_u", {"text": "x"}))
    # the `$ref` loop is cut at its second turn: the tool is listed, its schema finite
    assert server.skipped == []
    node = tools["mcp__bad__loop"].input_schema()["properties"]["node"]
    assert node["properties"]["next"] == {"description": "Same shape as `node` (nested)."}
    assert odd.text == "odd name/ü!: ü"
    assert twin.text == "odd_name_u: x"


async def test_a_server_that_never_initializes_fails_within_its_start_up_time(
    workspace: Path, mark: str
) -> None:
    silent = {"command": "sleep", "args": ["1000"], "startupTimeout": 1}
    silent["env"] = {"TOOLBELT_TEST_MARK": mark}
    write_servers(workspace / ".mcp.json", {"silent": silent})
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        names = [tool.name for tool in await runtime.toolset.list_tools()]
        result = await runtime.run_one(
            ToolCall("c", "call_mcp_tool", {"server": "silent", "tool": "anything"})
        )
        assert runtime.mcp_servers is not None
        server = runtime.mcp_servers.servers[0]
        assert (server.state, server.error) == ("failed", "it did not finish starting within 1 s")
    assert "read_file" in names  # the other tools are unaffected
    assert result.text == (
        "The MCP server `silent` could not be started (it did not finish starting within 1 s); "
        "continue without its tools or ask the user to fix its configuration."
    )
