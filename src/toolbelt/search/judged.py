"""The files a search's output names, judged for the listing as rg prints them.

grep's content and count lines are ``path\\0…`` (rg's ``--null``), a file's lines together
(rg writes each file's results at once). Each file is judged once (``core.listing``: the
policy's filter, with the stat of the file — through the directory the path guard opened —
for its hard-link test), in the thread that reads rg's output while rg still searches, so the
judging overlaps the search; the lines of the files it hides are then left out, with the
line rg adds after a file's results when it stopped at the file's binary data.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from toolbelt.core.listing import ListingJudge

__all__ = ["JudgedFiles"]

_PATH = re.compile(rb"^[^\0\n]*(?=\0)", re.MULTILINE)
"""The path at the start of each ``path\\0…`` line (``--`` separators have none)."""


class JudgedFiles:
    """Feed it rg's lines (``feed``); ``hidden`` holds the raw paths the listing leaves out."""

    def __init__(self, dir_fd: int, judge: ListingJudge) -> None:
        """``dir_fd``: the directory rg searched (the paths are relative to it)."""
        self._fd = dir_fd
        self._judge = judge
        self._seen: set[bytes] = set()
        self.hidden: set[bytes] = set()
        self.lines_named = 0
        """How many lines fed so far start with ``path\\0``."""

    def feed(self, lines: bytes) -> None:
        """Judge the files of complete ``lines`` not judged before."""
        named = _PATH.findall(lines)
        self.lines_named += len(named)
        new = set(named)
        new -= self._seen
        if not new:
            return
        self._seen |= new
        for raw in new:
            try:
                info: os.stat_result | None = os.stat(raw, dir_fd=self._fd)
            except OSError:
                info = None  # gone: no hard link of anything
            if self._judge(raw.decode("utf-8", "surrogateescape"), info):
                self.hidden.add(raw)

    def keeps(self) -> Callable[[bytes], bool]:
        """A filter of rg's lines (fed before), taken in order: False for the lines of the
        files it hid. A line without a path — rg's note that it stopped at a file's binary
        data, ``path: WARNING: …`` without the NUL — goes with the file before it, whose
        results it ends."""
        hidden, current = self.hidden, b""

        def keep(line: bytes) -> bool:
            nonlocal current
            if line == b"--":
                return True
            path, nul, _ = line.partition(b"\0")
            if nul:
                current = path
            return current not in hidden

        return keep
