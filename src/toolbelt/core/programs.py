"""The programs toolbelt runs itself (git, rg, bash, bwrap), found on PATH outside the workspace.

A program named by its bare name is looked up on ``PATH``. Two kinds of entry would find it in
the workspace, where a sandboxed command may write: a relative entry (``node_modules/.bin``,
``.``, or the empty entry ``::`` / a trailing ``:`` that means the current directory), resolved
against the child's cwd; and an absolute entry inside a workspace root — the usual state of a
developer's shell: an activated virtualenv (``/abs/ws/.venv/bin`` first), direnv's
``PATH_add bin``, ``$PWD/node_modules/.bin``. A ``git`` or ``python3`` planted there would run
unconfined the next time toolbelt lists a directory or a hook runs.

The rule: what toolbelt runs on its own behalf (``program``) and what the user configured
outside the workspace (the user's hooks and MCP servers: ``outside_path``) is found through
the absolute entries whose real path (symlinks resolved) lies outside every workspace root
any session of this process opened (``count_workspace``); the workspace's own pinned servers
and the bash tool keep the user's PATH, absolute entries only (``absolute_path``): that is the
workspace's code, run by choice.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

__all__ = ["absolute_path", "count_workspace", "inside_workspace", "outside_path", "program"]

_roots: tuple[str, ...] = ()
_lock = threading.Lock()


def count_workspace(roots: Iterable[str | Path]) -> None:
    """Register ``roots`` as workspace roots for the rest of the process (a ``Session`` does
    it): a server serving several workspaces keeps out of all of them."""
    global _roots
    with _lock:
        _roots = tuple(dict.fromkeys((*_roots, *(os.path.realpath(r) for r in roots))))


def inside_workspace(path: str | Path) -> bool:
    """Whether ``path``'s real path is a registered workspace root or lies beneath one."""
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in _roots)


def absolute_path(path: str | None) -> str:
    """``path`` (a PATH value; the environment's when None) without its relative entries."""
    value = os.environ.get("PATH", os.defpath) if path is None else path
    return os.pathsep.join(entry for entry in value.split(os.pathsep) if os.path.isabs(entry))


def outside_path(path: str | None) -> str:
    """``path``'s absolute entries that lie outside every workspace root (see the module)."""
    entries = absolute_path(path).split(os.pathsep)
    return os.pathsep.join(e for e in entries if e and not inside_workspace(e))


def program(name: str) -> str | None:
    """The full path of ``name`` on the environment's PATH outside the workspace, or None
    (never the bare name: exec would look it up again, on the whole PATH)."""
    return _lookup(name, os.environ.get("PATH", os.defpath), _roots)


@functools.lru_cache(maxsize=64)
def _lookup(name: str, path: str, roots: tuple[str, ...]) -> str | None:
    found = shutil.which(name, path=outside_path(path))
    # the entry's real path is outside; the file itself may be a link into the workspace
    return None if found is None or inside_workspace(found) else found


def find_rg() -> str | None:
    """Path of the rg binary, or None when there is none (the slow Python path is used)."""
    override = os.environ.get("TOOLBELT_RG")
    if override:
        return override if os.access(override, os.X_OK) else None
    beside = Path(sys.executable).with_name("rg")
    if os.access(beside, os.X_OK):
        return str(beside)
    return program("rg")
