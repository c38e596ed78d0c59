"""Trust pins what an approved entry runs, not only its words: the workspace files an MCP
server entry or a hook names (``python server.py``'s ``server.py``, a hook's script) are pinned
by content, so a pull that rewrites one — or points the entry at another through a relative
``cwd`` symlink or a ``${VAR:-default}`` — does not run until the user trusts again.

Driven through the real `toolbelt` command with real files (``config.launch_files``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.mcp_client.conftest import FAKE, write_servers
from tests.mcp_client.test_cli import toolbelt
from tests.mcp_client.test_trust_pins import CHANGED, echo
from toolbelt.config.launch_files import MAX_PINNED_BYTES


def script_entry(mark: str, state: Path, *args: str) -> dict[str, object]:
    """A stdio entry running a workspace copy of ``fake_server.py`` (``args`` name it)."""
    env = {"TOOLBELT_TEST_MARK": mark, "FAKE_STATE": str(state)}
    return {"command": sys.executable, "args": list(args), "env": env}


def planted(script: Path, marker: Path) -> None:
    """What a pull brings: the same server, plus a line that leaves ``marker``."""
    script.write_text(FAKE.read_text() + f"\nopen({str(marker)!r}, 'w').close()\n")


def test_a_server_script_changed_after_trust_does_not_run_until_trusted_again(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    server, marker = workspace / "server.py", tmp_path / "changed-code-ran"
    shutil.copy(FAKE, server)
    (workspace / "notes.db").write_text("data the server writes\n")
    entry = script_entry(mark, tmp_path, "server.py", "--db", "notes.db")
    config = write_servers(workspace / ".mcp.json", {"fake": entry})
    assert toolbelt("trust", str(workspace)).returncode == 0
    assert echo(workspace) == (0, "echo: hi\n", "")
    (workspace / "notes.db").write_text("changed data is no code: not pinned\n")
    assert echo(workspace) == (0, "echo: hi\n", "")

    planted(server, marker)  # .mcp.json untouched
    code, stdout, stderr = echo(workspace)
    assert (code, stdout.startswith("There is no tool named `mcp__fake__echo`.")) == (2, True)
    what = f"the MCP server `fake` in {config} (its file {server})"
    assert stderr == CHANGED.format(what=what, root=workspace)
    listed = toolbelt("mcp-servers", "--root", str(workspace), "--json")
    assert json.loads(listed.stdout)[0]["error"] == (
        f"its file {server} changed since you trusted the workspace; review it, then run "
        f"`toolbelt trust {workspace}` to approve it"
    )
    assert not marker.exists()

    assert toolbelt("trust", str(workspace)).returncode == 0  # reviewed: approved as it is now
    assert echo(workspace) == (0, "echo: hi\n", "")
    assert marker.exists()

    server.unlink()  # a pinned file gone is a change too (a directory there would run instead)
    stderr = echo(workspace)[2]
    what = f"the MCP server `fake` in {config} (its file {server}, now gone)"
    assert stderr == CHANGED.format(what=what, root=workspace)


def test_a_relative_cwd_symlink_pointed_elsewhere_is_a_change(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    for version in ("v1", "v2"):
        (workspace / version).mkdir()
    shutil.copy(FAKE, workspace / "v1" / "server.py")
    marker = tmp_path / "v2-ran"
    planted(workspace / "v2" / "server.py", marker)
    (workspace / "current").symlink_to("v1")
    entry = {**script_entry(mark, tmp_path, "server.py"), "cwd": "current"}
    config = write_servers(workspace / ".mcp.json", {"fake": entry})
    assert toolbelt("trust", str(workspace)).returncode == 0
    assert echo(workspace) == (0, "echo: hi\n", "")

    (workspace / "current").unlink()
    (workspace / "current").symlink_to("v2")
    stderr = echo(workspace)[2]
    v1, v2 = workspace / "v1" / "server.py", workspace / "v2" / "server.py"
    what = f"the MCP server `fake` in {config} (its files {v1}, no longer what it runs, {v2})"
    assert stderr == CHANGED.format(what=what, root=workspace)
    assert not marker.exists()


def test_a_variable_default_resolving_to_another_file_is_a_change(
    workspace: Path, mark: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(FAKE, workspace / "server.py")
    marker = tmp_path / "other-ran"
    planted(workspace / "other.py", marker)
    monkeypatch.delenv("SRV", raising=False)
    entry = script_entry(mark, tmp_path, "${SRV:-server.py}")
    config = write_servers(workspace / ".mcp.json", {"fake": entry})
    assert toolbelt("trust", str(workspace)).returncode == 0
    assert echo(workspace) == (0, "echo: hi\n", "")

    monkeypatch.setenv("SRV", "other.py")
    stderr = echo(workspace)[2]
    server, other = workspace / "server.py", workspace / "other.py"
    what = (
        f"the MCP server `fake` in {config} (its files {other}, {server}, no longer what it runs)"
    )
    assert stderr == CHANGED.format(what=what, root=workspace)
    assert not marker.exists()


@pytest.mark.parametrize(
    "command",
    [
        "sh .toolbelt/hooks/check.sh",
        '"$CLAUDE_PROJECT_DIR"/.toolbelt/hooks/check.sh',
        "cd .toolbelt && ./hooks/check.sh",
        "bash -c '${TOOLBELT_PROJECT_DIR}/.toolbelt/hooks/check.sh --strict'",
    ],
)
def test_a_hook_script_changed_after_trust_does_not_run(workspace: Path, command: str) -> None:
    settings = workspace / ".toolbelt" / "settings.json"
    script = workspace / ".toolbelt" / "hooks" / "check.sh"
    script.parent.mkdir(parents=True)
    script.write_text('#!/bin/sh\ntouch "$TOOLBELT_PROJECT_DIR/approved"\n')
    script.chmod(0o755)
    group = {"hooks": [{"type": "command", "command": command}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    assert toolbelt("trust", str(workspace)).returncode == 0
    think = ("call", "think", '{"thought": "x"}', "--root", str(workspace))
    done = toolbelt(*think, cwd=workspace)
    assert (done.returncode, done.stderr) == (0, "")
    assert (workspace / "approved").exists()

    script.write_text('#!/bin/sh\ntouch "$TOOLBELT_PROJECT_DIR/pwned"\n')  # settings untouched
    done = toolbelt(*think, cwd=workspace)
    assert done.returncode == 0
    what = f"the hooks in {settings} (its file {script})"
    assert done.stderr == CHANGED.format(what=what, root=workspace)
    assert not (workspace / "pwned").exists()


def test_a_named_file_too_large_to_pin_is_never_approved(workspace: Path, mark: str) -> None:
    big = workspace / "big.py"
    with big.open("wb") as handle:  # sparse: nothing is written, and pinning reads none of it
        handle.truncate(MAX_PINNED_BYTES + 1)
    entry = script_entry(mark, workspace, "big.py")
    config = write_servers(workspace / ".mcp.json", {"fake": entry})
    trusted = toolbelt("trust", str(workspace))
    assert trusted.returncode == 0
    assert (
        f"Approved 1 MCP server as written now, with the 1 workspace file they name: a part "
        f"that changes, or whose file changes, will not run until you review it and trust "
        f"{workspace} again.\n"
    ) in trusted.stdout
    assert (
        f"toolbelt: warning: {big} is over 64 MiB, too large to pin, so the MCP server or hooks "
        "naming it will not run; name a smaller file or one outside the workspace.\n"
    ) in trusted.stderr
    stderr = echo(workspace)[2]
    note = "over 64 MiB and so too large to pin"
    what = f"the MCP server `fake` in {config} (its file {big}, {note})"
    assert stderr == CHANGED.format(what=what, root=workspace)
