"""Command hooks with real shell scripts: allow, deny, block, rewrite, fail, time out, cancel."""

from __future__ import annotations

import contextlib
import functools
import json
import os
from pathlib import Path

import anyio
import pytest
from pydantic import ValidationError
from tests.support.processes import ended
from tests.tools.helpers import Harness

from toolbelt.config.factory import build_hooks
from toolbelt.config.settings import load_settings
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCall
from toolbelt.core.registry import CombinedToolset, ToolRegistry
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.hooks import command as command_module
from toolbelt.hooks.command import MAX_OUTPUT, HookOutcome, run_command_hook
from toolbelt.hooks.config import CommandHookSpec, hooks_for, matcher_selects, validate_hooks
from toolbelt.sandbox.sandbox import SandboxSettings
from toolbelt.tools import builtin_toolset

PAYLOAD: dict[str, object] = {
    "session_id": "s1",
    "cwd": "/w",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "write_file",
    "tool_input": {"path": "a.txt", "content": "ü"},
    "tool_use_id": "t1",
}


async def run(command: str, cwd: Path, *, limit: float = 30) -> HookOutcome:
    return await run_command_hook(command, PAYLOAD, timeout=limit, cwd=cwd)


def answer(data: object) -> str:
    """A shell command printing ``data`` as JSON."""
    return "printf '%s' '" + json.dumps(data) + "'"


# -- the protocol, with real shell commands ----------------------------------------------


@pytest.mark.anyio
async def test_stdin_payload_environment_and_cwd(tmp_path: Path) -> None:
    outcome = await run(
        'cat > payload.json; printf "%s|%s|%s" "$PWD" "$TOOLBELT_PROJECT_DIR" '
        '"$CLAUDE_PROJECT_DIR"',
        tmp_path,
    )
    assert json.loads((tmp_path / "payload.json").read_text(encoding="utf-8")) == PAYLOAD
    assert outcome == HookOutcome(0, f"{tmp_path}|{tmp_path}|{tmp_path}", "")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("output", "decision", "reason"),
    [
        ({"hookSpecificOutput": {"permissionDecision": "allow"}}, "allow", ""),
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no writes to a.txt",
                }
            },
            "deny",
            "no writes to a.txt",
        ),
        ({"hookSpecificOutput": {"permissionDecision": "ask"}}, "ask", ""),
        ({"hookSpecificOutput": {"permissionDecision": "defer"}}, None, ""),
        ({"decision": "block", "reason": "legacy block"}, "deny", "legacy block"),
        ({"decision": "approve", "reason": "legacy ok"}, "allow", "legacy ok"),
        ({"suppressOutput": True}, None, ""),
    ],
)
async def test_exit_0_json_decisions(
    tmp_path: Path, output: object, decision: str | None, reason: str
) -> None:
    outcome = await run(answer(output), tmp_path)
    assert (outcome.exit_code, outcome.decision, outcome.reason, outcome.error) == (
        0,
        decision,
        reason,
        "",
    )


@pytest.mark.anyio
async def test_exit_0_updated_input_and_context(tmp_path: Path) -> None:
    output = {
        "hookSpecificOutput": {
            "permissionDecision": "allow",
            "updatedInput": {"path": "safe.txt", "content": "x"},
            "additionalContext": "Formatted by the hook.",
        },
        "systemMessage": "hook ran",
    }
    outcome = await run(answer(output), tmp_path)
    assert outcome == HookOutcome(
        0,
        json.dumps(output),
        "",
        decision="allow",
        updated_input={"path": "safe.txt", "content": "x"},
        additional_context="Formatted by the hook.",
        system_message="hook ran",
    )


@pytest.mark.anyio
async def test_continue_false_denies_and_asks_to_stop(tmp_path: Path) -> None:
    outcome = await run(answer({"continue": False, "stopReason": "build is red"}), tmp_path)
    assert (outcome.decision, outcome.reason, outcome.stop_reason) == (
        "deny",
        "build is red",
        "build is red",
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("command", "decision", "error"),
    [
        ("echo 'formatted 3 files'", None, ""),
        ("echo '{\"hookSpecificOutput\": '", "ask", "the hook printed invalid JSON"),
        (answer({"decision": "maybe"}), "ask", "the hook gave an unknown decision 'maybe'"),
        (
            """printf '{"decision": "block", "decision": "approve"}'""",
            "ask",
            "the hook printed ambiguous JSON",
        ),
    ],
)
async def test_exit_0_other_output(
    tmp_path: Path, command: str, decision: str | None, error: str
) -> None:
    outcome = await run(command, tmp_path)
    assert (outcome.decision, outcome.error.split(" (")[0]) == (decision, error)


