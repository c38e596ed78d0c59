"""Command output held in bounded memory, with the full text spilled to a private file.

The model sees at most ``cap`` characters: the head and the tail, with a note in between
saying how much was left out and where the whole output is. Everything is decoded
incrementally (a multi-byte character split across two reads decodes right; invalid bytes
become U+FFFD, never an exception), and memory stays bounded however much a command prints:
once past the cap, chunks go straight to a 0600 file and only the head and a tail window stay
in memory. Mostly-binary output is summarised (``binary``) and always spilled, and what is sent
is also held to ``MAX_SENT_BYTES`` as JSON, where each control character costs six bytes.

The spill file stops at ``MAX_SPILL_BYTES`` (``yes`` fills a disk in minutes): past it the
output is still read, counted and its tail kept — the command is not blocked on a full pipe,
and is ended as usual — but no longer written, and the note says where the file stops.
"""

from __future__ import annotations

import codecs
import os
import shutil
from collections import deque
from pathlib import Path

from toolbelt.core.wording import counted
from toolbelt.procs.spill_owners import mark_owner, remove_abandoned_spills, spill_base
from toolbelt.shell.binary import PROGRESS_DROPS, BinarySniffer, json_size

__all__ = ["OutputBuffer", "remove_spill_dir", "spill_dir"]

DEFAULT_CAP = 30_000
MAX_SENT_BYTES = 2 * DEFAULT_CAP
MAX_SPILL_BYTES = 64 * 1024 * 1024


_swept_in: int | None = None
"""The pid that swept the dead sessions' directories (once per process)."""


def spill_dir(session_id: str) -> Path:
    """The per-session directory (0700) for spilled output: only this user can read it.

    It records this process as its owner, so that it is removed even if the process is killed
    before ``remove_spill_dir``; the first call in a process removes such directories left by
    processes that are gone (``spill_owners``).
    """
    global _swept_in
    base = spill_base()
    path = base / session_id
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    base.chmod(0o700)
    mark_owner(path)
    if _swept_in != os.getpid():
        _swept_in = os.getpid()
        remove_abandoned_spills(base)
    return path


def remove_spill_dir(session_id: str) -> None:
    """Delete a session's spill directory once the session has ended (nothing reads it then)."""
    shutil.rmtree(spill_base() / session_id, ignore_errors=True)


class OutputBuffer:
    """Accumulates one command's output: head + tail in memory, everything in a spill file."""

    def __init__(
        self, spill_path: Path, *, cap: int = DEFAULT_CAP, spill_limit: int = MAX_SPILL_BYTES
    ) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._spill_path = spill_path
        self._cap = cap
        self._spill_limit = spill_limit
        self._written = 0
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self._file: int | None = None
        self._pending: list[bytes] = []
        self._sniffer = BinarySniffer()
        self._replaced = 0
        self._escaped_too_big = False
        self.total_chars = 0
        self.total_bytes = 0

    def feed(self, data: bytes) -> str:
        """Add raw output; returns the newly decoded text for progress events, without the
        control characters that would only bloat them (NULs of binary output)."""
        self.total_bytes += len(data)
        self._sniffer.feed(data)
        self._store(data)
        text = self._decoder.decode(data)
        self._replaced += text.count("\ufffd")
        self._keep(text)
        return text.translate(PROGRESS_DROPS)

    def finish(self) -> None:
        """Flush the decoder and close the spill file; output that will not be shown whole
        (binary, or too big once JSON-escaped) is spilled even when it is short."""
        self._keep(self._decoder.decode(b"", final=True))
        if self.total_chars <= self._cap and not self._escaped_too_big:
            self._escaped_too_big = (
                json_size("".join(self._head + list(self._tail))) > MAX_SENT_BYTES
            )
        if self._file is None and self._pending and self.spilled is not None:
            self._store(b"", force=True)
        if self._file is not None:
            os.close(self._file)
            self._file = None

    @property
    def spill_truncated(self) -> bool:
        """Whether the spill file stopped at its limit before the output ended."""
        return self.total_bytes > self._written and self._written >= self._spill_limit

    @property
    def binary(self) -> bool:
        """Whether the output is mostly control bytes or not UTF-8: summarised, not shown."""
        return self._sniffer.is_binary(self._replaced)

    @property
    def spilled(self) -> Path | None:
        """The file holding the full output, when it is not shown whole."""
        whole = self.total_chars <= self._cap and not self._escaped_too_big and not self.binary
        return None if whole else self._spill_path

    def text(self) -> str:
        """What the model sees: all of it, head + note + tail, or a binary summary."""
        if self.binary:
            summary = self._sniffer.summary(str(self._spill_path))
            if self.spill_truncated:
                summary += f" (the file holds only the first {counted(self._written, 'byte')})"
            return summary
        head, tail = "".join(self._head), "".join(self._tail)
        if self.spilled is None:
            return head + tail
        tail = tail[-(self._cap // 2) :]
        while json_size(head) + json_size(tail) > MAX_SENT_BYTES - 400:
            head, tail = head[: len(head) // 2], tail[len(tail) // 2 :]
        omitted = self.total_chars - len(head) - len(tail)
        if self.spill_truncated:
            where = (
                f"the output was {counted(self.total_bytes, 'byte')}, of which only the first "
                f"{counted(self._written, 'byte')} were kept, in {self._spill_path} (the rest "
                "is lost; narrow the command or pipe it through head, tail or grep)"
            )
        else:
            where = (
                f"the full output ({counted(self.total_bytes, 'byte')}) is in "
                f"{self._spill_path} — read it with read_file or grep"
            )
        note = f"\n[... {omitted:,} characters omitted; {where} ...]\n"
        return head + note + tail

    def _keep(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        half = self._cap // 2
        if self._head_len < half:
            take = text[: half - self._head_len]
            self._head.append(take)
            self._head_len += len(take)
            text = text[len(take) :]
        if text:
            self._tail.append(text)
            self._tail_len += len(text)
            while self._tail and self._tail_len - len(self._tail[0]) >= half:
                self._tail_len -= len(self._tail.popleft())

    def _store(self, data: bytes, *, force: bool = False) -> None:
        if self._file is None:
            self._pending.append(data)
            if self.total_bytes <= self._cap and not force:
                return
            self._file = os.open(
                self._spill_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600
            )
            data = b"".join(self._pending)
            self._pending.clear()
        room = self._spill_limit - self._written
        view = memoryview(data)[: max(room, 0)]
        self._written += len(view)
        while view:
            view = view[os.write(self._file, view) :]
