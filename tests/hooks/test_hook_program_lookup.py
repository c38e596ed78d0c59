"""A hook finds its programs on PATH's absolute entries outside the workspace only: a relative
or empty entry (``node_modules/.bin``, ``::``) would resolve against its cwd, the workspace, an
activated virtualenv's ``/abs/ws/.venv/bin`` lies in it, where a sandboxed
command may have planted a program of that name.

Driven through the real ``toolbelt call`` with HOME pointed at a temporary directory, so the
user's settings (and the hook they hold) are the test's own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.hooks.test_hook_python_path import toolbelt


@pytest.mark.parametrize("prefix", ["node_modules/.bin:", ":", ".:", "{ws}/.venv/bin:"])
def test_a_users_hook_never_runs_a_program_a_path_entry_finds_in_the_workspace(
    tmp_path: Path, prefix: str
) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".config" / "toolbelt").mkdir(parents=True)
    command = "fmt-tool . ; echo ran > hook-ran"
    hook = {"matcher": "write_file", "hooks": [{"type": "command", "command": command}]}
    settings = {"hooks": {"PostToolUse": [hook]}}
    (home / ".config" / "toolbelt" / "settings.json").write_text(json.dumps(settings))
    marker = ws / "planted-fmt-tool-ran"  # where the confined hook may write
    for where in (ws, ws / "node_modules" / ".bin", ws / ".venv" / "bin"):
        where.mkdir(parents=True, exist_ok=True)
        planted = where / "fmt-tool"
        planted.write_text(f"#!/bin/sh\necho ran > {marker}\n")
        planted.chmod(0o755)
    done = toolbelt(
        "call", "write_file", '{"path": "notes.md", "content": "hi\\n"}', "--yes",
        cwd=ws, home=home, PATH=prefix.format(ws=ws) + os.environ["PATH"],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (ws / "notes.md").read_text() == "hi\n"
    assert not marker.exists()
    assert (ws / "hook-ran").read_text() == "ran\n"  # the hook did run
