"""The user's toolbelt configuration, ~/.claude and the MCP token files, through the real CLI.

A model that could rewrite ``~/.config/toolbelt/settings.json`` would add a hook that runs
unsandboxed on the next call and drop the user's deny rules; ``trusted.json`` would trust any
workspace; the token file lets any local program drive the tools. So writing there asks in
every mode, bypass included (no one can answer here: refused, exit code 3), and reading a token
file asks too.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from tests.support.toolbelt_cli import toolbelt

BYPASS = ("--mode", "bypass")
DENY = {"permissions": {"deny": ["Read(./secret.txt)"]}}
HOOK = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}


@pytest.fixture
def user(tmp_path: Path) -> dict[str, Path]:
    home, work, runtime = tmp_path / "home", tmp_path / "work", tmp_path / "run"
    config = home / ".config" / "toolbelt"
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps(DENY))
    (config / "mcp-8765.token").write_text("config-token-1234\n")
    (runtime / "toolbelt").mkdir(parents=True)
    (runtime / "toolbelt" / "mcp-8765.token").write_text("runtime-token-5678\n")
    work.mkdir()
    (work / "secret.txt").write_text("s3cret\n")
    return {"home": home, "work": work, "runtime": runtime, "config": config}


def call(
    user: dict[str, Path],
    tool: str,
    args: object,
    *extra: str,
    xdg_config: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``toolbelt call TOOL ARGS --mode bypass`` as the user in ``user``."""
    env = {"HOME": str(user["home"]), "XDG_RUNTIME_DIR": str(user["runtime"]), "COLUMNS": "120"}
    if xdg_config is not None:
        env["XDG_CONFIG_HOME"] = str(xdg_config)
    xdg = [k for k in os.environ if k.startswith("XDG_")]
    return toolbelt(
        "call", tool, json.dumps(args), *BYPASS, *extra, cwd=user["work"], env=env, unset=xdg
    )


@pytest.mark.parametrize("name", ["settings.json", "trusted.json", "mcp-8765.token"])
def test_bypass_cannot_write_the_users_toolbelt_configuration(
    user: dict[str, Path], name: str
) -> None:
    target = user["config"] / name
    before = target.read_text() if target.exists() else None
    for tool, args in [
        ("write_file", {"path": f"~/.config/toolbelt/{name}", "content": json.dumps(HOOK)}),
        ("bash", {"command": f"echo '{{}}' > ~/.config/toolbelt/{name}"}),
    ]:
        out = call(user, tool, args)
        assert out.returncode == 3, out.stdout
        assert "touches a protected path" in out.stdout
    assert (target.read_text() if target.exists() else None) == before
    # the user's deny rule still holds and no hook ran
    out = call(user, "read_file", {"path": "secret.txt"})
    assert out.returncode == 3
    assert "s3cret" not in out.stdout
    assert not (user["work"] / "pwned").exists()


def test_a_symlink_in_the_workspace_does_not_reach_the_configuration(
    user: dict[str, Path],
) -> None:
    (user["work"] / "link.json").symlink_to(user["config"] / "settings.json")
    out = call(user, "write_file", {"path": "link.json", "content": json.dumps(HOOK)})
    assert out.returncode == 3, out.stdout
    assert json.loads((user["config"] / "settings.json").read_text()) == DENY


def test_xdg_config_home_and_claude_settings_are_protected(
    user: dict[str, Path], tmp_path: Path
) -> None:
    xdg = tmp_path / "xdg"
    (xdg / "toolbelt").mkdir(parents=True)
    for path in (xdg / "toolbelt" / "settings.json", user["home"] / ".claude" / "settings.json"):
        out = call(user, "write_file", {"path": str(path), "content": "{}"}, xdg_config=xdg)
        assert out.returncode == 3, out.stdout
        assert "touches a protected path" in out.stdout
        assert not path.exists()


def test_token_files_are_not_read_without_asking(user: dict[str, Path]) -> None:
    for path in (
        user["config"] / "mcp-8765.token",
        user["runtime"] / "toolbelt" / "mcp-8765.token",
    ):
        for tool, args in [
            ("read_file", {"path": str(path)}),
            ("bash", {"command": f"cat {path}"}),
        ]:
            out = call(user, tool, args)
            assert out.returncode == 3, out.stdout
            # the config directory is a secret location, the runtime one holds token files
            assert "token file" in out.stdout or "holds credentials" in out.stdout
            assert "-token-" not in out.stdout + out.stderr


def test_the_configuration_is_read_only_after_asking(user: dict[str, Path]) -> None:
    # ~/.config/toolbelt is one of the secret locations (core/secret_paths.py): the rules and
    # hooks there are the user's, read like ~/.ssh — asked, in every mode, then shown
    refused = call(user, "read_file", {"path": "~/.config/toolbelt/settings.json"})
    assert refused.returncode == 3
    assert "Read(./secret.txt)" not in refused.stdout
    approved = call(user, "read_file", {"path": "~/.config/toolbelt/settings.json"}, "--yes")
    assert approved.returncode == 0
    assert "Read(./secret.txt)" in approved.stdout


def test_searches_of_the_configuration_leave_the_token_files_out(user: dict[str, Path]) -> None:
    for tool, args, code in [
        # the configuration directory is a secret location: searching it asks
        ("grep", {"pattern": "token", "path": str(user["config"]), "output_mode": "content"}, 3),
        ("glob", {"pattern": "*", "path": str(user["config"])}, 3),
        # the runtime directory holds nothing but tokens: searching it asks
        ("grep", {"pattern": "token", "path": str(user["runtime"] / "toolbelt")}, 3),
    ]:
        out = call(user, tool, args)
        assert out.returncode == code, out.stdout
        assert "mcp-8765.token" not in out.stdout
        assert "-token-" not in out.stdout
