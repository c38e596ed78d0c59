"""A repository's ``zlib.py``, ``ctypes/`` or ``encodings/`` never runs in the Python helpers
toolbelt starts (the sandbox launcher, the namespaces probe): they start in the workspace, and
what they import before confining must come from the interpreter's library, not from there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolbelt.shell.backends import namespaces_work
from toolbelt.shell.helper_python import helper_argv, helper_code
from toolbelt.shell.landlock import abi_version

TOOLBELT = Path(sys.executable).with_name("toolbelt")
SHADOWED = ["zlib", "marshal", "ctypes", "encodings", "struct", "errno"]


def plant_shadows(workspace: Path, marks: Path) -> None:
    """Modules and packages of standard-library names that each leave a file in ``marks``."""
    marks.mkdir()
    for name in SHADOWED:
        body = f"open({str(marks / name)!r}, 'w').write('ran')\n"
        (workspace / f"{name}.py").write_text(body)
    for name in ("ctypes", "encodings"):
        (workspace / name).mkdir()
        (workspace / name / "__init__.py").write_text(f"open({str(marks / name)!r}, 'w')\n")


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    workspace, marks = tmp_path / "ws", tmp_path / "marks"
    workspace.mkdir()
    plant_shadows(workspace, marks)
    (workspace / "README.md").write_text("hello\n")
    return workspace, marks


def _backends() -> list[str]:
    usable = []
    if abi_version() >= 1:
        usable.append("landlock")
    probe = ["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--", "true"]
    if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        usable.append("bwrap")
    return usable


@pytest.mark.parametrize("sandbox", _backends())
def test_a_read_only_command_in_a_repository_with_shadow_modules_runs_none_of_them(
    planted: tuple[Path, Path], sandbox: str
) -> None:
    workspace, marks = planted
    env = {**os.environ, "HOME": str(workspace.parent)}
    done = subprocess.run(
        [TOOLBELT, "call", "bash", json.dumps({"command": "ls"}), "--sandbox", sandbox],
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
    assert sorted(p.name for p in marks.iterdir()) == []


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
    assert sorted(p.name for p in marks.iterdir()) == []


def test_the_namespaces_probe_run_from_the_workspace_imports_nothing_of_it(
    planted: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, marks = planted
    monkeypatch.chdir(workspace)
    namespaces_work.__wrapped__()
    assert sorted(p.name for p in marks.iterdir()) == []
