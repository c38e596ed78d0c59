"""Find ``old_string`` in a file and splice in ``new_string`` — exactly, or by a labelled recovery.

Models copy text imperfectly: they paste ``12<TAB>`` line-number prefixes from read_file, type
straight quotes where the file has curly ones, drop trailing spaces, or re-indent a block with
spaces where the file uses tabs. An exact match is always tried first. When it fails, a few
deterministic recoveries are tried in order, and a recovery is used only when it yields exactly
one match, so it can never pick between two candidates. The result says which recovery was
used, so the model learns what it got wrong.

Indentation recovery re-indents ``new_string`` with the file's own indentation — tabs stay
tabs — instead of pasting the model's indentation into the file (which is how other agents end
up writing mixed indentation).

All text here has ``\\n`` line endings; the caller converts back to the file's style.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import AnyStr, Generic

from toolbelt.core.errors import ToolError

__all__ = ["EditMatchError", "Splice", "find_and_replace", "splice_all", "splice_at"]

_LINE_PREFIX = re.compile(r"^ *\d+\t", re.MULTILINE)
_CURLY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})


class EditMatchError(ToolError):
    """``old_string`` was not found (or not uniquely); the message shows where to look."""


@dataclass(frozen=True, slots=True)
class Splice(Generic[AnyStr]):
    """The edited content and where the change landed (1-based lines of the new content).

    The content is ``str`` on the text path and the file's stored ``bytes`` on the exact
    fast path (``files.exact``); offsets count in the same unit.
    """

    text: AnyStr
    replacements: int
    first_line: int
    last_line: int
    recovery: str | None = None
    offset: int = 0
    """Index in ``text`` where the first replacement starts."""
    replaced: int | None = None
    """Length of what a single replacement took out (None for several), so the diff can go
    straight to the changed region."""


def find_and_replace(
    text: str, old: str, new: str, *, replace_all: bool = False, label: str = "the file"
) -> Splice[str]:
    """Replace ``old`` with ``new`` in ``text``; raise ``EditMatchError`` with guidance if not."""
    old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if old == new:
        raise EditMatchError("No changes to make: old_string and new_string are exactly the same.")
    if not old:
        raise EditMatchError(
            f"old_string is empty; to change {label}, quote the exact text to replace "
            "(use write_file to replace the whole file)."
        )
    count = text.count(old)
    if count == 1 or (count > 1 and replace_all):
        return (
            splice_all(text, old, new) if replace_all else splice_at(text, text.find(old), old, new)
        )
    if count > 1:
        lines = _occurrence_lines(text, old)
        raise EditMatchError(
            f"Found {count} matches of old_string in {label} (at lines "
            f"{', '.join(map(str, lines))}), but replace_all is false. Add surrounding lines to "
            "old_string so it matches exactly one place, or set replace_all to true to change "
            "every occurrence."
        )
    for recovery in _RECOVERIES:
        splice = recovery(text, old, new)
        if splice is not None:
            return splice
    raise EditMatchError(_not_found_message(text, old, label))


def splice_at(
    text: AnyStr, start: int, old: AnyStr, new: AnyStr, recovery: str | None = None
) -> Splice[AnyStr]:
    """Replace the ``old`` found at ``start`` in ``text`` by ``new``."""
    nl, end = _newline(text), start + len(old)
    if isinstance(text, bytes):  # join straight from views: one copy of a big file, not three
        view = memoryview(text)
        edited = b"".join((view[:start], new, view[end:]))
    else:
        edited = "".join((text[:start], new, text[end:]))
    first = text.count(nl, 0, start) + 1
    last = first + max(new.count(nl) - (1 if new.endswith(nl) else 0), 0)
    return Splice(edited, 1, first, last, recovery, start, len(old))


def splice_all(text: AnyStr, old: AnyStr, new: AnyStr) -> Splice[AnyStr]:
    """Replace every ``old`` in ``text`` (which holds at least one) by ``new``."""
    nl, start, count = _newline(text), text.find(old), text.count(old)
    first = text.count(nl, 0, start) + 1
    edited = text.replace(old, new)
    last_start = edited.rfind(new)
    last = edited.count(nl, 0, last_start) + 1 + max(new.count(nl) - new.endswith(nl), 0)
    return Splice(edited, count, first, last, None, start, len(old) if count == 1 else None)


def _newline(sample: AnyStr) -> AnyStr:
    return "\n" if isinstance(sample, str) else b"\n"


def _occurrence_lines(text: str, old: str, limit: int = 20) -> list[int]:
    lines: list[int] = []
    start = text.find(old)
    while start != -1 and len(lines) < limit:
        lines.append(text.count("\n", 0, start) + 1)
        start = text.find(old, start + 1)
    return lines


# -- recoveries, tried in order; each returns a splice only for exactly one match -----------


def _strip_line_numbers(text: str, old: str, new: str) -> Splice[str] | None:
    lines = [line for line in old.split("\n") if line]
    if not lines or not all(_LINE_PREFIX.match(line) for line in lines):
        return None
    bare_old = _LINE_PREFIX.sub("", old)
    bare_new = _LINE_PREFIX.sub("", new) if _LINE_PREFIX.search(new) else new
    if text.count(bare_old) != 1:
        return None
    return splice_at(
        text, text.find(bare_old), bare_old, bare_new, "stripped read_file line-number prefixes"
    )


def _quote_equivalence(text: str, old: str, new: str) -> Splice[str] | None:
    plain_text, plain_old = text.translate(_CURLY), old.translate(_CURLY)
    if plain_old == old and plain_text == text:
        return None
    if plain_text.count(plain_old) != 1:
        return None
    start = plain_text.find(plain_old)
    original = text[start : start + len(old)]
    styled_new = _apply_quote_style(new, original)
    return splice_at(
        text, start, original, styled_new, "matched curly and straight quotes as equal"
    )


def _apply_quote_style(new: str, original: str) -> str:
    """Give ``new`` the file's curly quotes where the matched text used them."""
    uses_double, uses_single = (
        "“" in original or "”" in original,
        "’" in original or "‘" in original,
    )
    out = []
    for i, char in enumerate(new):
        opening = i == 0 or new[i - 1] in " \t\n([{"
        if char == '"' and uses_double:
            out.append("“" if opening else "”")
        elif char == "'" and uses_single:
            out.append("‘" if opening else "’")
        else:
            out.append(char)
    return "".join(out)


