"""Reading a small workspace file that no path guard looked at, without ever blocking.

Some files toolbelt reads on its own, before or beside any tool call: ``.git/HEAD`` for the
system prompt's branch, a ``.git`` file's ``gitdir:`` line, a worktree's ``commondir``, the
configuration a launch entry names. The workspace wrote them, so each may be a FIFO (an
``open`` that waits for a writer, forever), a symlink to ``/dev/zero`` or ``/dev/tty`` (a
read with no end, or one that steals the terminal's input), or gigabytes long. ``read_small``
opens with ``O_NONBLOCK | O_NOCTTY`` (a FIFO opens at once and is then refused), decides on
the opened descriptor that it is a regular file, and reads at most ``limit`` bytes: what it
returns was read from that descriptor, and nothing else is ever waited for.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["SMALL_FILE_BYTES", "read_head", "read_small", "read_small_text"]

SMALL_FILE_BYTES = 64 * 1024
"""The most read by default: a git pointer, a ``HEAD``, a tool's configuration file."""

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def read_small(
    path: str | os.PathLike[str], limit: int = SMALL_FILE_BYTES, *, dir_fd: int | None = None
) -> bytes | None:
    """The content of the regular file at ``path`` (symlinks followed), or None when there is
    none, it is anything else (FIFO, device, directory, socket) or it is longer than
    ``limit`` bytes."""
    data = read_head(path, limit, dir_fd=dir_fd)
    return None if data is None or len(data) > limit else data


def read_head(
    path: str | os.PathLike[str], limit: int = SMALL_FILE_BYTES, *, dir_fd: int | None = None
) -> bytes | None:
    """The first ``limit + 1`` bytes of the regular file at ``path`` (so a caller can tell a
    longer file), or None when there is none or it is not a regular file. ``OSError`` while
    reading counts as none."""
    try:
        fd = os.open(path, _FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_small_text(path: str | Path, limit: int = SMALL_FILE_BYTES) -> str | None:
    """``read_small`` decoded as UTF-8 (None when it is not UTF-8 either)."""
    data = read_small(path, limit)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