@pytest.mark.anyio
async def test_exit_2_blocks_with_stderr_as_the_reason(tmp_path: Path) -> None:
    outcome = await run(
        answer({"hookSpecificOutput": {"permissionDecision": "allow"}})
        + "; echo 'no writes on Fridays' >&2; exit 2",
        tmp_path,
    )
    assert (outcome.exit_code, outcome.decision, outcome.reason, outcome.error) == (
        2,
        "deny",
        "no writes on Fridays",
        "",
    )


@pytest.mark.anyio
async def test_exit_1_is_a_non_blocking_error(tmp_path: Path) -> None:
    outcome = await run("echo oops >&2; exit 1", tmp_path)
    assert outcome == HookOutcome(
        1, "", "oops\n", error="the hook exited with status 1: oops", decision=None
    )


@pytest.mark.anyio
async def test_output_is_bounded_and_the_hook_never_stalls(tmp_path: Path) -> None:
    outcome = await run("head -c 200000 /dev/zero | tr '\\0' a; echo done >&2", tmp_path)
    assert outcome.stdout == "a" * MAX_OUTPUT + f"\n[{200000 - MAX_OUTPUT} more bytes not kept]"
    assert (outcome.exit_code, outcome.stderr) == (0, "done\n")


@pytest.mark.anyio
async def test_a_hook_that_cannot_start_asks(tmp_path: Path) -> None:
    outcome = await run("true", tmp_path / "missing")
    assert (outcome.exit_code, outcome.decision) == (None, "ask")
    assert outcome.error.startswith("the hook could not start: ")


@pytest.mark.anyio
async def test_timeout_kills_the_hook_and_its_child(tmp_path: Path) -> None:
    outcome = await run("sleep 300 & echo $! > child.pid; echo started; wait", tmp_path, limit=1)
    assert outcome == HookOutcome(
        None,
        "started\n",
        "",
        timed_out=True,
        decision="ask",
        error="the hook did not finish within 1 s and was killed",
    )
    assert ended(int((tmp_path / "child.pid").read_text()))


@pytest.mark.anyio
async def test_a_child_that_ignores_sigterm_is_killed_too(tmp_path: Path) -> None:
    outcome = await run(
        "sh -c 'trap \"\" TERM; sleep 300' & echo $! > child.pid; wait", tmp_path, limit=1
    )
    assert outcome.timed_out
    assert ended(int((tmp_path / "child.pid").read_text()))


@pytest.mark.anyio
async def test_cancellation_kills_the_hook_and_its_child(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    os.mkfifo(ready)
    async with anyio.create_task_group() as group:
        hook = functools.partial(run, f"sleep 300 & echo $$ $! > {ready}; wait", tmp_path)
        group.start_soon(hook)
        pids = await anyio.to_thread.run_sync(ready.read_text)  # blocks until the hook writes
        group.cancel_scope.cancel()
    shell, child = (int(pid) for pid in pids.split())
    assert ended(shell)
    assert ended(child)


@pytest.mark.anyio
async def test_a_background_child_holding_stdout_does_not_stall_the_hook(tmp_path: Path) -> None:
    """The hook answers at once; the child it left ends with it (as a command's leftovers do)."""
    outcome = await run(
        "sleep 300 & echo $! > child.pid; " + answer({"decision": "approve"}), tmp_path
    )
    child = int((tmp_path / "child.pid").read_text())
    try:
        assert (outcome.timed_out, outcome.decision) == (False, "allow")
        assert ended(child)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, 9)


@pytest.mark.anyio
async def test_a_hooks_env_cleared_escapee_ends_with_the_hook(tmp_path: Path) -> None:
    """Out of the group (setsid), orphaned, its marker cleared (env -i): still the anchor's."""
    command = (
        "env -i setsid /bin/sh -c 'echo $$ > escapee.pid; exec sleep 300' </dev/null >/dev/null"
        " 2>&1 & while [ ! -s escapee.pid ]; do :; done; " + answer({"decision": "approve"})
    )
    outcome = await run(command, tmp_path)
    escapee = int((tmp_path / "escapee.pid").read_text())
    try:
        assert (outcome.timed_out, outcome.decision) == (False, "allow")
        assert ended(escapee)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(escapee, 9)


