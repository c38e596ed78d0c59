"""A git worktree (or submodule) keeps its git directory outside the workspace: read-only git
commands in the sandbox's read-only profile must still see it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.sandbox.test_cli import toolbelt
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.sandbox import linked_git_dirs


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "HOME": str(cwd)}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def worktree(tmp_path: Path) -> Path:
    main = tmp_path / "main"
    main.mkdir()
    git("init", "-q", "-b", "main", cwd=main)
    (main / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=main)
    git("commit", "-qm", "first commit", cwd=main)
    git("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side", cwd=main)
    return tmp_path / "wt"


def test_the_linked_git_dirs_are_the_worktrees_and_the_main_repositorys(
    worktree: Path, tmp_path: Path
) -> None:
    main_git = (tmp_path / "main" / ".git").resolve()
    assert linked_git_dirs([worktree]) == (main_git / "worktrees" / "wt", main_git)
    assert linked_git_dirs([tmp_path / "main"]) == ()  # .git is a directory: nothing to add


@pytest.mark.skipif(abi_version() < 1, reason="needs Landlock")
def test_git_log_in_a_worktree_runs_in_the_read_only_profile(
    worktree: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = toolbelt(
        "call", "bash", '{"command": "git log --format=%s -n 1"}', "--root", str(worktree),
        "--sandbox", "landlock", home=home,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "first commit\n"), done.stderr
