"""The programs toolbelt runs itself are found on PATH's absolute entries outside the workspace
only: a relative or empty entry (``node_modules/.bin``, ``::``) would resolve against the
workspace, an activated virtualenv's ``/abs/ws/.venv/bin`` lies in it, and a ``git`` planted
there would run, unconfined, on the first ``ls``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import toolbelt
from toolbelt.core.programs import absolute_path


def planted_workspace(tmp_path: Path) -> tuple[Path, Path]:
    ws, marker = tmp_path / "ws", tmp_path / "planted-git-ran"
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "src.txt").write_text("x\n")
    for where in (ws, ws / "node_modules" / ".bin", ws / ".venv" / "bin"):
        where.mkdir(parents=True, exist_ok=True)
        git = where / "git"
        git.write_text(f"#!/bin/sh\necho ran > {marker}\n")
        git.chmod(0o755)
    return ws, marker


@pytest.mark.parametrize(
    "prefix", ["node_modules/.bin:", ":", ".:", "{ws}/.venv/bin:", "{link}/bin:"]
)
def test_ls_never_runs_a_git_a_path_entry_finds_in_the_workspace(
    tmp_path: Path, prefix: str
) -> None:
    ws, marker = planted_workspace(tmp_path)
    (tmp_path / "venv-link").symlink_to(ws / ".venv")  # outside by name, inside once resolved
    path = prefix.format(ws=ws, link=tmp_path / "venv-link") + os.environ["PATH"]
    done = toolbelt("call", "ls", '{"path": "."}', "--json", cwd=ws, env={"PATH": path})
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert '"build' not in done.stdout  # the real git was asked: ignored entries left out
    assert "src.txt" in done.stdout


def test_absolute_path_keeps_only_absolute_entries() -> None:
    assert absolute_path("node_modules/.bin::/usr/bin:.:/bin:") == "/usr/bin:/bin"
