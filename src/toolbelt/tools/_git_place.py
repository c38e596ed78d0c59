"""Where a workspace's repository is, found the way git finds it, minus what relocates it.

git looks for ``.git`` from its working directory upwards, and then lets the repository
itself say where its work tree and its git directory are: a ``.git`` *file* whose ``gitdir:``
line names a directory anywhere (how linked worktrees and submodules are made), a
``commondir`` file in that directory naming another, ``core.worktree`` in its config. An
untrusted repository (an unpacked archive with its ``.git``) can point all three outside the
workspace — ``core.worktree = ../../home`` with an index listing ``.ssh/id_rsa`` makes
``git add -u`` hash the user's key into the workspace's history. The environment's
``GIT_DIR``/``GIT_WORK_TREE`` are stripped for that reason; their config twins are neutralised
here: ``locate`` reads the ``.git`` entry and ``commondir`` itself (bounded, never blocking:
``paths.small_read``), and git_commit then runs git with ``GIT_DIR`` and ``GIT_WORK_TREE`` set
to what it found, which no config can move (``core.worktree`` is ignored when
``GIT_WORK_TREE`` is set).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from toolbelt.paths.containment import is_within_any
from toolbelt.paths.small_read import read_small_text

__all__ = ["GitPlace", "locate"]


@dataclass(frozen=True, slots=True)
class GitPlace:
    """A repository as git would use it from some directory."""

    top: Path
    """The work tree: the directory holding ``.git`` (never what ``core.worktree`` says)."""
    dot_git: Path
    """The ``.git`` entry itself (a directory, or a file pointing elsewhere)."""
    git_dir: Path
    """The git directory, real path."""
    common_dir: Path
    """The directory it shares objects and refs with (a linked worktree's main ``.git``),
    real path; the git directory itself otherwise."""

    def outside(self, roots: tuple[Path, ...]) -> list[Path]:
        """Of the work tree and the git directories, those that lie outside ``roots``."""
        real = [Path(os.path.realpath(self.top)), self.git_dir, self.common_dir]
        return [path for path in dict.fromkeys(real) if not is_within_any(path, roots)]


_POINTER_BYTES = 4096


def locate(cwd: Path) -> GitPlace | None:
    """The repository git would use in ``cwd`` (see the module's docstring), or None when
    there is none or its ``.git`` is neither a directory nor a readable ``gitdir:`` file."""
    for directory in (cwd, *cwd.parents):
        dot_git = directory / ".git"
        if not os.path.lexists(dot_git):
            continue
        if os.path.isdir(dot_git):
            git_dir = Path(os.path.realpath(dot_git))
        else:
            text = read_small_text(dot_git, _POINTER_BYTES)
            first = text.splitlines()[0] if text else ""
            if not first.startswith("gitdir:"):
                return None
            git_dir = Path(os.path.realpath(directory / first.removeprefix("gitdir:").strip()))
        if not os.path.isdir(git_dir):
            return None
        common = read_small_text(git_dir / "commondir", _POINTER_BYTES)
        common_dir = git_dir
        if common and common.strip():
            common_dir = Path(os.path.realpath(git_dir / common.strip()))
        return GitPlace(directory, dot_git, git_dir, common_dir)
    return None
