"""Where, in a family's text outside calls, a call or a quoted span may begin.

The parser passes text on as soon as it cannot be the start of a marker, so it asks three
questions of every piece of text, fast: could this chunk hold any marker at all (one regular
expression scan in C), where is the first call opener, and how much of the tail must be held
back because it may still grow into a marker. The answers depend only on the family's
openers and the span markers, so they are computed here once per parser.
"""

from __future__ import annotations

import re

from toolbelt.providers.textcalls.closers import Swallow
from toolbelt.providers.textcalls.family import Family, Opener
from toolbelt.providers.textcalls.spans import SpanOpeners

__all__ = ["Markers"]


class Markers:
    """The call openers of ``family`` and the span markers, with the scans over them."""

    def __init__(self, family: Family) -> None:
        openers = sorted(family.openers, key=lambda o: -len(o.marker))
        self.floating = [o for o in openers if not o.at_start]
        """Openers that may stand anywhere outside a span."""
        self.at_start = [o for o in openers if o.at_start]
        """Openers that count only while everything before them is blank."""
        self.terminators = tuple(o.marker for o in self.floating if o.closer is Swallow)
        """The family's end-of-message markers, which end any span."""
        self._marks = (*(o.marker for o in self.floating), *SpanOpeners.markers)
        self._longest = max(len(m) for m in self._marks)
        self._first_chars = {m[0] for m in self._marks}
        # one scan in C says whether a chunk could hold (the start of) any marker
        self.marker_char = re.compile("|".join(map(re.escape, sorted(self._first_chars))) or "$^")

    def find_opener(self, buf: str, *, blank_so_far: bool) -> tuple[int, Opener] | None:
        """The first call opener in ``buf`` and where it starts (an ``at_start`` one only
        while the turn's text is still blank)."""
        best: tuple[int, Opener] | None = None
        for opener in self.floating:
            index = buf.find(opener.marker)
            if index >= 0 and (best is None or index < best[0]):
                best = (index, opener)
        if blank_so_far and self.at_start:
            lead = len(buf) - len(buf.lstrip())
            for opener in self.at_start:
                if buf.startswith(opener.marker, lead) and (best is None or lead < best[0]):
                    best = (lead, opener)
        return best

    def holdback(self, buf: str, *, blank_so_far: bool) -> int:
        """How many trailing characters could still become a marker."""
        if blank_so_far and self.at_start and not buf.strip():
            return len(buf)
        tail_start = max(0, len(buf) - self._longest + 1)
        earliest = len(buf)
        for first in self._first_chars:  # the common case: no marker's first character near
            index = buf.find(first, tail_start)
            while 0 <= index < earliest:
                tail = buf[index:]
                if any(m.startswith(tail) for m in self._marks):
                    earliest = index
                    break
                index = buf.find(first, index + 1)
        return len(buf) - earliest
