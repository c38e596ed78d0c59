"""Ranged reads that stream: only the lines asked for are decoded, whatever the file's size.

Reading lines 100,000–102,000 of a million-line file walks the file in binary with
``itertools.islice`` (about 9 ms for 35 MB here) instead of loading it (190–300 ms, and memory
that grows with the file). Lines are decoded one by one, cut at ``max_line_chars``, and the
read stops early when a byte or character budget is spent, saying where to continue.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import BinaryIO

__all__ = ["LineWindow", "count_lines", "read_line_range", "whole_text_window"]


@dataclass(frozen=True, slots=True)
class LineWindow:
    """The lines read, where they are, and why the read stopped."""

    lines: list[str]
    first_line: int
    total_lines: int | None
    stopped_by_budget: bool
    cut_lines: int

    @property
    def last_line(self) -> int:
        """1-based number of the last line returned (first_line - 1 when none)."""
        return self.first_line + len(self.lines) - 1

    def render(self) -> str:
        """``N<TAB>line`` for every line (the read_file format)."""
        first = self.first_line
        return "\n".join(f"{first + i}\t{line}" for i, line in enumerate(self.lines))


def read_line_range(
    handle: BinaryIO,
    offset: int,
    limit: int,
    *,
    encoding: str = "utf-8",
    max_line_chars: int = 2000,
    max_chars: int | None = None,
    count_total: bool = True,
) -> LineWindow:
    """Lines ``offset``..``offset+limit-1`` (1-based) of ``handle``, decoded and cut.

    ``max_chars`` bounds the rendered size (line numbers included); when reached the window
    ends early with ``stopped_by_budget``. ``count_total`` counts the remaining lines in
    chunks so the caller can say how long the file is.
    """
    skipped = sum(1 for _ in itertools.islice(handle, offset - 1))
    lines: list[str] = []
    cut = used = consumed = 0
    stopped = False
    for raw in itertools.islice(handle, limit):
        consumed += 1
        line = raw.decode(encoding, errors="replace").rstrip("\n").rstrip("\r")
        if len(line) > max_line_chars:
            line = f"{line[:max_line_chars]}… [line cut: {len(line)} characters]"
            cut += 1
        cost = len(line) + len(str(offset + len(lines))) + 2
        if max_chars is not None and used + cost > max_chars and lines:
            stopped = True
            break
        used += cost
        lines.append(line)
    total = skipped + consumed + count_lines(handle) if count_total else None
    return LineWindow(lines, offset, total, stopped, cut)


def whole_text_window(
    data: bytes,
    offset: int,
    limit: int,
    *,
    max_line_chars: int = 2000,
    max_chars: int | None = None,
) -> LineWindow | None:
    """What ``read_line_range`` gives for a small file already in memory, in one decode and one
    split instead of a Python step per line (a 200-line file: ~15 µs instead of ~100 µs).

    None when the streaming read must decide: the bytes are not UTF-8, a line must be cut, or
    the character budget could end the window early.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline ending the last line starts no new one
    window = lines[offset - 1 : offset - 1 + limit] if offset >= 1 else []
    if "\r" in text:
        window = [line.rstrip("\r") for line in window]
    if window and max(map(len, window)) > max_line_chars:
        return None
    if max_chars is not None:
        widest = len(str(offset + len(window))) + 2  # line number and tab, at most
        if sum(map(len, window)) + widest * len(window) > max_chars:
            return None
    return LineWindow(window, offset, len(lines), stopped_by_budget=False, cut_lines=0)


def count_lines(handle: BinaryIO) -> int:
    """Lines left in ``handle`` from its position (a final line without newline counts)."""
    count, last = 0, b"\n"
    while chunk := handle.read(1 << 20):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    if last != b"\n":
        count += 1
    return count
