"""The 2026-07-28 wire: `server/discover` instead of initialize, no sessions on HTTP, and
permission questions as `input_required` results that the client answers by retrying."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.types import ElicitResult
from tests.mcp.http_server import start
from tests.support.processes import alive
from tests.support.toolbelt_cli import TOOLBELT_ARGS
from tests.support.waiting import wait_until_async

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio


def answering(decision: str) -> Any:
    asked: list[str] = []

    async def elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"decision": decision})

    elicit.asked = asked  # type: ignore[attr-defined]
    return elicit


async def test_stdio_discover_and_input_required(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=[*TOOLBELT_ARGS, "mcp", "--root", str(tmp_path)]
    )
    elicit = answering("allow_once")
    async with Client(params, elicitation_callback=elicit) as client:
        assert client.session.discover_result is not None
        assert client.session.discover_result.supported_versions == ["2026-07-28"]
        result = await client.call_tool("write_file", {"path": "new.txt", "content": "n\n"})
    assert result.is_error is False
    assert (tmp_path / "new.txt").read_text() == "n\n"
    assert elicit.asked[0].startswith("toolbelt wants to run `write_file`: create new.txt")


async def test_stateless_http_keeps_state_in_the_process_and_asks_by_retry(tmp_path: Path) -> None:
    running = start(tmp_path)
    try:
        allow = answering("allow_once")
        async with running.client(elicitation_callback=allow) as client:
            assert client.session.discover_result is not None
            made = await client.call_tool("bash", {"command": "touch made.txt && echo done"})
            assert (made.is_error, made.content[0].text) == (False, "done")
            await client.call_tool(
                "todo_write", {"todos": [{"id": "1", "content": "a", "status": "pending"}]}
            )
        # a second client, no session: the workspace's state is the server process's
        async with running.client(elicitation_callback=answering("deny")) as again:
            listed = await again.call_tool("todo_read", {})
            assert listed.content[0].text == "[ ] 1. a"
            outside = {"command": "touch other.txt", "sandbox": False, "justification": "t"}
            refused = await again.call_tool("bash", outside)  # asks, whatever the sandbox
            assert refused.is_error
        assert (tmp_path / "made.txt").exists()
        assert not (tmp_path / "other.txt").exists()
    finally:
        running.stop()


async def test_closing_the_response_stream_cancels_the_call(tmp_path: Path) -> None:
    import httpx

    running = start(tmp_path, "--mode", "bypass")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "bash",
            "arguments": {"command": f"sleep 4848{os.getpid()}"},
            "_meta": meta,
        },
    }
    headers = {
        **running.headers,
        "mcp-protocol-version": "2026-07-28",
        "accept": "application/json, text/event-stream",
    }
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            async with client.stream("POST", running.url, json=body, headers=headers) as response:
                assert response.status_code == 200
                await wait_until_async(
                    lambda: alive(f"sleep 4848{os.getpid()}"), "the command to start"
                )
            # leaving the block closed the stream: the 2026-07-28 cancel signal
        await wait_until_async(lambda: not alive(f"sleep 4848{os.getpid()}"), "the command to end")
    finally:
        running.stop()
