"""What HTTP clients share and what they never do: background jobs, approvals, spill files."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.types import ElicitResult
from tests.mcp.http_server import start
from tests.support.mcp_requests import INITIALIZE

pytestmark = pytest.mark.anyio


async def test_stateless_clients_get_no_background_jobs_and_see_none(tmp_path: Path) -> None:
    server = start(tmp_path, "--mode", "bypass")
    try:
        async with server.client() as first, server.client() as second:
            started = await first.call_tool(
                "bash", {"command": f"sleep 53{os.getpid()}", "run_in_background": True}
            )
            assert started.is_error
            assert started.content[0].text == (
                "Background jobs are off in this session, as no later call could be tied to "
                "this one to read the job's output or stop it: run the command in the foreground "
                "instead (raise timeout_ms if it takes long)."
            )
            looked = await second.call_tool("bash_output", {"id": "bg-00000000"})
            assert looked.content[0].text.endswith("known jobs: none.")
        async with server.client(mode="legacy") as session_client:
            own = await session_client.call_tool(
                "bash", {"command": "echo started", "run_in_background": True}
            )
            assert own.is_error is False  # a session keeps its jobs, ended with the session
    finally:
        server.stop()


def choosing(decision: str, offered: list[list[str]]) -> Any:
    async def elicit(context: Any, params: Any) -> ElicitResult:
        offered.append(params.requested_schema["properties"]["decision"]["enum"])
        return ElicitResult(action="accept", content={"decision": decision})

    return elicit


async def test_a_stateless_clients_session_approval_lets_no_other_client_run(
    tmp_path: Path,
) -> None:
    server = start(tmp_path)  # default mode: a new file is asked about
    try:
        # an untrusted workspace (the test's) is offered no "always": it would be ignored
        offered: list[list[str]] = []
        forged = choosing("allow_session", offered)  # not offered, sent anyway
        async with server.client(elicitation_callback=forged) as first:
            made = await first.call_tool("write_file", {"path": "a.txt", "content": "a\n"})
        assert made.is_error is False
        assert offered == [["allow_once", "deny"]]
        async with server.client(elicitation_callback=choosing("deny", offered)) as second:
            refused = await second.call_tool("write_file", {"path": "b.txt", "content": "b\n"})
        assert refused.is_error
        assert len(offered) == 2  # the second client was asked, not let through
        assert not (tmp_path / "b.txt").exists()
        legacy = choosing("deny", offered)
        async with server.client(mode="legacy", elicitation_callback=legacy) as in_session:
            await in_session.call_tool("write_file", {"path": "c.txt", "content": "c\n"})
        assert offered[2] == ["allow_once", "allow_session", "deny"]
    finally:
        server.stop()


async def test_spill_directories_are_random_private_and_removed_with_the_session(
    tmp_path: Path,
) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    root = tmp_path / "root"
    root.mkdir()
    server = start(root, "--mode", "bypass", env={"XDG_RUNTIME_DIR": str(runtime)})
    try:
        async with httpx.AsyncClient(timeout=30, headers=server.headers) as http:
            opened = await http.post(server.url, json=INITIALIZE)
            session_id = opened.headers["mcp-session-id"]
            headers = {
                "mcp-session-id": session_id,
                "accept": "application/json, text/event-stream",
            }
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "bash", "arguments": {"command": "seq 1 20000"}},
            }
            spilled = await http.post(server.url, json=call, headers=headers)
            spill_root = runtime / f"toolbelt-{os.getuid()}"
            [directory] = list(spill_root.iterdir())
            assert f"is in {directory}/" in spilled.text  # the model is told where the rest is
            assert session_id not in str(directory)
            assert stat.S_IMODE(directory.stat().st_mode) == 0o700
            assert any(directory.iterdir())  # the command's full output is there
            ended = await http.delete(server.url, headers={"mcp-session-id": session_id})
            assert ended.status_code == 204
            assert list(spill_root.iterdir()) == []
    finally:
        server.stop()