@pytest.mark.anyio
async def test_a_timed_out_hooks_env_cleared_escapee_ends(tmp_path: Path) -> None:
    command = (
        "env -u TOOLBELT_RUN_ID setsid sh -c 'echo $$ > escapee.pid; exec sleep 300' & "
        "while [ ! -s escapee.pid ]; do :; done; echo started; wait"
    )
    outcome = await run(command, tmp_path, limit=1)
    escapee = int((tmp_path / "escapee.pid").read_text())
    try:
        assert outcome.timed_out
        assert outcome.stdout == "started\n"
        assert ended(escapee)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(escapee, 9)


@pytest.mark.anyio
async def test_a_deadline_reached_while_draining_is_no_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_module, "DRAIN_GRACE", 30.0)
    outcome = await run(
        "sleep 300 & echo $! > child.pid; " + answer({"decision": "approve"}), tmp_path, limit=1
    )
    child = int((tmp_path / "child.pid").read_text())
    try:
        assert (outcome.timed_out, outcome.exit_code, outcome.decision) == (False, 0, "allow")
    finally:
        with contextlib.suppress(ProcessLookupError):  # it ended with the hook
            os.kill(child, 9)


# -- which hooks a call runs ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [
        ("", "bash", True),
        ("*", "mcp__github__list", True),
        ("bash", "bash", True),
        ("bash", "bash_output", False),
        ("Bash", "bash", True),  # Claude's name for the tool, so pasted settings work
        ("Write|Edit", "edit_file", True),
        ("Write|Edit", "todo_write", False),  # names are exact: TodoWrite is not Write
        ("write_file, edit_file", "edit_file", True),
        ("write_file|edit_file", "multi_edit", False),
        ("Notebook.*", "notebook_edit", True),
        ("mcp__github__.*", "mcp__github__list", True),
        ("mcp__github", "mcp__github__list", False),  # Claude's documented pitfall, kept
        ("^Bash$", "bash", True),
        ("^Bash$", "bash_output", False),
        ("Write.*", "todo_write", True),  # regexes are searched, unanchored, as in Claude
    ],
)
def test_matchers(matcher: str, tool: str, expected: bool) -> None:
    declared = builtin_toolset().get(tool)
    aliases = (declared.claude_name,) if declared is not None and declared.claude_name else ()
    assert matcher_selects(matcher, tool, aliases) is expected


def test_hooks_for_selects_in_order_from_raw_or_validated_config() -> None:
    raw = {
        "PreToolUse": [
            {"matcher": "write_file|edit_file", "hooks": [{"type": "command", "command": "a"}]},
            {"matcher": "bash", "hooks": [{"type": "command", "command": "b"}]},
            {"hooks": [{"command": "c", "timeout": 5, "statusMessage": "ignored"}]},
        ],
        "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "d"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "never run"}]}],
    }
    expected = [CommandHookSpec(command="a"), CommandHookSpec(command="c", timeout=5)]
    assert hooks_for("PreToolUse", "edit_file", raw) == expected
    assert hooks_for("PreToolUse", "edit_file", validate_hooks(raw)) == expected
    assert [h.timeout for h in expected] == [60.0, 5.0]
    assert hooks_for("PostToolUseFailure", "edit_file", raw) == []


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"PreTooluse": []}, "unknown hook event 'PreTooluse'"),
        ({"PreToolUse": [{"matcher": "[", "hooks": []}]}, "matcher '[' is not a valid regex"),
        ({"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "p"}]}]}, "type 'prompt'"),
        ({"PreToolUse": [{"hooks": [{"command": "x", "timeout": 0}]}]}, "greater than 0"),
        ({"PreToolUse": [{"hooks": [{"command": ""}]}]}, "at least 1 character"),
    ],
)
def test_hook_config_errors(config: object, message: str) -> None:
    with pytest.raises((ValueError, ValidationError)) as info:
        validate_hooks(config)
    assert message in str(info.value)


# -- through the executor, from a settings file ---------------------------------------------


