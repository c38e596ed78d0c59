"""The files a search's output names, judged for the listing as rg prints them.

grep's content and count lines are ``path\\0…`` (rg's ``--null``), a file's lines together
(rg writes each file's results at once). Each file is judged once (``core.listing``: the
policy's filter, with the stat of the file — through the directory the path guard opened —
for its hard-link test), in the thread that reads rg's output while rg still searches, so the
judging overlaps the search; the lines of the files it hides are then left out, with the
line rg adds after a file's results when it stopped at the file's binary data.

Judging fails closed. rg prints a name as it is, so a name holding a line break (``we\\nird``)
comes out cut in two: a line without a NUL (``we``), then one that looks like another file's
(``ird\\0…``). Taken for what they look like, a hard link to a secret so named would be
judged as a file ``ird`` that does not exist, and shown. So a line without a NUL that is not
rg's note on binary data is the start of such a name: it and the lines up to the next
``path\\0`` one, which ends the name, are left out, and the whole name (the pieces joined by
line breaks) is what is judged — only to count the visible ones for a note
(``unnamed``), since the results cannot show the name exactly. A path that cannot be
stat'ed is hidden: rg just read it, so a failure means it is not what it seems.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable

from toolbelt.core.listing import ListingJudge

__all__ = ["JudgedFiles"]

_BINARY_NOTE = b": WARNING: stopped searching binary file after match (found "
"""What rg's note on binary data holds after the file's path (the line has no NUL)."""


class JudgedFiles:
    """Feed it rg's lines (``feed``), then filter them in the same order (``keeps``);
    ``hidden`` holds the raw paths the listing leaves out, ``unnamed`` the names holding a
    line break whose results were left out although the listing would show them."""

    def __init__(self, dir_fd: int, judge: ListingJudge) -> None:
        """``dir_fd``: the directory rg searched (the paths are relative to it)."""
        self._fd = dir_fd
        self._judge = judge
        self._verdicts: dict[bytes, bool] = {}
        self._kept: deque[bool] = deque()
        self._current = b""
        self._pieces: list[bytes] = []
        self.hidden: set[bytes] = set()
        self.unnamed: set[bytes] = set()
        self.broken = False
        """Whether a line was left out as part of a name holding a line break."""
        self.lines_named = 0
        """How many lines fed so far start with ``path\\0``."""

    @property
    def altered(self) -> bool:
        """Whether ``keeps`` leaves any line out."""
        return bool(self.hidden) or self.broken

    def feed(self, lines: bytes) -> None:
        """Judge the files of complete ``lines`` (each ending with a newline), in order."""
        for line in lines.split(b"\n")[:-1]:
            if line == b"--":
                continue  # a separator between context groups is always kept
            path, nul, _ = line.partition(b"\0")
            if not nul:
                self._kept.append(self._unnamed_line(line))
                continue
            self.lines_named += 1
            if self._pieces:  # the end of a name cut by its line breaks
                whole = b"\n".join((*self._pieces, path))
                self._pieces = []
                self.broken = True
                if not self._hides(whole):
                    self.unnamed.add(whole)
                self._current = b"\0"  # no real path: the lines after it go nowhere
                self._kept.append(False)
                continue
            self._current = path
            self._kept.append(not self._hides(path))

    def keeps(self) -> Callable[[bytes], bool]:
        """A filter of rg's lines, fed before and taken in the same order: False for the
        lines of the files it hid and the pieces of names holding a line break."""
        kept = self._kept

        def keep(line: bytes) -> bool:
            if line == b"--":
                return True
            return kept.popleft() if kept else False

        return keep

    def _unnamed_line(self, line: bytes) -> bool:
        """Whether to keep ``line``, which has no NUL: rg's note that it stopped at the
        current file's binary data goes with that file; anything else is a piece of a name
        holding a line break (as is a note-shaped line when a name in its directory starts
        with it and a line break, or one that follows such a piece)."""
        if not self._pieces and self._binary_note(line):
            return self._current != b"\0" and self._current not in self.hidden
        self._pieces.append(line)
        return False

    def _binary_note(self, line: bytes) -> bool:
        current = self._current
        if not current or current == b"\0" or not line.startswith(current + _BINARY_NOTE):
            return False
        directory, _, name = line.rpartition(b"/")
        try:
            fd = os.open(directory or b".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=self._fd)
        except OSError:
            return False
        try:
            start = name + b"\n"
            return not any(os.fsencode(entry).startswith(start) for entry in os.listdir(fd))
        except OSError:
            return False
        finally:
            os.close(fd)

    def _hides(self, raw: bytes) -> bool:
        """The listing's verdict on the file ``raw`` (judged once); one that cannot be
        stat'ed is hidden."""
        verdict = self._verdicts.get(raw)
        if verdict is None:
            try:
                info = os.stat(raw, dir_fd=self._fd)
            except (OSError, ValueError):
                verdict = True
            else:
                verdict = self._judge(raw.decode("utf-8", "surrogateescape"), info)
            self._verdicts[raw] = verdict
            if verdict:
                self.hidden.add(raw)
        return verdict
