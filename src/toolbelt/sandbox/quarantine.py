"""Moving a protected entry a sandboxed command created out of the way, never deleting it.

The clean-up runs unconfined, on a tree the sandboxed code can still change (a background job
keeps running): a removal by path would follow a directory it swapped for a symlink
(``sub -> ~/otherproject``) and delete ``~/otherproject/.git``. So the walk goes from the
root (the user's choice, opened as given) down by directory file descriptors opened
``O_NOFOLLOW|O_DIRECTORY`` (a symlink on the way stops it: nothing outside the root is ever
reached), each checked against the identity (``st_dev``, ``st_ino``) the watch recorded, and
the entry itself must still be the one recorded. And it is moved, not deleted: a user's ``git
clone`` made while a job ran cannot be told from the job's work, and nothing may be lost. It
goes to ``into`` (the user's quarantine folder) when that is on the same file system, else it
is renamed in its own directory to a name nothing loads (``toolbelt-quarantined-…``). A
symlink is moved as a link, never followed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from toolbelt.paths.protected import protected_entry_reason

__all__ = ["Identity", "quarantine"]

Identity = tuple[int, int]
"""``(st_dev, st_ino)``: what an entry is, whatever its path."""

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def identity(stat: os.stat_result) -> Identity:
    return stat.st_dev, stat.st_ino


def quarantine(
    root: Path,
    path: Path,
    *,
    expected: Identity | None,
    directory_identity: Callable[[Path], Identity | None],
    into: Path,
) -> Path:
    """Move ``path`` (below ``root``) aside; returns where it went. Raises ``OSError`` when a
    step is a symlink or not what was recorded (``directory_identity`` of each directory on
    the way, ``expected`` of the entry), or the move fails: then nothing is touched."""
    parts = path.relative_to(root).parts
    fd = os.open(root, _DIRECTORY & ~os.O_NOFOLLOW)  # the root is the user's: as given
    try:
        here = root
        for part in parts[:-1]:
            next_fd = os.open(part, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = next_fd
            here = here / part
            _check(os.fstat(fd), directory_identity(here), here)
        name = parts[-1]
        _check(os.stat(name, dir_fd=fd, follow_symlinks=False), expected, path)
        return _move(fd, name, path, into)
    finally:
        os.close(fd)


def _check(stat: os.stat_result, expected: Identity | None, path: Path) -> None:
    if expected is not None and identity(stat) != expected:
        raise OSError(0, "it was replaced while being checked", str(path))


def _move(fd: int, name: str, path: Path, into: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    label = f"toolbelt-quarantined-{stamp}-{os.getpid()}-{time.monotonic_ns()}"
    try:
        folder = into / label
        folder.mkdir(mode=0o700, parents=True)
        target_fd = os.open(folder, _DIRECTORY)
    except OSError:
        folder = None
    if folder is not None:
        try:
            os.rename(name, name, src_dir_fd=fd, dst_dir_fd=target_fd)
            return folder / name
        except OSError:  # another file system (EXDEV): renamed where it is instead
            folder.rmdir()
        finally:
            os.close(target_fd)
    aside = f"{label}-{name}.quarantined"
    if protected_entry_reason(path.parent, aside):
        raise OSError(0, "no unprotected name to move it to", str(path))
    os.rename(name, aside, src_dir_fd=fd, dst_dir_fd=fd)
    return path.parent / aside
