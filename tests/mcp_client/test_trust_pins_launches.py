"""One launch parser for MCP entries and hooks: trust pins what an entry reaches through
``sh -c``, a ``package.json`` script and a task file as it pins a script named directly, and
says, when the workspace is trusted, what an entry runs that no pin can hold.

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


def entry(mark: str, state: Path, command: str, *args: str) -> dict[str, object]:
    env = {"TOOLBELT_TEST_MARK": mark, "FAKE_STATE": str(state), "PYTHON": sys.executable}
    return {"command": command, "args": list(args), "env": env}


def test_a_script_an_sh_c_entry_runs_is_pinned(workspace: Path, mark: str, tmp_path: Path) -> None:
    shutil.copy(FAKE, workspace / "srv.py")
    server = entry(mark, tmp_path, "sh", "-c", 'exec "$PYTHON" srv.py')
    config = write_servers(workspace / ".mcp.json", {"fake": server})
    assert toolbelt("trust", str(workspace)).returncode == 0
    assert echo(workspace) == (0, "echo: hi\n", "")
    (workspace / "srv.py").write_text(FAKE.read_text() + "\n# changed after trust\n")
    code, _, stderr = echo(workspace)
    what = f"the MCP server `fake` in {config} (its file {workspace / 'srv.py'})"
    assert (code, stderr) == (2, CHANGED.format(what=what, root=workspace))


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_an_npm_run_entry_pins_its_script_and_what_the_script_runs(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    shutil.copy(FAKE, workspace / "srv.py")
    package = workspace / "package.json"
    manifest = {"name": "x", "scripts": {"serve": "$PYTHON srv.py", "lint": "true"}}
    package.write_text(json.dumps(manifest))
    config = write_servers(
        workspace / ".mcp.json", {"fake": entry(mark, tmp_path, "npm", "run", "-s", "serve")}
    )
    assert toolbelt("trust", str(workspace)).returncode == 0
    assert echo(workspace) == (0, "echo: hi\n", "")
    package.write_text(
        json.dumps(
            {
                **manifest,
                "dependencies": {"y": "1"},
                "scripts": {**manifest["scripts"], "lint": "eslint ."},
            }
        )
    )
    assert echo(workspace) == (0, "echo: hi\n", "")  # the rest of package.json is not its code
    package.write_text(json.dumps({**manifest, "scripts": {"serve": "$PYTHON other.py"}}))
    code, _, stderr = echo(workspace)
    what = f"the MCP server `fake` in {config} (its file {package} (script serve))"
    assert (code, stderr) == (2, CHANGED.format(what=what, root=workspace))


def test_a_make_entry_pins_its_makefile(workspace: Path, mark: str, tmp_path: Path) -> None:
    shutil.copy(FAKE, workspace / "srv.py")
    makefile = workspace / "Makefile"
    makefile.write_text("serve:\n\t@exec $$PYTHON srv.py\n")
    config = write_servers(
        workspace / ".mcp.json", {"fake": entry(mark, tmp_path, "make", "-s", "serve")}
    )
    assert toolbelt("trust", str(workspace)).returncode == 0
    assert echo(workspace) == (0, "echo: hi\n", "")
    makefile.write_text("serve:\n\t@exec $$PYTHON srv.py --evil\n")
    code, _, stderr = echo(workspace)
    what = f"the MCP server `fake` in {config} (its file {makefile})"
    assert (code, stderr) == (2, CHANGED.format(what=what, root=workspace))


def test_trust_says_what_an_entry_runs_that_it_cannot_pin(workspace: Path) -> None:
    config = write_servers(
        workspace / ".mcp.json",
        {
            "registry": {"command": "npx", "args": ["-y", "@acme/mcp-server"]},
            "tool": {"command": "uvx", "args": ["mcp-server-git"]},
            "pinned": {"command": sys.executable, "args": ["-c", "print(1)"]},
        },
    )
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir()
    hook = {"hooks": [{"type": "command", "command": "pytest -q tests/"}]}
    settings.write_text(json.dumps({"hooks": {"PostToolUse": [hook]}}))
    done = toolbelt("trust", str(workspace))
    assert done.returncode == 0, done.stderr
    tail = (
        ": that code is not pinned, so it may change after you trust the workspace without a "
        "notice (it runs inside the sandbox).\n"
    )
    notes = [line for line in done.stderr.splitlines(keepends=True) if "note:" in line]
    assert len(notes) == 3, done.stderr  # nothing about the entry whose code is its words
    registry, tool, hooks = notes
    assert registry.startswith(f"toolbelt: note: the MCP server `registry` in {config} ")
    assert tool.startswith(f"toolbelt: note: the MCP server `tool` in {config} ")
    assert hooks.startswith(f"toolbelt: note: the hooks in {settings} ")
    assert "`npx` runs `@acme/mcp-server` from the package registry" in registry
    assert "`uvx` runs `mcp-server-git` from the package registry" in tool
    assert "`pytest` imports the conftest.py of every directory it collects tests from" in hooks
    assert all(note.endswith(tail) for note in notes)
