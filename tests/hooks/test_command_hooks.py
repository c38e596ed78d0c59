"""Command hooks with real shell scripts: allow, deny, block, rewrite, fail, time out."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState
from toolbelt.hooks.command import run_command_hook
from toolbelt.permissions.factory import build_hooks, build_policy
from toolbelt.permissions.settings import load_settings

pytestmark = pytest.mark.anyio


def harness_with_hooks(root: Path, hooks: dict[str, object], *, mode: str = "default") -> Harness:
    (root / ".toolbelt").mkdir(exist_ok=True)
    (root / ".toolbelt" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    h = Harness(root, mode=mode)
    settings = load_settings(root, home=root / "home")
    h.executor.policy = build_policy(h.session, mode, settings=settings)
    h.executor.hooks = build_hooks(h.session, settings)
    return h


def pre(matcher: str, command: str, timeout: float = 10) -> dict[str, object]:
    return {
        "PreToolUse": [
            {
                "matcher": matcher,
                "hooks": [{"type": "command", "command": command, "timeout": timeout}],
            }
        ]
    }


async def test_exit_2_blocks_with_stderr_for_the_model(tmp_path: Path) -> None:
    h = harness_with_hooks(
        tmp_path,
        pre("write_file|edit_file", "echo 'no writes on Fridays' >&2; exit 2"),
        mode="bypass",
    )
    result = await h.call("write_file", path="a.txt", content="x")
    assert (result.error_kind, result.text) == ("permission_denied", "no writes on Fridays")
    assert not (tmp_path / "a.txt").exists()


async def test_matcher_selects_tools(tmp_path: Path) -> None:
    h = harness_with_hooks(tmp_path, pre("bash", "exit 2"), mode="bypass")
    result = await h.call("write_file", path="a.txt", content="x")
    assert result.state is CallState.SUCCESS


async def test_stdin_payload_and_json_allow(tmp_path: Path) -> None:
    script = tmp_path / "hook.sh"
    script.write_text(
        '#!/bin/sh\ncat > "$(dirname "$0")/payload.json"\n'
        'echo \'{"hookSpecificOutput": {"permissionDecision": "allow"}}\'\n'
    )
    script.chmod(0o755)
    h = harness_with_hooks(tmp_path, pre("write_file", str(script)))
    result = await h.call("write_file", path="b.txt", content="y")
    assert result.state is CallState.SUCCESS
    assert h.requester.asked == []  # the hook's allow skipped the ordinary prompt
    payload = json.loads((tmp_path / "payload.json").read_text())
    assert payload["tool_name"] == "write_file"
    assert payload["tool_input"] == {"path": "b.txt", "content": "y"}
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["permission_mode"] == "default"


async def test_updated_input_rewrites_the_call(tmp_path: Path) -> None:
    out = {
        "hookSpecificOutput": {
            "permissionDecision": "allow",
            "updatedInput": {"path": "safe.txt", "content": "rewritten"},
        }
    }
    h = harness_with_hooks(tmp_path, pre("write_file", f"echo '{json.dumps(out)}'"))
    await h.call("write_file", path="orig.txt", content="x")
    assert (tmp_path / "safe.txt").read_text() == "rewritten"
    assert not (tmp_path / "orig.txt").exists()


async def test_other_exit_codes_do_not_block(tmp_path: Path) -> None:
    h = harness_with_hooks(tmp_path, pre("write_file", "exit 1"), mode="accept_edits")
    result = await h.call("write_file", path="c.txt", content="z")
    assert result.state is CallState.SUCCESS


async def test_hook_allow_never_skips_a_protected_path(tmp_path: Path) -> None:
    allow = {"hookSpecificOutput": {"permissionDecision": "allow"}}
    h = harness_with_hooks(tmp_path, pre("write_file", f"echo '{json.dumps(allow)}'"))
    h.requester.approval = h.requester.approval.DENY
    result = await h.call("write_file", path=".env", content="SECRET=1")
    assert result.error_kind == "permission_denied"
    assert "protected path" in h.requester.asked[0][1]


async def test_timeout_asks_and_kills_the_hook_and_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    outcome = await run_command_hook(
        f"sleep 300 & echo $! > {marker}; wait", {}, timeout=0.5, cwd=tmp_path
    )
    assert (outcome.timed_out, outcome.decision) == (True, "ask")
    child = int(marker.read_text())
    try:
        with open(f"/proc/{child}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
        assert state == b"Z"
    except FileNotFoundError:
        pass


async def test_post_tool_use_adds_context(tmp_path: Path) -> None:
    out = {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "Formatted by the hook.",
        }
    }
    hooks = {
        "PostToolUse": [
            {
                "matcher": "write_file",
                "hooks": [{"type": "command", "command": f"echo '{json.dumps(out)}'"}],
            }
        ]
    }
    h = harness_with_hooks(tmp_path, hooks, mode="accept_edits")
    result = await h.call("write_file", path="d.txt", content="q")
    assert result.text.endswith("Formatted by the hook.")
    assert os.path.exists(tmp_path / "d.txt")


async def test_always_approval_is_persisted_and_reloaded(tmp_path: Path) -> None:
    from toolbelt.permissions.decision import Approval

    h = harness_with_hooks(tmp_path, {})
    h.requester.approval = Approval.ALWAYS
    first = await h.call("bash", command="touch made.txt")
    assert first.state is CallState.SUCCESS
    saved = json.loads((tmp_path / ".toolbelt" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(touch made.txt)"]
    # a new session loads the rule: no prompt this time
    again = harness_with_hooks(tmp_path, {})
    again.requester.approval = Approval.DENY
    second = await again.call("bash", command="touch made.txt")
    assert second.state is CallState.SUCCESS
    assert again.requester.asked == []
    # dangerous commands are never persisted, even when the answer was "always"
    await h.call("bash", command="rm made.txt")
    saved = json.loads((tmp_path / ".toolbelt" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(touch made.txt)"]
    await h.session.aclose()
    await again.session.aclose()
