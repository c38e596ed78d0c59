"""What makes git run programs (``.git/commondir``, ``hooks/``, ``modules/``, ``config.worktree``
…) is read-only in the git profile where it exists; where it does not, a program running
there (a trusted repository's hook, git itself) could create it, and the user's next ``git``
in a terminal — outside any sandbox — would obey it: a ``commondir`` naming another repository
takes that repository's config (``core.fsmonitor``) and hooks. So one created while git ran
for git_commit is moved aside when it ends, as a protected name a command creates is, and the
result says where. Through the real ``toolbelt call git_commit`` and real git.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.runners.cli import Place, git, needs_sandbox, place, toolbelt

__all__ = ["place"]

pytestmark = needs_sandbox


def trusted_repository_with_hook(place: Place, body: str) -> Path:
    ws = place.ws
    git(ws, "init", "-q", "-b", "main")
    git(ws, "config", "user.name", "Test Person")
    git(ws, "config", "user.email", "test@example.test")
    git(ws, "config", "core.hooksPath", ".githooks")
    hook = ws / ".githooks" / "post-commit"
    hook.parent.mkdir()
    hook.write_text(f"#!/bin/sh\n{body}\n")
    hook.chmod(0o755)
    (ws / "a.txt").write_text("one\n")
    return ws


@pytest.mark.parametrize(
    ("entry", "body"),
    [
        ("commondir", "echo {outside}/evil.git > .git/commondir"),
        ("config.worktree", "printf '[core]\\n\\tfsmonitor = ./x\\n' > .git/config.worktree"),
        ("modules", "mkdir -p .git/modules/m && echo x > .git/modules/m/config"),
        ("worktrees", "mkdir -p .git/worktrees/w && echo {outside} > .git/worktrees/w/commondir"),
    ],
)
def test_what_makes_git_run_programs_cannot_be_created_by_a_hook(
    place: Place, entry: str, body: str
) -> None:
    ws = trusted_repository_with_hook(place, body.format(outside=place.outside))
    done = toolbelt(
        "call", "git_commit", json.dumps({"message": "Add a", "paths": ["a.txt"]}),
        "--yes", "--trust-workspace", place=place,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (ws / ".git" / entry).exists()
    assert f"The sandbox removed .git/{entry}, which git created, to " in done.stdout
    moved = place.home / ".local" / "state" / "toolbelt" / "quarantine"
    assert any(p.name.startswith(entry) for p in moved.rglob("*")), list(moved.rglob("*"))
    assert git(ws, "log", "-1", "--format=%s") == "Add a\n"  # the user's git still works
