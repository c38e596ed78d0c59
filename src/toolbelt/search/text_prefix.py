"""A file named on its own is searched up to its binary data, as rg searches what it finds.

rg gives up on a file at its first NUL byte when it found the file walking a directory, but a
file it is handed — a path, or the opened file as its standard input, as grep does with a file
named on its own — it reads to the end, looking for a match it can report as "binary file
matches": 17 s on a 10 GB sparse file, all of it zeros. So grep hands rg a pipe instead and
copies the opened file into it, in a thread, up to the first NUL byte: rg sees the text before
the binary data, the result says from which byte on nothing was searched, and the copy ends as
soon as rg does (killed by the time budget, or done with the page it was asked for).

A file that starts with a UTF-16 byte-order mark is copied whole: its NULs are text, which rg
decodes.
"""

from __future__ import annotations

import os
import threading
from types import TracebackType

__all__ = ["TextPrefix"]

_CHUNK = 1024 * 1024
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


class TextPrefix:
    """``with TextPrefix(fd) as stdin:`` — ``stdin`` reads ``fd``'s content up to its first NUL
    byte; afterwards ``binary_at`` is that byte's offset (None: there was none, or it was
    never reached). ``fd`` stays the caller's to close."""

    def __init__(self, fd: int) -> None:
        self._source = fd
        self.binary_at: int | None = None
        self._read_end, self._write_end = os.pipe()
        self._thread = threading.Thread(target=self._copy, daemon=True)

    def __enter__(self) -> int:
        self._thread.start()
        return self._read_end

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        os.close(self._read_end)  # a copy still writing gets EPIPE and stops
        self._thread.join()

    def _copy(self) -> None:
        offset, whole = 0, None
        try:
            while True:
                data = os.read(self._source, _CHUNK)
                if not data:
                    return
                if whole is None:
                    whole = data.startswith(_UTF16_MARKS)
                cut = -1 if whole else data.find(b"\0")
                if cut != -1:
                    self.binary_at = offset + cut
                    data = data[:cut]
                _write_all(self._write_end, data)
                if cut != -1:
                    return
                offset += len(data)
        except OSError:  # the reader is gone (rg done or killed): nothing more to copy
            return
        finally:
            os.close(self._write_end)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
