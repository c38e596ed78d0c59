"""Files that run code later (CI workflows, git and package-manager hooks and settings) are
protected: writing one asks even in accept_edits and bypass, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.toolbelt_cli import toolbelt


@pytest.mark.parametrize(
    "name",
    [
        ".npmrc",
        ".cargo/config.toml",
        ".husky/pre-commit",
        ".pre-commit-config.yaml",
        ".devcontainer/devcontainer.json",
        ".github/workflows/ci.yml",
        ".gitattributes",
        ".gitmodules",
        ".envrc",
        ".yarnrc.yml",
    ],
)
@pytest.mark.parametrize("mode", ["accept_edits", "bypass"])
def test_write_file_asks_for_a_run_code_later_file(tmp_path: Path, name: str, mode: str) -> None:
    args = json.dumps({"path": name, "content": "x\n"})
    out = toolbelt("call", "write_file", args, "--root", str(tmp_path), "--mode", mode)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "touches a protected path" in out.stdout
    assert not (tmp_path / name).exists()


def test_an_ordinary_makefile_is_written_in_accept_edits(tmp_path: Path) -> None:
    args = json.dumps({"path": "Makefile", "content": "all:\n"})
    out = toolbelt("call", "write_file", args, "--root", str(tmp_path), "--mode", "accept_edits")
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tmp_path / "Makefile").read_text() == "all:\n"
