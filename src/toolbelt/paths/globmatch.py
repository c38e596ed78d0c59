"""Wildcard matching in linear time, whatever the pattern.

A rule such as ``Bash(*a*a*a*a*a*a*a*a*a*a*a*a*b)`` compiled to a backtracking regex spins for
minutes on a long command, and rules come from repositories nobody has vetted. Patterns here
are programs of a few steps (a character, a character class, a star over a class, an optional
"separator and anything" tail), run as a set of positions over the text at once: a set is one
integer with bit ``i`` meaning "matched up to before character ``i``", so every step is a few
big-integer operations (shift, and, add) and the cost is O(steps × length / 64) — no
backtracking, no blow-up. A star over class ``A`` extends every position in the set through
the run of ``A`` characters it starts, which ``A ^ (A + (S & A))`` does in one addition (the
carry runs along the run and stops after it).

A pattern with at most one unbounded step (a star, ``dirs`` or ``tail``) cannot backtrack
more than once over the text, and one with two only quadratically, so those are handed to
``re`` (about ten times faster per call) — the second kind only for texts of at most
``SHORT_TEXT`` characters, where the square stays small.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ANY", "NOT_SLASH", "SHORT_TEXT", "GlobMatcher", "Step", "bracket_class"]

ANY = "any"
NOT_SLASH = "not-slash"
SHORT_TEXT = 256
_UNBOUNDED = ("star", "tail", "dirs")


@dataclass(frozen=True, slots=True)
class Step:
    """One step: ``char`` (one literal character), ``one`` (one character of ``of``),
    ``star`` (any run of ``of``), ``tail`` (nothing, or ``char`` followed by anything: regex
    ``(?:/.*)?``) or ``dirs`` (nothing, or anything ending in ``/``: regex ``(?:.*/)?``)."""

    kind: str
    char: str = ""
    of: str = ANY  # ANY, NOT_SLASH, or a regex character class such as "[a-z]"


class GlobMatcher:
    """A compiled wildcard pattern; ``fullmatch`` answers like ``re.Pattern.fullmatch``.

    A literal start and end are checked first with ``startswith``/``endswith``: most rules do
    not match most texts, and those are turned away in well under a microsecond.
    """

    __slots__ = (
        "_classes",
        "_head",
        "_program",
        "_regex",
        "_regex_limit",
        "_tail",
        "pattern",
        "steps",
    )

    use_regex = True
    """False makes every match use the bit-parallel engine (the tests check both)."""

    def __init__(self, pattern: str, steps: list[Step]) -> None:
        self.pattern = pattern
        self.steps = tuple(steps)
        self._classes = {
            s.of: re.compile(s.of, re.DOTALL) for s in steps if s.of not in (ANY, NOT_SLASH)
        }
        head = 0
        while head < len(steps) and steps[head].kind == "char":
            head += 1
        tail = len(steps)
        while tail > head and steps[tail - 1].kind == "char":
            tail -= 1
        self._head = "".join(step.char for step in steps[:head])
        self._tail = "".join(step.char for step in steps[tail:])
        self._program = tuple((step.kind, step.char, step.of) for step in steps[head:tail])
        unbounded = sum(step.kind in _UNBOUNDED for step in steps)
        self._regex_limit = {0: 1 << 62, 1: 1 << 62, 2: SHORT_TEXT}.get(unbounded, -1)
        self._regex = re.compile("".join(map(_regex_of, steps)), re.DOTALL)

    def __repr__(self) -> str:
        return f"GlobMatcher({self.pattern!r})"

    def fullmatch(self, text: str) -> str | None:
        """``text`` when the pattern matches all of it, else None."""
        if self.use_regex and len(text) <= self._regex_limit:
            return text if self._regex.fullmatch(text) is not None else None
        head, tail = self._head, self._tail
        if not self._program:
            return text if text == head + tail else None
        if len(text) < len(head) + len(tail) or not (text.startswith(head) and text.endswith(tail)):
            return None
        middle = text[len(head) : len(text) - len(tail)]
        return text if self._run(middle) else None

    def _run(self, text: str) -> bool:
        masks = _Masks(text, self._classes)
        positions = 1  # before the first character
        for kind, char, of in self._program:
            if kind == "char":
                positions = (positions & masks.char(char)) << 1
            elif kind == "one":
                positions = (positions & masks.klass(of)) << 1
            elif kind == "star":
                run = masks.klass(of)
                positions |= run ^ (run + (positions & run))
            elif kind == "dirs":  # past any slash at or after the first position held
                lowest = positions & -positions
                positions |= (masks.char("/") & ~(lowest - 1)) << 1
            else:  # tail: optionally the separator, then anything
                after = (positions & masks.char(char)) << 1
                if after:  # every position from just past the first separator on
                    positions |= (1 << (len(text) + 1)) - (after & -after)
            if not positions:
                return False
        return bool(positions >> len(text) & 1)


def bracket_class(pattern: str, i: int) -> tuple[str, int] | None:
    """The regex class of the ``[...]`` opened at ``i`` and the index after it, or None when
    no ``]`` closes it (the ``[`` is then a literal character).

    As gitignore and ``rg --glob`` read it, ``!`` or ``^`` first negates and a ``]`` first
    (after that) is a member, so ``[]a]`` is ``]`` or ``a``; ``a-z`` is a range; any other
    character, ``\\`` and ``[`` included, stands for itself (it must not reach ``re`` as
    syntax: ``[]`` or ``[!]`` used to crash the compile). ValueError when a range runs
    backwards (``[z-a]``): rg refuses it too.
    """
    first = i + 1 + (pattern[i + 1 : i + 2] in ("!", "^"))
    end = pattern.find("]", first + 1)
    if end == -1:
        return None
    members = "".join(c if c == "-" else re.escape(c) for c in pattern[first:end])
    regex = "[" + "^" * (first > i + 1) + members + "]"
    try:
        re.compile(regex)
    except re.error:  # everything but "-" is escaped: only a backwards range gets here
        raise ValueError(
            f"the class {pattern[i : end + 1]} has a range that runs backwards; put the "
            "smaller character first, as in [a-z]"
        ) from None
    return regex, end + 1


def _regex_of(step: Step) -> str:
    """The regular expression of one step (used when it cannot blow up: see the module)."""
    of = {ANY: ".", NOT_SLASH: "[^/]"}.get(step.of, step.of)
    if step.kind == "char":
        return re.escape(step.char)
    if step.kind == "one":
        return of
    if step.kind == "star":
        return of + "*"
    if step.kind == "dirs":
        return "(?:.*/)?"
    return f"(?:{re.escape(step.char)}.*)?"


class _Masks:
    """Bit masks of ``text``: bit ``i`` set when character ``i`` is of a kind."""

    __slots__ = ("_cache", "_classes", "_text")

    def __init__(self, text: str, classes: dict[str, re.Pattern[str]]) -> None:
        self._text, self._classes = text, classes
        self._cache: dict[str, int] = {}

    def char(self, ch: str) -> int:
        mask = self._cache.get(ch)
        if mask is None:
            bits = bytearray((len(self._text) >> 3) + 1)
            at = self._text.find(ch)
            while at >= 0:
                bits[at >> 3] |= 1 << (at & 7)
                at = self._text.find(ch, at + 1)
            mask = self._cache[ch] = int.from_bytes(bits, "little")
        return mask

    def klass(self, of: str) -> int:
        if of == ANY:
            return (1 << len(self._text)) - 1
        if of == NOT_SLASH:
            return ((1 << len(self._text)) - 1) ^ self.char("/")
        key = "\0" + of
        mask = self._cache.get(key)
        if mask is None:
            member = self._classes[of].fullmatch
            mask = 0
            for ch in set(self._text):
                if member(ch):
                    mask |= self.char(ch)
            self._cache[key] = mask
        return mask
