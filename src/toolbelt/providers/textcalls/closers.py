"""Where a text tool call ends, found incrementally as the stream grows.

A family's call block opens at a marker (``<tool_call>``, ``[TOOL_CALLS]``); a closer is made
for each block and told the block's text so far on every chunk. It answers ``(body_end,
consumed)`` once the block is complete — the body the family parses and how much text the
block used up, closing marker included — or None to wait. Each remembers how far it looked,
so a long call streamed in small chunks costs time linear in its length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

__all__ = ["Closer", "JsonCloser", "MarkerCloser", "Swallow"]

_STRING_STOP = re.compile(r'["\\]')
_STRUCTURE = re.compile(r'[\[\]{}"]')


class Closer(Protocol):
    """Finds the end of one call block; ``final`` says the stream has ended."""

    def scan(self, buf: str, *, final: bool) -> tuple[int, int] | None: ...


class MarkerCloser:
    """The block ends at the first of ``markers``; ``ends_at_eos`` may accept a block that the
    stream ended without one (a Harmony final message needs no terminator)."""

    def __init__(self, *markers: str, ends_at_eos: Callable[[str], bool] | None = None) -> None:
        self._markers = markers
        self._overlap = max(len(m) for m in markers) - 1
        self._searched = 0
        self._ends_at_eos = ends_at_eos

    def scan(self, buf: str, *, final: bool) -> tuple[int, int] | None:
        start = self._searched - self._overlap
        if start < 0:
            start = 0
        best: tuple[int, int] | None = None
        for marker in self._markers:
            index = buf.find(marker, start)
            if index >= 0 and (best is None or index < best[0]):
                best = (index, index + len(marker))
        if best is not None:
            return best
        self._searched = len(buf)
        if final and self._ends_at_eos is not None and self._ends_at_eos(buf):
            return len(buf), len(buf)
        return None


class JsonCloser:
    """The block is one JSON value (from the first of ``opens``), or several joined by
    ``separator`` (Llama's ``;``); strings and escapes are tracked so braces inside them do
    not count."""

    def __init__(self, opens: str = "{[", separator: str = "") -> None:
        self._opens = opens
        self._separator = separator
        self._pos = 0
        self._depth = 0
        self._in_string = False
        self._started = False
        self._value_end = -1

    def scan(self, buf: str, *, final: bool) -> tuple[int, int] | None:
        i, n = self._pos, len(buf)
        while i < n:
            if self._value_end >= 0:
                char = buf[i]
                if char.isspace():
                    i += 1
                    continue
                if self._separator and char in self._separator:
                    self._value_end, self._started = -1, False
                    i += 1
                    continue
                return self._value_end, self._value_end
            if not self._started:
                found = _first_of(buf, self._opens, i)
                if found < 0:
                    i = n
                    break
                self._started, self._depth, i = True, 1, found + 1
                continue
            if self._in_string:
                match = _STRING_STOP.search(buf, i)
                if match is None:
                    i = n
                    break
                if match.group() == "\\":
                    if match.end() >= n:
                        i = match.start()  # wait for the escaped character
                        break
                    i = match.end() + 1
                    continue
                self._in_string, i = False, match.end()
                continue
            match = _STRUCTURE.search(buf, i)
            if match is None:
                i = n
                break
            char, i = match.group(), match.end()
            if char == '"':
                self._in_string = True
            elif char in "[{":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    if not self._separator:
                        return i, i
                    self._value_end = i
        self._pos = i
        if final and self._value_end >= 0:
            return self._value_end, self._value_end
        return None


def _first_of(text: str, chars: str, start: int) -> int:
    found = [i for i in (text.find(c, start) for c in chars) if i >= 0]
    return min(found) if found else -1


class Swallow:
    """A block that ends where it starts: its marker is all there is."""

    def scan(self, buf: str, *, final: bool) -> tuple[int, int] | None:
        return 0, 0
