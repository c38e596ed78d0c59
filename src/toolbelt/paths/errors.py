"""The path guard's error messages: one instructive sentence per way an open can fail."""

from __future__ import annotations

import errno
import stat
from pathlib import Path

from toolbelt.core.errors import PathError

__all__ = ["changed", "mapped", "missing", "not_regular"]

_KINDS = {stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFSOCK: "a socket"}  # else: a device


def not_regular(shown: str, mode: int) -> str:
    """Why the thing at ``shown`` (of file type ``mode``) cannot be read as a file."""
    if stat.S_ISDIR(mode):
        return f"{shown} is a directory, not a file; list it with `ls` or search it with `glob`."
    kind = _KINDS.get(stat.S_IFMT(mode), "a device")
    return f"{shown} is {kind}, not a regular file, so it cannot be read as a file."


def missing(shown: str) -> str:
    """The message for a file that is not there."""
    return (
        f"{shown} does not exist. Check the name (use `glob` to find files); relative paths "
        "start at the working directory."
    )


def changed(path: Path) -> PathError:
    """The error for a path that changed between the check and the open (a swap race)."""
    return PathError(
        f"{path} changed while it was being opened (a symlink or another file appeared on the "
        "way), so it was not used; resolve the path again and retry."
    )


def mapped(path: Path, exc: OSError) -> PathError:
    """An OSError from an open, as the error the model reads (a symlink met: ``changed``)."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK, errno.EXDEV):
        return changed(path)
    if exc.errno == errno.EACCES:
        return PathError(f"The operating system denies access to {path}; choose another path.")
    if exc.errno == errno.ENXIO:
        return PathError(f"{path} is a socket or device without a reader; it cannot be read.")
    return PathError(f"{path} cannot be opened ({exc.strerror}); check the path and retry.")