def _line_window(
    text: str, old: str, normalize: Callable[[str], str]
) -> tuple[list[str], int, int] | None:
    """The unique run of file lines equal to ``old``'s lines once both are normalized."""
    old_lines = old.split("\n")
    if old_lines and old_lines[-1] == "":
        old_lines = old_lines[:-1]
    if not old_lines:
        return None
    file_lines = text.split("\n")
    wanted = [normalize(line) for line in old_lines]
    head, size = wanted[0], len(wanted)
    starts = [i for i, line in enumerate(map(normalize, file_lines)) if line == head]
    found = [
        i
        for i in starts
        if i + size <= len(file_lines)
        and all(normalize(file_lines[i + k]) == wanted[k] for k in range(1, size))
    ]
    return (file_lines, found[0], size) if len(found) == 1 else None


def _replace_lines(
    file_lines: list[str], start: int, size: int, new: str, recovery: str
) -> Splice[str]:
    new_lines = new.split("\n")
    if new_lines and new_lines[-1] == "" and len(new_lines) > 1:
        new_lines = new_lines[:-1]
    edited = file_lines[:start] + new_lines + file_lines[start + size :]
    offset = sum(len(line) + 1 for line in file_lines[:start])
    replaced = len("\n".join(file_lines[start : start + size]))
    last = start + max(len(new_lines), 1)
    return Splice("\n".join(edited), 1, start + 1, last, recovery, offset, replaced)


