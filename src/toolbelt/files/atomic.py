"""Atomic saving: a file is replaced whole or not at all, never left torn.

The new content goes to a temp file in the same directory (created ``O_EXCL|O_NOFOLLOW``,
inside a directory fd the path guard opened without following symlinks), is fsynced, takes
the old file's mode bits, and is renamed over the target with ``os.replace``. A writer
killed half-way leaves only a temp
file, which ``sweep_stale_temp_files`` removes later. The directory itself is not fsynced:
after a power loss the rename may be lost and the old file found — whole, never torn.
Measured: in-place writes tore 110 of 200
SIGKILLed files in the research runs; this scheme tore none.

``replace_file`` is the same scheme for a file named by its path, not inside a guarded
directory: toolbelt's own state (checkpoint objects and records, the trust file, OAuth
records, the MCP token file, the ready file).
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

__all__ = [
    "TEMP_MARKER",
    "atomic_write",
    "replace_file",
    "sweep_now_and_then",
    "sweep_stale_temp_files",
]

TEMP_MARKER = ".toolbelt-tmp-"
SWEEP_AGE = 60.0

_last_sweep: dict[Path, float] = {}


def atomic_write(dir_fd: int, name: str, data: bytes, *, mode: int | None = None) -> bool:
    """Replace ``name`` in the directory ``dir_fd`` with ``data``; True if it was created.

    The new file takes ``mode`` when given (an undo restoring a file's own bits, a moved file
    keeping its source's), else the old file's mode bits, else the umask's default."""
    try:
        old_mode: int | None = stat.S_IMODE(
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        )
    except FileNotFoundError:
        old_mode = None
    temp = f".{name}{TEMP_MARKER}{os.urandom(6).hex()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o600, dir_fd=dir_fd)
    try:
        _write_all(fd, data)
        if mode is None:
            mode = old_mode if old_mode is not None else 0o666 & ~_umask()
        os.fchmod(fd, mode)
        os.close(fd)
        fd = -1
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    return old_mode is None


def replace_file(target: Path, data: bytes, *, mode: int, temp: Path | None = None) -> None:
    """Replace ``target`` with a new file holding ``data``, whole or not at all.

    ``data`` goes to ``temp`` (a fresh name beside ``target`` unless given), created
    ``O_EXCL`` with ``mode`` (less the umask), fsynced and renamed over ``target``; a failed
    write removes it."""
    temp = temp or target.with_name(f".{target.name}{TEMP_MARKER}{os.urandom(6).hex()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` and fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def sweep_now_and_then(directory: Path) -> None:
    """Sweep ``directory`` unless it was swept in the last ``SWEEP_AGE`` seconds: a temp file
    is only stale after that long anyway, and listing a big directory on every save would
    cost milliseconds."""
    now = time.monotonic()
    if now - _last_sweep.get(directory, -SWEEP_AGE) >= SWEEP_AGE:
        if len(_last_sweep) > 4096:  # a long-lived server touching many directories
            _last_sweep.clear()
        _last_sweep[directory] = now
        sweep_stale_temp_files(directory)


def sweep_stale_temp_files(directory: Path, *, older_than: float = SWEEP_AGE) -> int:
    """Remove temp files a crashed writer left in ``directory``; returns how many."""
    removed, cutoff = 0, time.time() - older_than
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if TEMP_MARKER in entry.name and entry.is_file(follow_symlinks=False):
            try:
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
    return removed


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
