"""The user's own MCP servers start in the user's home, even in a trusted workspace: trusting a
repository's configuration is not trusting what a sandboxed command wrote there since, and
``npx pkg`` started in the workspace runs its ``node_modules/.bin/pkg``. A server that works on
the workspace is told where it is: ``${TOOLBELT_PROJECT_DIR}`` in its entry, and
``TOOLBELT_PROJECT_DIR``/``CLAUDE_PROJECT_DIR`` in its environment, as hooks have them.

Driven through the real `toolbelt` command with real files, HOME the test's own.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.mcp_client.test_cli import toolbelt


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    return path


def test_npx_for_a_users_server_never_runs_a_bin_planted_in_a_trusted_workspace(
    workspace: Path, user_config: Path, home: Path, tmp_path: Path
) -> None:
    if shutil.which("npx") is None:
        pytest.skip("npx is not installed")
    marker = tmp_path / "planted-bin-ran"
    planted = workspace / "node_modules" / ".bin" / "mcp-server-planted"
    planted.parent.mkdir(parents=True)
    planted.write_text(f"#!/bin/sh\ntouch {marker}\n")
    planted.chmod(0o755)
    entry = {"command": "npx", "args": ["--offline", "mcp-server-planted"], "startupTimeout": 20}
    (user_config / "mcp.json").write_text(json.dumps({"mcpServers": {"fs": entry}}))
    assert toolbelt("trust", str(workspace)).returncode == 0
    listed = toolbelt("mcp-servers", "--root", str(workspace), "--json", cwd=workspace)
    assert json.loads(listed.stdout)[0]["state"] == "failed"  # npx found no such package
    assert not marker.exists()


def test_a_users_server_is_told_the_workspace_and_starts_in_home(
    workspace: Path, user_config: Path, home: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    told = "os.environ['TOOLBELT_PROJECT_DIR'], os.environ['CLAUDE_PROJECT_DIR']"
    code = (
        "import json, os, sys; "
        f"json.dump([os.getcwd(), sys.argv[1], {told}], open({str(seen)!r}, 'w'))"
    )
    entry = {"command": sys.executable, "args": ["-c", code, "${TOOLBELT_PROJECT_DIR}"]}
    (user_config / "mcp.json").write_text(
        json.dumps({"mcpServers": {"mine": {**entry, "startupTimeout": 5}}})
    )
    assert toolbelt("trust", str(workspace)).returncode == 0
    toolbelt("mcp-servers", "--root", str(workspace), cwd=workspace)
    assert json.loads(seen.read_text()) == [str(home), *[str(workspace)] * 3]
