"""Calls to a server's tools through the executor: policy, progress, cancel, questions, changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest

from tests.mcp_client.conftest import fake_entry, write_servers
from tests.support.waiting import wait_until_async
from toolbelt import Runtime, ToolCall
from toolbelt.core.events import ProgressEvent
from toolbelt.core.permission import Answer, Approval
from toolbelt.core.requesters import AutoApprove
from toolbelt.core.user import UserAnswer
from toolbelt.testing import EventLog, NeverAnswers, ScriptedRequester, ScriptedUser

pytestmark = pytest.mark.anyio


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state"
    path.mkdir()
    return path


@pytest.fixture
def fake(workspace: Path, mark: str, state: Path) -> Path:
    write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, state)})
    return workspace


def allow(user_config: Path, *rules: str) -> None:
    (user_config / "settings.json").write_text(json.dumps({"permissions": {"allow": list(rules)}}))


async def test_tools_are_listed_beside_the_builtins_once_the_server_started(fake: Path) -> None:
    async with Runtime(fake, trusted=True) as runtime:
        assert "mcp__fake__echo" not in runtime.toolset  # started on first listing
        names = [tool.name for tool in await runtime.toolset.list_tools()]
    assert names[:3] == ["read_file", "write_file", "edit_file"]
    mcp = [name for name in names if name.startswith("mcp__") or name == "call_mcp_tool"]
    assert mcp[:4] == [
        "call_mcp_tool",
        "mcp__fake__echo",
        "mcp__fake__read_only_echo",
        "mcp__fake__hang",
    ]


async def test_every_call_asks_and_the_answer_is_forwarded(fake: Path) -> None:
    requester = ScriptedRequester(Answer(Approval.ONCE))
    async with Runtime(fake, trusted=True, requester=requester) as runtime:
        await runtime.toolset.list_tools()
        result = await runtime.run_one(ToolCall("c1", "mcp__fake__read_only_echo", {"text": "hi"}))
    assert (result.state.value, result.text) == ("success", "readOnlyEcho: hi")
    ((request, decision),) = requester.asked
    assert request.tool == "mcp__fake__read_only_echo"  # read-only hint or not, it asks
    assert decision.reason == (
        "`mcp__fake__read_only_echo` (tool `readOnlyEcho` of the MCP server `fake`) has effects "
        "toolbelt cannot check."
    )


async def test_a_rule_for_the_tool_governs_call_mcp_tool_too(fake: Path, user_config: Path) -> None:
    (user_config / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["mcp__fake__echo"], "deny": ["mcp__fake__crash"]}})
    )
    requester = ScriptedRequester()
    async with Runtime(fake, trusted=True, requester=requester) as runtime:
        await runtime.toolset.list_tools()
        results = await runtime.run(
            [
                ToolCall("a", "mcp__fake__echo", {"text": "named"}),
                ToolCall(
                    "b",
                    "call_mcp_tool",
                    {"server": "fake", "tool": "echo", "arguments": {"text": "proxied"}},
                ),
                ToolCall(
                    "c", "call_mcp_tool", {"server": "fake", "tool": "crash", "arguments": {}}
                ),
            ]
        )
    assert [r.text for r in results[:2]] == ["echo: named", "echo: proxied"]
    assert results[2].error_kind == "permission_denied"
    assert results[2].text.startswith("the rule `mcp__fake__crash` in ")
    assert results[2].text.endswith(
        "settings.json denies this call. Do not retry it; choose another approach or ask the "
        "user to change the rule."
    )
    assert requester.asked == []


async def test_call_mcp_tool_checks_arguments_against_the_live_schema(fake: Path) -> None:
    async with Runtime(fake, trusted=True, requester=AutoApprove()) as runtime:
        missing, unknown_tool = await runtime.run(
            [
                ToolCall("a", "call_mcp_tool", {"server": "fake", "tool": "echo", "arguments": {}}),
                ToolCall("b", "call_mcp_tool", {"server": "fake", "tool": "nope"}),
            ]
        )
    assert missing.error_kind == "invalid_input"
    assert "`text` is required" in missing.text
    assert unknown_tool.text.startswith(
        "The MCP server `fake` has no tool `nope`; its tools: `echo`,"
    )


async def test_remote_progress_becomes_progress_events(fake: Path) -> None:
    async with Runtime(fake, trusted=True, requester=AutoApprove()) as runtime:
        log = EventLog(runtime.events)
        await runtime.toolset.list_tools()
        result = await runtime.run_one(ToolCall("p", "mcp__fake__progress", {}))
    assert result.text == "done"
    progress = [(e.message, e.fraction) for e in log.events if isinstance(e, ProgressEvent)]
    assert progress == [("step 1", 1 / 3), ("step 2", 2 / 3), ("step 3", 1.0)]


async def test_cancelling_a_call_stops_the_remote_work(fake: Path, state: Path) -> None:
    async with Runtime(fake, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        async with anyio.create_task_group() as group:
            results = []

            async def call() -> None:
                results.append(await runtime.run_one(ToolCall("s", "mcp__fake__sleeper", {})))

            group.start_soon(call)
            pid_file = state / "sleeper.pid"
            await wait_until_async(pid_file.exists, "the remote work to start")
            runtime.cancel()
        assert results[0].state.value == "aborted"
        await wait_until_async(
            lambda: (state / "cancelled").exists(), "the server to cancel the work"
        )
        # the server received notifications/cancelled and ended the work's process
        assert not Path(f"/proc/{pid_file.read_text()}").exists()
        echo = await runtime.run_one(ToolCall("e", "mcp__fake__echo", {"text": "still here"}))
    assert echo.text == "echo: still here"


async def test_an_elicitation_reaches_the_person_and_their_answer_the_server(fake: Path) -> None:
    user = ScriptedUser(UserAnswer("accept", data={"color": "blue"}))
    async with Runtime(fake, trusted=True, requester=AutoApprove(), user=user) as runtime:
        await runtime.toolset.list_tools()
        result = await runtime.run_one(ToolCall("q", "mcp__fake__ask", {}))
    assert json.loads(result.text) == {"action": "accept", "content": {"color": "blue"}}
    (question,) = user.questions
    assert question.prompt == "The MCP server `fake` asks: Which color?"
    assert question.schema is not None and question.schema["required"] == ["color"]


async def test_without_a_person_the_elicitation_is_declined(fake: Path) -> None:
    async with Runtime(fake, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        result = await runtime.run_one(ToolCall("q", "mcp__fake__ask", {}))
    assert json.loads(result.text) == {"action": "decline", "content": None}


async def test_a_changed_tool_list_is_followed(fake: Path) -> None:
    async with Runtime(fake, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        assert "mcp__fake__added" not in runtime.toolset
        await runtime.run_one(ToolCall("c", "mcp__fake__change", {}))
        await wait_until_async(
            lambda: "mcp__fake__added" in runtime.toolset, "the changed tool list to arrive"
        )
        result = await runtime.run_one(ToolCall("a", "mcp__fake__added", {"text": "new"}))
    assert result.text == "added: new"


async def test_closing_ends_the_servers_whole_process_tree(fake: Path, state: Path) -> None:
    async with Runtime(fake, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        result = await runtime.run_one(ToolCall("d", "mcp__fake__detach", {}))
        assert result.text == "detached"
        escaped = int((state / "detached.pid").read_text())
        assert os.getpgid(escaped) != os.getpgid(os.getpid())  # out of any group we could kill
    assert not Path(f"/proc/{escaped}").exists() or _zombie(escaped)


async def test_a_call_waiting_for_permission_starts_nothing_remote(fake: Path, state: Path) -> None:
    requester = NeverAnswers()
    async with Runtime(fake, trusted=True, requester=requester) as runtime:
        await runtime.toolset.list_tools()
        async with anyio.create_task_group() as group:
            group.start_soon(runtime.run_one, ToolCall("s", "mcp__fake__sleeper", {}))
            await requester.asking.wait()
            runtime.cancel()
    assert not (state / "sleeper.pid").exists()


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


async def test_hooks_see_the_mcp_name(fake: Path, user_config: Path, tmp_path: Path) -> None:
    seen = tmp_path / "hook-input.json"
    hook = {"type": "command", "command": f"cat > {seen}"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "mcp__fake__.*", "hooks": [hook]}]}}
    (user_config / "settings.json").write_text(json.dumps(settings))
    async with Runtime(fake, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        result = await runtime.run_one(ToolCall("h", "mcp__fake__echo", {"text": "hooked"}))
    assert result.text == "echo: hooked"
    hook_input = json.loads(seen.read_text())
    assert (hook_input["tool_name"], hook_input["tool_input"]) == (
        "mcp__fake__echo",
        {"text": "hooked"},
    )


async def test_two_servers_whose_names_read_the_same_keep_apart(
    workspace: Path, mark: str, state: Path
) -> None:
    entry = fake_entry(mark, state)
    write_servers(workspace / ".mcp.json", {"my-fake": entry, "my_fake": entry})
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        first, second = await runtime.run(
            [
                ToolCall("1", "mcp__my_fake__echo", {"text": "one"}),
                ToolCall("2", "mcp__my_fake_2__echo", {"text": "two"}),
            ]
        )
    assert (first.text, second.text) == ("echo: one", "echo: two")


async def test_an_eager_server_starts_when_the_runtime_opens(
    workspace: Path, mark: str, state: Path
) -> None:
    write_servers(
        workspace / ".mcp.json", {"fake": {**fake_entry(mark, state), "startup": "eager"}}
    )
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        assert (state / "started").exists()
        result = await runtime.run_one(ToolCall("1", "mcp__fake__echo", {"text": "ready"}))
    assert result.text == "echo: ready"
