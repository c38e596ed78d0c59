"""Trust pins what it approved: an MCP server entry or a hook edited after `toolbelt trust`
does not run until the user trusts the workspace again (Cursor's CVE-2025-54136, MCPoison).

Driven through the real `toolbelt` command with real files; the user configuration directory
(and so the trust store) is the test's own (``conftest.user_config``).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.mcp_client.conftest import fake_entry, write_servers
from tests.mcp_client.test_cli import toolbelt

CHANGED = (
    "toolbelt: {what} changed since you trusted {root} (or were added since), so they were "
    "not started; review them, then run `toolbelt trust {root}` to approve them as they are "
    "now.\n"
)


def echo(workspace: Path, *extra: str) -> tuple[int, str, str]:
    done = toolbelt(
        "call", "mcp__fake__echo", '{"text":"hi"}', "--root", str(workspace), "--yes", *extra
    )
    return done.returncode, done.stdout, done.stderr


def test_an_mcp_server_edited_after_trust_is_not_started_until_trusted_again(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    config = write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, first)})
    trusted = toolbelt("trust", str(workspace))
    assert trusted.returncode == 0
    assert (
        f"Approved 1 MCP server as written now: a part that changes will not run until you "
        f"review it and trust {workspace} again.\n"
    ) in trusted.stdout
    assert echo(workspace) == (0, "echo: hi\n", "")
    assert (first / "started").read_text().count("\n") == 1

    # a pull edits the approved entry: same name, another program (here: another state dir)
    write_servers(config, {"fake": fake_entry(mark, second)})
    code, stdout, stderr = echo(workspace)
    assert code == 2
    assert stdout.startswith("There is no tool named `mcp__fake__echo`.")
    assert stderr == CHANGED.format(what=f"the MCP server `fake` in {config}", root=workspace)
    assert not (second / "started").exists()
    listed = toolbelt("mcp-servers", "--root", str(workspace), "--json")
    assert json.loads(listed.stdout) == [
        {
            "name": "fake",
            "source": str(config),
            "transport": "?",
            "state": "not started",
            "tools": 0,
            "error": "it changed since you trusted the workspace; review it, then run "
            f"`toolbelt trust {workspace}` to approve it",
            "auth": "none",
        }
    ]
    assert not (second / "started").exists()

    # --trust-workspace approves what is there for one run, and remembers nothing
    assert echo(workspace, "--trust-workspace") == (0, "echo: hi\n", "")
    assert echo(workspace)[0] == 2

    # trusting again approves the entry as it is now
    assert toolbelt("trust", str(workspace)).returncode == 0
    assert echo(workspace) == (0, "echo: hi\n", "")
    assert (second / "started").read_text().count("\n") == 2


def test_only_the_changed_or_added_server_is_held_back(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    config = write_servers(workspace / ".mcp.json", {"fake": fake_entry(mark, tmp_path)})
    assert toolbelt("trust", str(workspace)).returncode == 0
    added = workspace / ".toolbelt" / "mcp.json"
    write_servers(added, {"other": fake_entry(mark, tmp_path / "nowhere")})
    code, stdout, stderr = echo(workspace)
    assert (code, stdout) == (0, "echo: hi\n")  # the approved server still runs
    assert stderr == CHANGED.format(what=f"the MCP server `other` in {added}", root=workspace)
    # formatting alone (key order, spaces) is not a change
    config.write_text(json.dumps(json.loads(config.read_text()), indent=4, sort_keys=True))
    assert echo(workspace)[:2] == (0, "echo: hi\n")
    assert toolbelt("trust", "--remove", str(workspace)).returncode == 0
    assert echo(workspace)[0] == 2  # no longer trusted at all


def test_hooks_edited_after_trust_do_not_run(workspace: Path, tmp_path: Path) -> None:
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir()

    def hook(command: str) -> None:
        group = {"hooks": [{"type": "command", "command": command}]}
        settings.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))

    hook("touch approved")
    assert "the hooks of 1 settings file" in toolbelt("trust", str(workspace)).stdout
    think = ("call", "think", '{"thought": "x"}', "--root", str(workspace))
    assert (toolbelt(*think).returncode, (workspace / "approved").exists()) == (0, True)

    hook("touch pwned")
    done = toolbelt(*think)
    assert done.returncode == 0
    assert done.stderr == CHANGED.format(what=f"the hooks in {settings}", root=workspace)
    assert not (workspace / "pwned").exists()
    # an "always allow" answer written to settings.local.json changes no hook: nothing to re-trust
    assert toolbelt("trust", str(workspace)).returncode == 0
    local = workspace / ".toolbelt" / "settings.local.json"
    local.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    done = toolbelt(*think)
    assert (done.returncode, done.stderr, (workspace / "pwned").exists()) == (0, "", True)
