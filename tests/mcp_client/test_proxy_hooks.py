"""Hooks follow ``call_mcp_tool`` to the tool it calls, as permission rules do: a hook written
for ``mcp__db__drop_table`` guards the proxied call too, and is told the target's name and
arguments (a matcher for ``call_mcp_tool`` still selects the call)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mcp_client.conftest import fake_entry, write_servers
from tests.mcp_client.test_cli import toolbelt

DROP: dict[str, object] = {"server": "db", "tool": "drop_table", "arguments": {"table": "users"}}


def setup(workspace: Path, mark: str, tmp_path: Path, matcher: str, command: str) -> None:
    listed = tmp_path / "db-tools.json"
    schema = {"type": "object", "properties": {"table": {"type": "string"}}}
    listed.write_text(json.dumps([{"name": "drop_table", "inputSchema": schema}]))
    entry = fake_entry(mark, tmp_path, FAKE_TOOLS=str(listed), FAKE_LABEL="db:")
    write_servers(workspace / ".mcp.json", {"db": entry})
    hook = {"type": "command", "command": command}
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [hook]}]}})
    )


def call_proxy(workspace: Path, arguments: dict[str, object]) -> tuple[int, str]:
    done = toolbelt(
        "call", "call_mcp_tool", json.dumps(arguments), "--root", str(workspace),
        "--trust-workspace", "--yes",
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def test_a_hook_for_the_target_tool_blocks_the_proxied_call(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    log = tmp_path / "hook.json"
    command = f"cat > {log}; echo 'dropping tables is blocked' >&2; exit 2"
    setup(workspace, mark, tmp_path, "mcp__db__drop_table", command)
    code, out = call_proxy(workspace, DROP)
    assert code == 3
    assert "dropping tables is blocked" in out
    assert "db:drop_table" not in out  # the server never got the call
    seen = json.loads(log.read_text())
    assert (seen["tool_name"], seen["tool_input"]) == ("mcp__db__drop_table", {"table": "users"})


def test_a_hook_rewrites_the_target_arguments_and_a_proxy_matcher_still_selects(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    rewrite = {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"table": "tmp"}}
    }
    setup(workspace, mark, tmp_path, "call_mcp_tool", f"echo '{json.dumps(rewrite)}'")
    code, out = call_proxy(workspace, DROP)
    assert (code, out) == (0, 'db:drop_table: {"table": "tmp"}\n')
