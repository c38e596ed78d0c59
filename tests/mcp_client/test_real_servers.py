"""Servers nobody here wrote — server-everything, server-filesystem — and toolbelt's own server,
over stdio and streamable HTTP, called through the executor."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import anyio
import pytest

from tests.mcp.http_server import start
from tests.mcp_client.conftest import FILESYSTEM, everything_entry, node_server, write_servers
from tests.support.toolbelt_cli import TOOLBELT_ARGS
from tests.support.waiting import accepts_connections, wait_until_async
from toolbelt import Runtime, ToolCall, tool_definitions
from toolbelt.core.content import ImageBlock, TextBlock
from toolbelt.core.events import ProgressEvent
from toolbelt.core.requesters import AutoApprove
from toolbelt.core.user import UserAnswer
from toolbelt.testing import EventLog, ScriptedUser

pytestmark = pytest.mark.anyio


@pytest.fixture
def everything(workspace: Path, mark: str) -> Path:
    write_servers(workspace / ".mcp.json", {"everything": everything_entry(mark)})
    return workspace


async def test_server_everything_content_of_every_kind(everything: Path) -> None:
    async with Runtime(everything, trusted=True, requester=AutoApprove()) as runtime:
        listed = [t.name for t in await runtime.toolset.list_tools() if t.name.startswith("mcp__")]
        echo, total, image, links, embedded, structured = await runtime.run(
            [
                ToolCall("1", "mcp__everything__echo", {"message": "hi"}),
                ToolCall(
                    "2",
                    "call_mcp_tool",
                    {"server": "everything", "tool": "get-sum", "arguments": {"a": 1, "b": 2}},
                ),
                ToolCall("3", "mcp__everything__get_tiny_image", {}),
                ToolCall("4", "mcp__everything__get_resource_links", {"count": 1}),
                ToolCall("5", "mcp__everything__get_resource_reference", {"resourceType": "Blob"}),
                ToolCall("6", "mcp__everything__get_structured_content", {"location": "Chicago"}),
            ]
        )
        for provider in ("anthropic", "openai", "openai-responses", "gemini", "mcp"):
            names = [_name(d) for d in tool_definitions(runtime.toolset, provider)]
            assert set(listed) <= set(names), provider  # every remote schema converts
    assert {
        "mcp__everything__echo",
        "mcp__everything__get_sum",
        "mcp__everything__get_tiny_image",
    } <= set(listed)
    assert (echo.text, total.text) == ("Echo: hi", "The sum of 1 and 2 is 3.")
    assert [type(block) for block in image.output.content] == [TextBlock, ImageBlock, TextBlock]
    png = image.output.content[1]
    assert isinstance(png, ImageBlock) and png.mime_type == "image/png"
    assert links.output.content[1] == TextBlock(
        "[resource link demo://resource/dynamic/blob/1 (Blob Resource 1) — Resource 1: "
        "plaintext resource]"
    )
    blob = embedded.output.content[1]  # the server's blob holds a timestamp: its size varies
    assert isinstance(blob, TextBlock)
    assert re.fullmatch(
        r"\[resource demo://resource/dynamic/blob/1: text/plain, \d+ bytes, not shown\]", blob.text
    )
    assert structured.output.structured is not None
    assert set(structured.output.structured) == {"temperature", "conditions", "humidity"}


async def test_server_everything_progress_elicitation_and_cancel(everything: Path) -> None:
    user = ScriptedUser(UserAnswer("accept", data={"name": "Ann"}))
    async with Runtime(everything, trusted=True, requester=AutoApprove(), user=user) as runtime:
        log = EventLog(runtime.events)
        await runtime.toolset.list_tools()
        done = await runtime.run_one(
            ToolCall(
                "p",
                "mcp__everything__trigger_long_running_operation",
                {"duration": 0.3, "steps": 3},
            )
        )
        asked = await runtime.run_one(
            ToolCall("e", "mcp__everything__trigger_elicitation_request", {})
        )
        results = []
        async with anyio.create_task_group() as group:

            async def long() -> None:
                results.append(
                    await runtime.run_one(
                        ToolCall(
                            "c",
                            "mcp__everything__trigger_long_running_operation",
                            {"duration": 60, "steps": 60},
                        )
                    )
                )

            group.start_soon(long)
            await wait_until_async(
                lambda: any(isinstance(e, ProgressEvent) and e.call_id == "c" for e in log.events),
                "the first progress",
            )
            runtime.cancel()
        after = await runtime.run_one(ToolCall("a", "mcp__everything__echo", {"message": "after"}))
    assert done.text == "Long running operation completed. Duration: 0.3 seconds, Steps: 3."
    progress = [
        (e.message, e.fraction)
        for e in log.events
        if isinstance(e, ProgressEvent) and e.call_id == "p"
    ]
    assert progress == [("1 of 3", 1 / 3), ("2 of 3", 2 / 3), ("3 of 3", 1.0)]
    assert "- Name: Ann" in asked.text
    assert user.questions[0].prompt.startswith("The MCP server `everything` asks: ")
    assert results[0].state.value == "aborted"
    assert after.text == "Echo: after"


async def test_server_filesystem_reads_and_lists(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("first\nsecond\n")
    entry = {
        "command": "node",
        "args": [node_server(FILESYSTEM), str(shared)],
        "env": {"TOOLBELT_TEST_MARK": mark},
    }
    write_servers(workspace / ".mcp.json", {"fs": entry})
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        read, listing = await runtime.run(
            [
                ToolCall("r", "mcp__fs__read_text_file", {"path": str(shared / "notes.txt")}),
                ToolCall("l", "mcp__fs__list_directory", {"path": str(shared)}),
            ]
        )
    assert read.text == "first\nsecond\n"
    assert read.output.structured == {"content": "first\nsecond\n"}
    assert listing.text == "[FILE] notes.txt"


async def test_toolbelt_mcp_itself_over_stdio(workspace: Path, mark: str, tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "notes.txt").write_text("from the inner workspace\n")
    entry = {
        "command": sys.executable,
        "args": [*TOOLBELT_ARGS, "mcp", "--root", str(inner)],
        "env": {"TOOLBELT_TEST_MARK": mark, "XDG_CONFIG_HOME": str(tmp_path / "inner-config")},
    }
    write_servers(workspace / ".mcp.json", {"toolbelt": entry})
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        result = await runtime.run_one(
            ToolCall("r", "mcp__toolbelt__read_file", {"path": "notes.txt"})
        )
    assert result.text == "1\tfrom the inner workspace"


async def test_toolbelt_mcp_itself_over_http_with_a_token_from_the_environment(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "notes.txt").write_text("over http\n")
    server = start(inner, env={"XDG_CONFIG_HOME": str(tmp_path / "inner-config")})
    try:
        monkeypatch.setenv("INNER_TOKEN", server.token or "")
        entry = {
            "type": "http",
            "url": server.url,
            "headers": {"Authorization": "Bearer ${INNER_TOKEN}"},
        }
        write_servers(workspace / ".mcp.json", {"tb": entry})
        async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
            await runtime.toolset.list_tools()
            result = await runtime.run_one(
                ToolCall("r", "mcp__tb__read_file", {"path": "notes.txt"})
            )
    finally:
        server.stop()
    assert result.text == "1\tover http"


async def test_an_sse_server_with_headers_from_the_environment(
    workspace: Path, mark: str, monkeypatch: pytest.MonkeyPatch
) -> None:

    from tests.mcp.http_server import free_port

    port = free_port()
    script = Path(__file__).with_name("sse_server.py")
    process = await anyio.open_process(
        [sys.executable, str(script), str(port), "s3cret"],
        env={**os.environ, "TOOLBELT_TEST_MARK": mark},
        stdout=None,
        stderr=None,
    )
    try:
        await wait_until_async(lambda: accepts_connections(port), "the server to listen")
        monkeypatch.setenv("SSE_TOKEN", "s3cret")
        url = f"http://127.0.0.1:{port}/sse"
        write_servers(
            workspace / ".mcp.json",
            {
                "good": {
                    "type": "sse",
                    "url": url,
                    "headers": {"Authorization": "Bearer ${SSE_TOKEN}"},
                },
                "refused": {"type": "sse", "url": url, "startupTimeout": 10},
            },
        )
        async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
            await runtime.toolset.list_tools()
            result = await runtime.run_one(ToolCall("s", "mcp__good__echo", {"text": "hi"}))
            assert runtime.mcp_servers is not None
            refused = runtime.mcp_servers.server("refused")
            assert refused is not None
            # a 401 is a server that wants a login (as in Claude Code): nobody is asked here
            assert (refused.state, refused.tools()) == ("needs-login", ())
    finally:
        process.terminate()
        with anyio.fail_after(20):
            await process.wait()
    assert result.text == "sse: hi"
    assert refused.error == (
        "it needs a login (it answers 401 Unauthorized): run `toolbelt mcp-servers login refused`"
    )


def _name(definition: object) -> str:
    """A tool definition's name, whatever the provider's shape."""
    if isinstance(definition, dict):
        inner = definition.get("function", definition)
        return str(inner["name"])
    return str(getattr(definition, "name", ""))
