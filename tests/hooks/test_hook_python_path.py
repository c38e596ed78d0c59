"""Hooks run unconfined with the workspace as their cwd: a Python they start must not import
the workspace's modules through the cwd Python puts first on ``sys.path`` (``-m``, ``-c``).

Driven through the real ``toolbelt call`` with HOME pointed at a temporary directory, so the
user's settings (and the hook they hold) are the test's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support import toolbelt_cli

HOOK = f"{sys.executable} -m fmt_tool -q . ; echo ran > hook-ran"


def toolbelt(*args: str, cwd: Path, home: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return toolbelt_cli.toolbelt(
        *args,
        cwd=cwd,
        env={"HOME": str(home), **extra},
        unset=["XDG_CONFIG_HOME", "PYTHONSAFEPATH"],
    )


def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".config" / "toolbelt").mkdir(parents=True)
    ws.mkdir()
    hook = {"matcher": "write_file", "hooks": [{"type": "command", "command": HOOK}]}
    settings = {"hooks": {"PostToolUse": [hook]}}
    (home / ".config" / "toolbelt" / "settings.json").write_text(json.dumps(settings))
    marker = tmp_path / "workspace-module-ran"
    (ws / "fmt_tool.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    return home, ws, marker


def test_a_users_python_hook_does_not_import_the_workspaces_module(tmp_path: Path) -> None:
    home, ws, marker = setup(tmp_path)
    done = toolbelt(
        "call", "write_file", '{"path": "notes.md", "content": "hi\\n"}', "--yes",
        cwd=ws, home=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (ws / "notes.md").read_text() == "hi\n"
    assert (ws / "hook-ran").read_text() == "ran\n"  # the hook did run
    assert not marker.exists()


def test_the_users_environment_can_still_choose_the_old_path(tmp_path: Path) -> None:
    home, ws, marker = setup(tmp_path)
    done = toolbelt(
        "call", "write_file", '{"path": "notes.md", "content": "hi\\n"}', "--yes",
        cwd=ws, home=home, PYTHONSAFEPATH="",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "ran"
