"""A repository's ``zlib.py``, ``ctypes/`` or ``encodings/`` never runs in the Python helpers
toolbelt starts (the sandbox launcher, the namespaces probe): they start in the workspace, and
what they import before confining must come from the interpreter's library, not from there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.sandboxes import backend_params
from tests.support.shadow_modules import marks_left, plant_shadows
from tests.support.toolbelt_cli import LAUNCHER
from toolbelt.procs.helper_python import helper_argv, helper_code
from toolbelt.sandbox.backends import namespaces_work

SHADOWED = ["zlib", "marshal", "ctypes", "encodings", "struct", "errno"]


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    workspace, marks = tmp_path / "ws", tmp_path / "marks"
    workspace.mkdir()
    plant_shadows(workspace, marks, SHADOWED, packages=("ctypes", "encodings"))
    (workspace / "README.md").write_text("hello\n")
    return workspace, marks


@pytest.mark.parametrize("sandbox", backend_params())
def test_a_read_only_command_in_a_repository_with_shadow_modules_runs_none_of_them(
    planted: tuple[Path, Path], sandbox: str
) -> None:
    workspace, marks = planted
    env = {**os.environ, "HOME": str(workspace.parent)}
    done = subprocess.run(
        [LAUNCHER, "call", "bash", json.dumps({"command": "ls"}), "--sandbox", sandbox],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "README.md" in done.stdout and "zlib.py" in done.stdout
    assert marks_left(marks) == []


def test_a_helper_started_in_the_workspace_imports_the_standard_modules(
    planted: tuple[Path, Path],
) -> None:
    workspace, marks = planted
    code = helper_code("import zlib, ctypes, struct; print(zlib.__name__, ctypes.CDLL.__name__)")
    done = subprocess.run(
        helper_argv(code),
        cwd=workspace,
        env={**os.environ, "PYTHONPATH": str(workspace)},  # ignored too
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout == "zlib CDLL\n"
    assert marks_left(marks) == []


def test_the_namespaces_probe_run_from_the_workspace_imports_nothing_of_it(
    planted: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, marks = planted
    monkeypatch.chdir(workspace)
    namespaces_work.__wrapped__()
    assert marks_left(marks) == []
