"""Putting a recorded state back at a path: a file's bytes and mode bits, a symlink, or
nothing.

Every write goes through the path guard: the parent directory is opened from ``/`` without
following a symlink (created if the call had removed it) and the file is replaced atomically
inside it (``files.atomic``), so a symlink planted in the workspace since cannot redirect an
undo outside it, and an undo killed half-way leaves each file whole, old or new. A file the
call created is removed, with the directories it created for it once they are empty.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import replace
from pathlib import Path

from toolbelt.checkpoints.layout import Layout
from toolbelt.checkpoints.objects import blob_id, read_loose_blob
from toolbelt.checkpoints.shadow_git import ShadowGit
from toolbelt.checkpoints.states import FileState, current_umask
from toolbelt.files.atomic import atomic_write
from toolbelt.paths.guard import PathGuard

__all__ = ["Restorer"]


class Restorer:
    """Writes states into one workspace from its store."""

    def __init__(self, layout: Layout, git: ShadowGit) -> None:
        self.layout = layout
        self.git = git
        self.guard = PathGuard(layout.root)

    def absolute(self, path: str) -> Path:
        """A recorded path as an absolute one (recorded paths are relative to the root unless
        the file lies outside it)."""
        return Path(path) if os.path.isabs(path) else self.layout.root / path

    def content(self, state: FileState) -> bytes:
        """The bytes ``state`` names: a big file's kept inode, or a blob (loose, or packed by
        a prune)."""
        if state.raw is not None:
            return (self.layout.raw / state.raw).read_bytes()
        data = read_loose_blob(self.layout.objects, state.oid)
        return data if data is not None else self.git.run("cat-file", "blob", state.oid)

    def resolved(self, state: FileState | None) -> FileState | None:
        """``state`` with its content id, computed from its raw copy if it has none yet."""
        if state is None or state.oid or state.raw is None:
            return state
        try:
            return replace(state, oid=blob_id(self.content(state)))
        except FileNotFoundError:
            return replace(state, oid="missing")

    def put(self, path: str, state: FileState | None, *, dirs: tuple[str, ...] = ()) -> None:
        """Make ``path`` hold ``state`` (None: remove it, then the empty ``dirs`` the call
        created); raises OSError or PathError when the path cannot be written."""
        target = self.absolute(path)
        if state is None:
            self._remove(target)
            for directory in sorted(dirs, key=len, reverse=True):
                with contextlib.suppress(OSError):  # not empty: something else lives there
                    os.rmdir(self.absolute(directory))
            return
        data = self.content(state)
        dir_fd = self.guard.open_dir_for_write(target, create_parents=True)
        try:
            if state.kind == "link":
                _replace_with_link(dir_fd, target.name, os.fsdecode(data))
            else:
                atomic_write(dir_fd, target.name, data, mode=_mode_for(dir_fd, target.name, state))
        finally:
            os.close(dir_fd)

    def _remove(self, target: Path) -> None:
        try:
            dir_fd = self.guard.open_dir_for_write(target)
        except Exception:
            if not os.path.lexists(target):
                return  # its directory is gone too: nothing to remove
            raise
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target.name, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)


def _mode_for(dir_fd: int, name: str, state: FileState) -> int:
    """The mode bits to restore: the recorded ones, or (git's 644/755) the file's current bits
    when they agree on the executable bit, else the umask's default."""
    if state.exact:
        return state.mode
    executable = bool(state.mode & 0o100)
    try:
        current = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        current = None
    regular = current is not None and stat.S_ISREG(current.st_mode)
    if current is not None and regular and bool(current.st_mode & 0o100) == executable:
        return stat.S_IMODE(current.st_mode)
    return (0o777 if executable else 0o666) & ~current_umask()


def _replace_with_link(dir_fd: int, name: str, target: str) -> None:
    temp = f".{name}.toolbelt-link-{secrets.token_hex(6)}"
    os.symlink(target, temp, dir_fd=dir_fd)
    try:
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
