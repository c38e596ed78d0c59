"""git_commit runs git as ``git commit`` through the bash tool would: inside the sandbox's git
profile, with the commands' environment, on the repository it found — never where the
repository's config relocates it. Through the real ``toolbelt call git_commit`` and real git.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.runners.cli import SECRET, Place, git, needs_sandbox, place, toolbelt

__all__ = ["place"]

pytestmark = needs_sandbox


def repo(place: Place) -> Path:
    ws = place.ws
    git(ws, "init", "-q", "-b", "main")
    git(ws, "config", "user.name", "Test Person")
    git(ws, "config", "user.email", "test@example.test")
    (ws / "a.txt").write_text("one\n")
    git(ws, "add", "a.txt")
    git(ws, "commit", "-qm", "start")
    (ws / "a.txt").write_text("two\n")
    return ws


def commit(
    place: Place, *more: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    args = json.dumps({"message": "Change a"})
    return toolbelt("call", "git_commit", args, "--yes", *more, place=place, env=env)


def hook(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


THIEF = 'cat "$HOME/.ssh/id_rsa" > stolen.txt 2>&1; echo x > {outside}/written; exit 0'


@pytest.mark.parametrize("where", ["hooksPath", "hooks"])
def test_a_trusted_repositorys_hook_runs_confined(place: Place, where: str) -> None:
    ws = repo(place)
    if where == "hooksPath":  # a common set-up: hooks kept in the work tree
        git(ws, "config", "core.hooksPath", ".githooks")
        hook(ws / ".githooks" / "pre-commit", THIEF.format(outside=place.outside))
    else:
        hook(ws / ".git" / "hooks" / "pre-commit", THIEF.format(outside=place.outside))
    done = commit(place, "--trust-workspace")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Committed ")
    assert git(ws, "log", "-1", "--format=%s") == "Change a\n"
    stolen = (ws / "stolen.txt").read_text()
    assert SECRET not in stolen and "No such file or directory" in stolen  # the hook did run
    assert not (place.outside / "written").exists()


def test_a_filter_the_trusted_config_names_runs_confined(place: Place) -> None:
    ws = repo(place)
    hook(ws / "tools" / "clean.sh", 'cat "$HOME/.ssh/id_rsa" >> leak.txt 2>/dev/null; cat')
    git(ws, "config", "filter.tidy.clean", "./tools/clean.sh")
    (ws / ".gitattributes").write_text("*.txt filter=tidy\n")
    (ws / "leak.txt").write_text("")
    done = commit(place, "--trust-workspace")
    assert done.returncode == 0, done.stdout + done.stderr
    assert SECRET not in (ws / "leak.txt").read_text()


def test_a_hook_gets_the_environment_commands_get(place: Place) -> None:
    ws = repo(place)
    hook(ws / ".git" / "hooks" / "pre-commit", "env > hook-env.txt")
    done = commit(place, "--trust-workspace", env={"DEPLOY_TOKEN": "tok-8f3e", "PLAIN": "yes"})
    assert done.returncode == 0, done.stdout + done.stderr
    seen = (ws / "hook-env.txt").read_text()
    assert "PLAIN=yes" in seen
    assert "tok-8f3e" not in seen


def test_core_worktree_does_not_move_the_commit_out_of_the_workspace(place: Place) -> None:
    """An unpacked archive's repository whose config points its work tree at the home and
    whose index tracks ``.ssh/id_rsa``: the commit is made of the workspace's files."""
    ws = repo(place)
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=ws, input="old\n", text=True,
        capture_output=True, check=True,
    ).stdout.strip()  # fmt: skip
    git(ws, "update-index", "--add", "--cacheinfo", f"100644,{blob},.ssh/id_rsa")
    git(ws, "config", "core.worktree", str(place.home))
    (place.home / "a.txt").write_text("home's a\n")
    done = commit(place)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = git(ws, "log", "-p", "--all")
    assert SECRET not in shown
    assert git(ws, "--work-tree", str(ws), "show", "HEAD:a.txt") == "two\n"


def test_a_git_file_pointing_outside_an_untrusted_workspace_is_refused(place: Place) -> None:
    elsewhere = place.outside / "repo"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q", "-b", "main")
    (place.ws / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
    (place.ws / "a.txt").write_text("x\n")
    done = commit(place)
    assert done.returncode == 1
    assert done.stdout == (
        "This repository's git directory (its .git points there) is outside the workspace "
        f"({elsewhere / '.git'}), and the workspace is not trusted, so git_commit does not "
        "write there; ask the user to commit by hand, or to trust the workspace.\n"
    )


def test_a_trusted_linked_worktree_commits_and_its_hook_cannot_touch_the_main_repository(
    place: Place,
) -> None:
    """A worktree's git directory lives in the main repository's ``.git/worktrees/``, outside
    the workspace: the git profile lets git write it, and the main repository's hooks, config
    and ``info/`` stay read-only for the hook."""
    main = place.outside / "main"
    main.mkdir()
    git(main, "init", "-q", "-b", "main")
    git(main, "config", "user.name", "Test Person")
    git(main, "config", "user.email", "test@example.test")
    (main / "a.txt").write_text("one\n")
    git(main, "add", "a.txt")
    git(main, "commit", "-qm", "start")
    worktree = place.ws / "side"
    git(main, "worktree", "add", "-q", str(worktree), "-b", "side")
    writes = " ".join(
        f"echo x >> {main / '.git' / name};"
        for name in ("hooks/post-commit", "config", "info/attributes")
    )
    hook(main / ".git" / "hooks" / "pre-commit", f"{{ {writes} }} 2>>hook-err.txt; exit 0")
    (worktree / "a.txt").write_text("two\n")
    args = json.dumps({"message": "Change a"})
    done = toolbelt(
        "call", "git_commit", args, "--yes", "--root", str(worktree), "--trust-workspace",
        place=place, cwd=worktree,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(worktree, "log", "-1", "--format=%s") == "Change a\n"
    assert not (main / ".git" / "hooks" / "post-commit").exists()
    assert "x" not in (main / ".git" / "config").read_text().splitlines()
    assert (worktree / "hook-err.txt").read_text().count("Read-only file system") == 3
