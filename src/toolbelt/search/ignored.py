"""Ask git, in one batch, which paths its ignore rules exclude.

Used where ripgrep's own ignore handling cannot be: listing a single directory level (``ls``)
and dropping files that a ``--glob`` filter let back in (rg gives globs precedence over
ignore files). git runs as a leaf (``procs.tree.run_leaf``): it starts no process here.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from toolbelt.core.programs import program
from toolbelt.procs.tree import run_leaf
from toolbelt.shell.git_files import blocking_file, blocking_git_file

__all__ = ["git_ignored"]


def git_ignored(directory: Path, names: Iterable[str]) -> set[str]:
    """The subset of ``names`` (relative to ``directory``) that git ignores; empty outside git."""
    wanted = sorted(set(names))
    git = program("git")
    if not wanted or git is None:
        return set()
    ignore_files = {directory / ".gitignore"} | {
        directory / parent / ".gitignore" for name in wanted for parent in Path(name).parents
    }
    if blocking_file(ignore_files) or blocking_git_file(directory, os.environ):
        return set()  # git would wait on a FIFO until its timeout
    try:
        out = run_leaf(
            # A workspace's .git/config is the workspace author's: `core.fsmonitor` there is a
            # command git runs whenever it reads the index. --no-index never reads it (and,
            # like rg, judges tracked files by the ignore rules alone); the override is a belt.
            [git, "-c", "core.fsmonitor=false", "check-ignore", "--no-index", "--stdin", "-z"],
            input=b"\0".join(os.fsencode(n) for n in wanted) + b"\0",
            cwd=directory,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if out.returncode not in (0, 1):
        return set()
    # names as the file system has them: a name that is not UTF-8 round-trips (os.fsdecode)
    return {os.fsdecode(name) for name in out.stdout.split(b"\0") if name}
