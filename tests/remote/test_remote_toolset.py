"""`toolbelt.RemoteToolset` driving a real `toolbelt mcp --http` subprocess: the remote tools
under their own names in a local runtime, the remote policy deciding (a call it denies comes
back denied, nothing done), the calls' events — states and the command's progress — arriving
on the local runtime's event bus."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolbelt
from tests.support.fleet_server import serve
from toolbelt.testing import EventLog

pytestmark = pytest.mark.anyio


async def test_remote_tools_run_on_the_server_under_its_policy_with_local_events(
    tmp_path: Path,
) -> None:
    workspace, local = tmp_path / "sandbox", tmp_path / "local"
    workspace.mkdir()
    local.mkdir()
    (workspace / "notes.txt").write_text("remote line\n")
    server = serve(workspace, tmp_path / "ready.json", "--mode", "dont_ask")
    try:
        remote = toolbelt.RemoteToolset(server.url, token=server.token)
        bus = toolbelt.EventBus()
        log = EventLog(bus)
        options = toolbelt.RuntimeOptions(events=bus)
        async with toolbelt.Runtime(local, toolset=remote, options=options) as runtime:
            local_names = set(toolbelt.builtin_toolset().names())
            assert {"read_file", "bash", "edit_file"} <= set(runtime.toolset.names())
            assert set(runtime.toolset.names()) <= local_names
            read, listed, denied = await runtime.run(
                [
                    toolbelt.ToolCall("r1", "read_file", {"path": "notes.txt"}),
                    toolbelt.ToolCall("b1", "bash", {"command": "echo first; echo second"}),
                    toolbelt.ToolCall("w1", "write_file", {"path": "made.txt", "content": "x"}),
                ]
            )
        assert read.state is toolbelt.CallState.SUCCESS
        assert "remote line" in read.text  # read in the server's workspace, not the local one
        assert listed.state is toolbelt.CallState.SUCCESS
        assert "first\nsecond" in listed.text
        assert denied.is_error
        assert "The permission mode is dont_ask" in denied.text  # the remote policy's words
        assert not (workspace / "made.txt").exists()
        assert not (local / "made.txt").exists()
        for call_id, final in (("r1", "success"), ("b1", "success"), ("w1", "error")):
            assert log.states(call_id)[-2:] == ["executing", final]
        progress = "".join(
            e.message
            for e in log.events
            if isinstance(e, toolbelt.ProgressEvent) and e.call_id == "b1"
        )
        assert "first" in progress  # the remote command's output, as local progress events
    finally:
        server.stop()


async def test_a_wrong_token_is_refused_before_any_tool_is_listed(tmp_path: Path) -> None:
    server = serve(tmp_path, tmp_path / "ready.json")
    try:
        remote = toolbelt.RemoteToolset(server.url, token="not-the-token", retries=0)
        with pytest.raises(toolbelt.ConnectionLostError, match="could not be started"):
            async with remote:
                pass
    finally:
        server.stop()


async def test_a_call_after_the_server_restarted_reconnects_and_is_retried(tmp_path: Path) -> None:
    ready = tmp_path / "ready.json"
    first = serve(tmp_path, ready, "--mode", "bypass")
    port = int(first.url.rsplit(":", 1)[1].removesuffix("/mcp"))
    remote = toolbelt.RemoteToolset(first.url, token=first.token, retries=5)
    second = None
    try:
        async with toolbelt.Runtime(tmp_path, toolset=remote) as runtime:
            before = await runtime.run_one(toolbelt.ToolCall("c1", "bash", {"command": "echo $$"}))
            assert before.state is toolbelt.CallState.SUCCESS
            first.process.kill()  # the sandbox crashed; its replacement takes the same address
            first.process.wait()
            second = serve(tmp_path, ready, "--mode", "bypass", port=port)
            after = await runtime.run_one(toolbelt.ToolCall("c2", "bash", {"command": "echo $$"}))
        assert after.state is toolbelt.CallState.SUCCESS, after.text
        assert after.text.split()[0] != before.text.split()[0]  # another server's shell
    finally:
        first.stop()
        if second is not None:
            second.stop()
