"""The programs toolbelt runs itself (git, rg, bash, bwrap), found on PATH's absolute entries.

A program named by its bare name is looked up on ``PATH`` at exec time, and a relative entry
(``node_modules/.bin``, ``.``, or the empty entry ``::`` / a trailing ``:`` that means the
current directory) is resolved against the child's cwd — the workspace. Its own ``git`` or a
``bash`` a sandboxed command planted there would then run unconfined the next time toolbelt
lists a directory. So toolbelt resolves these names once, through the absolute entries only,
and runs the full path.
"""

from __future__ import annotations

import functools
import os
import shutil

__all__ = ["absolute_path", "program"]


def absolute_path(path: str | None) -> str:
    """``path`` (a PATH value; the environment's when None) without its relative entries."""
    value = os.environ.get("PATH", os.defpath) if path is None else path
    return os.pathsep.join(entry for entry in value.split(os.pathsep) if os.path.isabs(entry))


def program(name: str) -> str | None:
    """The full path of ``name`` on the environment's absolute PATH entries, or None (never
    the bare name: exec would look it up again, relative entries included)."""
    return _lookup(name, os.environ.get("PATH", os.defpath))


@functools.lru_cache(maxsize=64)
def _lookup(name: str, path: str) -> str | None:
    return shutil.which(name, path=absolute_path(path))
