"""Checkpoint files are written whole or not at all, whatever kills the writer.

A loose blob (``objects``) and a journal record (``records``) both go to a fresh temp file
beside their final name (created ``O_EXCL``, so two writers never share one), are fsynced and
renamed over the final name; a failed write removes its temp file. Only the temp file's name
and its mode differ between the two, so they are the caller's.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["write_whole"]


def write_whole(temp: Path, target: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to the new file ``temp`` (``mode``), fsync it, rename it to ``target``."""
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    os.close(fd)
    os.replace(temp, target)
