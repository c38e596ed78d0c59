"""A background job's output file, held to a size: a job that prints forever must not fill the
disk (``yes`` writes gigabytes a minute).

The job writes into a pipe; a thread copies it into the job's 0600 file up to ``limit`` bytes
(the same 64 MiB as a foreground command's spill file, ``output.MAX_SPILL_BYTES``). Past it
the output is still read — the job is never blocked on a full pipe — and counted, and only its
last ``tail`` bytes are kept in memory; when the output ends (every writer closed the pipe)
they are written after the head. ``notice`` tells the model what was dropped, where, and what
it will still see.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from toolbelt.core.wording import counted
from toolbelt.shell.output import MAX_SPILL_BYTES

__all__ = ["TAIL_BYTES", "CappedOutput"]

TAIL_BYTES = 32 * 1024
"""What is kept of the end of an output past the limit: about one bash_output read."""
_CHUNK = 64 * 1024


class CappedOutput:
    """The copy of one job's output into its file; ``start`` returns the pipe's write end."""

    def __init__(self, path: Path, *, limit: int = MAX_SPILL_BYTES, tail: int = TAIL_BYTES):
        self.path = path
        self.limit = limit
        self.tail_size = tail
        self.total = 0
        """Bytes the job printed so far."""
        self.ended = threading.Event()
        """Set once every writer closed the pipe and the tail is in the file."""
        self._tail = bytearray()

    @property
    def past(self) -> int:
        """Bytes printed past the limit so far."""
        return max(0, self.total - self.limit)

    @property
    def dropped(self) -> int:
        """Bytes past the limit that will never be in the file (the tail is kept)."""
        return max(0, self.past - self.tail_size)

    def start(self) -> int:
        """Create the file, start the copying thread; the pipe's write end for the job (the
        caller closes it once the job has it)."""
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        read_end, write_end = os.pipe()  # both close-on-exec; Popen dups the write end to 1
        threading.Thread(target=self._copy, args=(read_end, fd), daemon=True).start()
        return write_end

    def _copy(self, source: int, target: int) -> None:
        try:
            while chunk := os.read(source, _CHUNK):
                room = self.limit - self.total
                self.total += len(chunk)
                if room > 0:
                    _write_all(target, chunk[:room])
                    chunk = chunk[room:]
                if chunk:
                    self._tail += chunk
                    del self._tail[: max(0, len(self._tail) - self.tail_size)]
            _write_all(target, bytes(self._tail))  # after the head (the notice goes between)
        finally:
            os.close(source)
            os.close(target)
            self.ended.set()

    def notice(self) -> str | None:
        """What the model is told where the head ends, if output was (or will be) dropped."""
        if not self.past or (self.ended.is_set() and not self.dropped):
            return None
        narrow = "to see more, run the command again narrowed or piped through grep"
        if not self.ended.is_set():
            return (
                f"[the job has printed {counted(self.total, 'byte')} so far; its output file "
                f"keeps only the first {counted(self.limit, 'byte')} and the last "
                f"{counted(self.tail_size, 'byte')}, shown here when the job ends; {narrow}]"
            )
        return (
            f"[... {counted(self.dropped, 'byte')} dropped here: the job printed "
            f"{counted(self.total, 'byte')}, its output file keeps the first "
            f"{counted(self.limit, 'byte')} and the last {counted(self.tail_size, 'byte')}, "
            f"which follow; {narrow} ...]"
        )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
