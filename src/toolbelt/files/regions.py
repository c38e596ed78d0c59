"""Where a normalised match lies in the file, pasted line numbers, and how differences read.

Helpers of ``files.matching``'s recoveries: mapping an offset in the normalised file back to
the file's own text, stripping read_file's ``12<TAB>`` prefixes, and the one-line notes that
tell the model which characters of the file differ from what it typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolbelt.files.folding import Line, describe
from toolbelt.files.merge import Difference

__all__ = ["Found", "note", "offset", "starts", "strip_line_numbers"]

_LINE_PREFIX = re.compile(r"^ *\d+[\t\u2192]")


def note(difference: Difference) -> str:
    """One clause for the model: "line 12 holds an em dash (U+2014) where old_string had '-'"."""
    line, held, typed = difference.line, difference.held, difference.typed
    if difference.part == "indent":
        return f"line {line} is indented with {_blanks(held)} where old_string had {_blanks(typed)}"
    if difference.part == "trail":
        return f"line {line} ends with {_blanks(held)} where old_string had {_blanks(typed)}"
    return f"line {line} holds {describe(held)} where old_string had {describe(typed)}"


def _blanks(run: str) -> str:
    if not run:
        return "no blanks"
    for char, word in ((" ", "space"), ("\t", "tab")):
        if run == char * len(run):
            return f"{len(run)} {word}{'s' if len(run) > 1 else ''}"
    return repr(run)


def starts(folded: str, wanted: str, limit: int = 20) -> list[int]:
    """Where ``wanted`` starts in ``folded``, overlapping occurrences included (at most
    ``limit``: enough to list the candidates of an ambiguous match)."""
    found: list[int] = []
    at = folded.find(wanted)
    while at != -1 and len(found) < limit:
        found.append(at)
        at = folded.find(wanted, at + 1)
    return found


@dataclass(frozen=True, slots=True)
class Found:
    """Where ``old_string`` normalised was found in the file normalised, and how."""

    folded: str
    start: int
    size: int
    leading: bool
    trailing: bool


def offset(text: str, found: Found, at: int, *, first: bool) -> int:
    """The offset in ``text`` of offset ``at`` in its normalised form ``folded``.

    Lines correspond one to one (normalising never adds or removes a newline). Where
    several offsets of the line normalise to the same place (around dropped blanks), a start
    takes the earliest — so the region includes the line's indentation — except at the very
    end of a line, and an end takes the latest — so it includes the trailing blanks — except
    at the very start of a line, so a region never swallows the next line's indentation.
    """
    folded = found.folded
    number = folded.count("\n", 0, at)
    column = at - (folded.rfind("\n", 0, at) + 1)
    line_start = 0
    for _ in range(number):
        line_start = text.index("\n", line_start) + 1
    line_end = text.find("\n", line_start)
    line = Line.of(text[line_start : len(text) if line_end == -1 else line_end])
    positions = line.positions(leading=found.leading, trailing=found.trailing)
    same = [orig for norm, orig in positions if norm == column]
    if same:
        at_line_end = column == positions[-1][0] and column > 0
        earliest = (first and not at_line_end) or (not first and column == 0)
        return line_start + (min(same) if earliest else max(same))
    if first:
        return line_start + max(orig for norm, orig in positions if norm < column)
    return line_start + min(orig for norm, orig in positions if norm > column)


def strip_line_numbers(old: str, new: str) -> tuple[str, str]:
    """``old`` and ``new`` without pasted ``12<TAB>`` prefixes, when every line of ``old``
    has one; ``new`` loses them on every line when all have one, else on the quoted lines."""
    lines = [line for line in old.split("\n") if line]
    if not lines or not all(_LINE_PREFIX.match(line) for line in lines):
        return old, new
    bare_old = "\n".join(_LINE_PREFIX.sub("", line, count=1) for line in old.split("\n"))
    new_lines = new.split("\n")
    every = all(_LINE_PREFIX.match(line) for line in new_lines if line)
    quoted = set(bare_old.split("\n"))
    bare_new = []
    for line in new_lines:
        bare = _LINE_PREFIX.sub("", line, count=1)
        bare_new.append(bare if every or bare in quoted else line)
    return bare_old, "\n".join(bare_new)