def _trailing_whitespace(text: str, old: str, new: str) -> Splice[str] | None:
    window = _line_window(text, old, str.rstrip)
    if window is None:
        return None
    file_lines, start, size = window
    return _replace_lines(file_lines, start, size, new, "ignored trailing whitespace")


def _indentation(text: str, old: str, new: str) -> Splice[str] | None:
    window = _line_window(text, old, str.strip)
    if window is None:
        return None
    file_lines, start, size = window
    matched = file_lines[start : start + size]
    reindented = _reindent(new, model_lines=old.split("\n"), file_lines=matched)
    return _replace_lines(
        file_lines,
        start,
        size,
        reindented,
        "matched ignoring indentation and re-indented new_string with the file's indentation",
    )


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _reindent(new: str, *, model_lines: list[str], file_lines: list[str]) -> str:
    """Map the model's indentation levels onto the file's: base indent and unit (tab or spaces)."""
    model_indents = [_indent_of(line) for line in model_lines if line.strip()]
    file_indents = [_indent_of(line) for line in file_lines if line.strip()]
    model_base = min(model_indents, key=len, default="")
    file_base = min(file_indents, key=len, default="")
    model_unit = _unit(model_indents, model_base) or "    "
    file_unit = _unit(file_indents, file_base)
    if not file_unit:
        file_unit = "\t" if file_base.startswith("\t") else model_unit
    out = []
    for line in new.split("\n"):
        if not line.strip():
            out.append("")
            continue
        indent = _indent_of(line).replace("\t", model_unit)
        base = model_base.replace("\t", model_unit)
        extra = indent[len(base) :] if indent.startswith(base) else ""
        levels, rest = divmod(len(extra), len(model_unit))
        out.append(file_base + file_unit * levels + " " * rest + line.lstrip(" \t"))
    return "\n".join(out)


def _unit(indents: list[str], base: str) -> str:
    """The indentation step used below ``base``: a tab, or the smallest run of spaces."""
    steps = [i[len(base) :] for i in indents if len(i) > len(base) and i.startswith(base)]
    if not steps:
        return ""
    if any(s.startswith("\t") for s in steps):
        return "\t"
    return " " * min(len(s) - len(s.lstrip(" ")) for s in steps)


_RECOVERIES = (_strip_line_numbers, _quote_equivalence, _trailing_whitespace, _indentation)


def _not_found_message(text: str, old: str, label: str) -> str:
    first = next((line.strip() for line in old.split("\n") if line.strip()), old.strip())
    hint = "Read the file again and copy old_string exactly, including whitespace."
    at = _closest_line(text, first)
    if at is None:
        return f"old_string was not found in {label}. {hint}"
    lines = text.split("\n")
    start, end = max(at - 2, 0), min(at + 3, len(lines))
    region = "\n".join(f"{n + 1}\t{lines[n]}" for n in range(start, end))
    return (
        f"old_string was not found in {label}. The closest match is near line {at + 1}:\n"
        f"{region}\n{hint}"
    )


def _closest_line(text: str, first: str, *, limit: int = 2000) -> int | None:
    """Index of the line most like ``first``, found without comparing every line.

    Candidates are the lines holding the rarest of ``first``'s words (counted in C with
    ``str.count``), at most ``limit`` of them; difflib ranks only those. On a 100k-line file
    this takes milliseconds, where ranking every line takes seconds.
    """
    words = sorted(set(re.findall(r"\w{3,}", first)), key=len, reverse=True)[:8]
    counts = [(text.count(word), word) for word in words]
    present = sorted((count, word) for count, word in counts if count)
    candidates: dict[int, str] = {}  # line start offset -> stripped line
    for _, word in present[:2]:
        position = text.find(word)
        while position != -1 and len(candidates) < limit:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            end = len(text) if end == -1 else end
            candidates.setdefault(start, text[start:end].strip())
            position = text.find(word, end)
    if not candidates:
        return None
    best = difflib.get_close_matches(first, list(candidates.values()), n=1, cutoff=0.5)
    if not best:
        return None
    offset = next(start for start, line in candidates.items() if line == best[0])
    return text.count("\n", 0, offset)
