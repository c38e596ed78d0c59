"""grep, glob and ls leave out files whose read asks in every mode (``.env*``), through the CLI.

read_file of ``.env`` asks in every mode, plan included; a search that printed its lines, or a
listing that named it, would be that read without the question. A grep whose path is the
``.env`` file itself asks, as before, and shows its lines once approved.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.config.test_trust import toolbelt


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / ".env").write_text("SECRET=1\n")
    (work / "sub" / ".ENV.local").write_text("SECRET=2\n")
    (work / "app.py").write_text("SECRET = env('SECRET')\n")
    (tmp_path / "home").mkdir()
    return work


@pytest.mark.parametrize("mode", ["plan", "bypass"])
def test_grep_leaves_dotenv_files_out(work: Path, mode: str) -> None:
    for extra, expected in [
        ({}, "app.py:1:SECRET = env('SECRET')\n"),
        ({"glob": ".env"}, "No matches found.\n"),
        ({"glob": "**/.ENV*"}, "No matches found.\n"),
    ]:
        args = json.dumps({"pattern": "SECRET", "output_mode": "content", **extra})
        out = toolbelt("call", "grep", args, "--mode", mode, cwd=work, home=work.parent / "home")
        assert (out.returncode, out.stdout) == (0, expected)


def test_glob_and_ls_leave_dotenv_files_out(work: Path) -> None:
    home = work.parent / "home"
    out = toolbelt("call", "glob", '{"pattern": "**/*"}', "--mode", "plan", cwd=work, home=home)
    assert (out.returncode, out.stdout) == (0, "app.py\n")
    args = '{"path": ".", "hidden": true, "depth": 2}'
    out = toolbelt("call", "ls", args, "--mode", "plan", cwd=work, home=home)
    assert out.returncode == 0
    assert ".env" not in out.stdout.lower()
    assert "app.py" in out.stdout


def test_grep_of_the_dotenv_file_itself_asks_and_shows_it_once_approved(work: Path) -> None:
    home = work.parent / "home"
    args = json.dumps({"pattern": "SECRET", "path": ".env", "output_mode": "content"})
    refused = toolbelt("call", "grep", args, "--mode", "plan", cwd=work, home=home)
    assert refused.returncode == 3
    assert "SECRET=1" not in refused.stdout
    approved = toolbelt("call", "grep", args, "--yes", cwd=work, home=home)
    assert (approved.returncode, approved.stdout) == (0, ".env:1:SECRET=1\n")