def harness_with_hooks(
    root: Path, hooks: dict[str, object], *, mode: str = "default", sandbox: str = "auto"
) -> Harness:
    (root / ".toolbelt").mkdir(exist_ok=True)
    (root / ".toolbelt" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    settings = load_settings(root, home=root / "home", trusted=True)
    h = Harness(root, mode=mode, settings=settings)
    h.session.resource(SandboxSettings, lambda: SandboxSettings(mode=sandbox))
    h.executor.hooks = build_hooks(h.session, settings)
    return h


def pre(matcher: str, command: str) -> dict[str, object]:
    group = {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}
    return {"PreToolUse": [group]}


@pytest.mark.anyio
async def test_executor_exit_2_blocks_with_stderr_for_the_model(tmp_path: Path) -> None:
    h = harness_with_hooks(
        tmp_path,
        pre("write_file|edit_file", "echo 'no writes on Fridays' >&2; exit 2"),
        mode="bypass",
    )
    result = await h.call("write_file", path="a.txt", content="x")
    assert (result.error_kind, result.text) == ("permission_denied", "no writes on Fridays")
    assert not (tmp_path / "a.txt").exists()
    unmatched = await h.call("bash", command="true")
    assert unmatched.state is CallState.SUCCESS
    await h.session.aclose()


@pytest.mark.anyio
async def test_executor_hook_allow_and_updated_input(tmp_path: Path) -> None:
    out = {
        "hookSpecificOutput": {
            "permissionDecision": "allow",
            "updatedInput": {"path": "safe.txt", "content": "rewritten"},
        }
    }
    h = harness_with_hooks(tmp_path, pre("write_file", answer(out)))
    result = await h.call("write_file", path="orig.txt", content="x")
    assert result.state is CallState.SUCCESS
    assert h.requester.asked == []  # the hook's allow skipped the ordinary prompt
    assert (tmp_path / "safe.txt").read_text() == "rewritten"
    assert not (tmp_path / "orig.txt").exists()
    await h.session.aclose()


@pytest.mark.anyio
async def test_executor_hook_allow_never_skips_a_protected_path(tmp_path: Path) -> None:
    allow = {"hookSpecificOutput": {"permissionDecision": "allow"}}
    h = harness_with_hooks(tmp_path, pre("write_file", answer(allow)))
    h.requester.approval = h.requester.approval.DENY
    result = await h.call("write_file", path=".env", content="SECRET=1")
    assert result.error_kind == "permission_denied"
    assert "protected path" in h.requester.asked[0][1]
    await h.session.aclose()


@pytest.mark.anyio
async def test_executor_exit_1_does_not_block(tmp_path: Path) -> None:
    h = harness_with_hooks(tmp_path, pre("write_file", "exit 1"), mode="accept_edits")
    result = await h.call("write_file", path="c.txt", content="z")
    assert result.state is CallState.SUCCESS
    await h.session.aclose()


@pytest.mark.anyio
async def test_executor_post_tool_use_adds_context(tmp_path: Path) -> None:
    out = {"hookSpecificOutput": {"additionalContext": "Formatted by the hook."}}
    group = {"matcher": "write_file", "hooks": [{"type": "command", "command": answer(out)}]}
    h = harness_with_hooks(tmp_path, {"PostToolUse": [group]}, mode="accept_edits")
    result = await h.call("write_file", path="d.txt", content="q")
    assert result.text.endswith("Formatted by the hook.")
    await h.session.aclose()


@pytest.mark.anyio
async def test_executor_always_approval_is_persisted_and_reloaded(tmp_path: Path) -> None:
    from toolbelt.core.permission import Approval

    h = harness_with_hooks(tmp_path, {}, sandbox="off")  # sandboxed, it would not ask
    h.requester.approval = Approval.ALWAYS
    first = await h.call("bash", command="touch made.txt")
    assert first.state is CallState.SUCCESS
    saved = json.loads((tmp_path / ".toolbelt" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(touch made.txt)"]
    again = harness_with_hooks(tmp_path, {}, sandbox="off")  # loads the rule: no prompt
    again.requester.approval = Approval.DENY
    second = await again.call("bash", command="touch made.txt")
    assert second.state is CallState.SUCCESS
    assert again.requester.asked == []
    await h.call("bash", command="rm made.txt")  # dangerous: never persisted, even "always"
    saved = json.loads((tmp_path / ".toolbelt" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(touch made.txt)"]
    await h.session.aclose()
    await again.session.aclose()


@pytest.mark.anyio
async def test_always_approving_a_file_with_a_star_in_its_name_allows_only_that_file(
    tmp_path: Path,
) -> None:
    from toolbelt.core.permission import Approval

    root = tmp_path.resolve()
    h = harness_with_hooks(root, {})
    h.requester.approval = Approval.ALWAYS
    assert (await h.call("write_file", path="a*.txt", content="x")).state is CallState.SUCCESS
    saved = json.loads((root / ".toolbelt" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == [f"Edit(/{root}/a\\*.txt)"]
    again = harness_with_hooks(root, {})  # the saved rule is exact, not a pattern
    again.requester.approval = Approval.DENY
    await again.call("read_file", path="a*.txt")  # an overwrite needs a read first
    assert (await again.call("write_file", path="a*.txt", content="y")).state is CallState.SUCCESS
    other = await again.call("write_file", path="abc.txt", content="z")
    assert other.state is CallState.ERROR
    assert [tool for tool, _ in again.requester.asked] == ["write_file"]
    assert not (root / "abc.txt").exists()
    await h.session.aclose()
    await again.session.aclose()


@pytest.mark.anyio
async def test_timeout_kills_children_that_left_the_group(tmp_path: Path) -> None:
    """``setsid`` and a double fork put children in other sessions; a group kill misses them,
    the run-id marker in their environment does not."""
    command = (
        "setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' & "
        "(sh -c 'echo $$ > orphan.pid; exec sleep 300' &) ; "
        "while [ ! -s setsid.pid ] || [ ! -s orphan.pid ]; do :; done; echo started; wait"
    )
    outcome = await run(command, tmp_path, limit=1)
    assert outcome.timed_out
    assert outcome.stdout == "started\n"
    assert ended(int((tmp_path / "setsid.pid").read_text()))
    assert ended(int((tmp_path / "orphan.pid").read_text()))


class _EchoInput(ToolInput):
    text: str


class _McpEcho(Tool[_EchoInput]):
    """Stands for a tool from another MCP server: its name is the one Claude Code uses."""

    name = "mcp__notes__echo"
    description = "Echo the text."
    input_model = _EchoInput
    example = {"text": "hi"}
    readonly = True

    async def run(self, args: _EchoInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(args.text)


class _Delegate(Tool[_EchoInput]):
    """A new tool that says its Claude Code name; no table anywhere lists it."""

    name = "delegate"
    description = "Hand the text to a subagent."
    input_model = _EchoInput
    example = {"text": "hi"}
    readonly = True
    claude_name = "Task"

    async def run(self, args: _EchoInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(args.text)


@pytest.mark.anyio
async def test_matchers_written_for_claude_codes_tool_names_select_our_tools(
    tmp_path: Path,
) -> None:
    def tag(matcher: str, name: str) -> dict[str, object]:
        command = f"echo {name} >> hooks.log"
        return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}

    groups = [
        tag("Write|Edit", "write-or-edit"),
        tag("Bash", "bash"),
        tag("Read", "read"),
        tag("mcp__.*", "mcp"),
        tag("Task", "task"),
    ]
    h = harness_with_hooks(tmp_path, {"PreToolUse": groups}, mode="bypass", sandbox="off")
    h.executor.toolset = CombinedToolset(builtin_toolset(), ToolRegistry([_McpEcho(), _Delegate()]))
    calls = [
        ("write_file", {"path": "a.txt", "content": "one\n"}),
        ("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"}),
        ("read_file", {"path": "a.txt"}),
        ("bash", {"command": "true"}),
        ("bash_output", {"id": "bg-1a2b3c4d"}),  # BashOutput: not selected by `Bash`
        ("multi_edit", {"path": "a.txt", "edits": [{"old_string": "two", "new_string": "3"}]}),
        ("mcp__notes__echo", {"text": "hi"}),
        ("delegate", {"text": "hi"}),
        ("glob", {"pattern": "*.txt"}),  # Glob: not selected by `Read`
    ]
    logged = []
    for name, arguments in calls:
        result = await h.executor.run_one(ToolCall("t", name, arguments))
        assert result.error_kind != "invalid_input", result.text  # the hooks were consulted
        log = tmp_path / "hooks.log"
        logged.append((name, log.read_text().split() if log.exists() else []))
        log.unlink(missing_ok=True)
    await h.session.aclose()
    assert logged == [
        ("write_file", ["write-or-edit"]),
        ("edit_file", ["write-or-edit"]),
        ("read_file", ["read"]),
        ("bash", ["bash"]),
        ("bash_output", []),
        ("multi_edit", []),
        ("mcp__notes__echo", ["mcp"]),
        ("delegate", ["task"]),
        ("glob", []),
    ]
