"""Find ``old_string`` in a file and splice in ``new_string`` — exactly, or by a labelled recovery.

Models copy text imperfectly: they paste ``12<TAB>`` line-number prefixes from read_file, type
straight quotes, ``-`` or a plain space where the file has curly quotes, a dash or a no-break
space, drop trailing spaces, or re-indent a block with spaces where the file uses tabs. An
exact match is always tried first. When it fails, the pasted prefixes are stripped, then
``old_string`` is looked for in ever looser normalised forms of the file (Unicode look-alikes,
then trailing blanks too, then indentation too: ``files.folding``). A normalised form is used
only when it matches exactly one place; when it matches several, the edit is refused with every
candidate's line, so a recovery never picks between two places.

Every recovery then follows one rule, written once in ``files.merge``: the file keeps its own
bytes wherever the model changed nothing; only what the model changed is inserted, in the
file's indentation and quote style. The result names the recovery and says which characters of
the file differ from what the model typed, so the model learns the file's real text.

All text here has ``\\n`` line endings; the caller converts back to the file's style.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from toolbelt.files.closest import not_found_message
from toolbelt.files.folding import describe, fold, name, normalize, strip_blanks
from toolbelt.files.indent import IndentUnclear
from toolbelt.files.merge import merge, opcodes
from toolbelt.files.regions import Found, note, offset, strip_line_numbers
from toolbelt.files.regions import starts as find_starts
from toolbelt.files.splice import EditMatchError, Splice, splice_all, splice_at

__all__ = [
    "EditMatchError",
    "LineScope",
    "Splice",
    "adds_lines_at_end",
    "find_and_replace",
    "replace_lines",
    "splice_all",
    "splice_at",
]

_SAME = "No changes to make: old_string and new_string are exactly the same."


def find_and_replace(
    text: str,
    old: str,
    new: str,
    *,
    replace_all: bool = False,
    label: str = "the file",
    quote: bool = True,
) -> Splice[str]:
    """Replace ``old`` with ``new`` in ``text``; raise ``EditMatchError`` with guidance if not.

    ``quote`` false keeps the file's lines out of the refusal (the caller may not read them).
    """
    old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if old == new:
        raise EditMatchError(_SAME, kind="same")
    if not old:
        raise EditMatchError(
            f"old_string is empty; to change {label}, quote the exact text to replace "
            "(use write_file to replace the whole file).",
            kind="empty",
        )
    count = text.count(old)
    if count == 1 or (count > 1 and replace_all):
        return (
            splice_all(text, old, new) if replace_all else splice_at(text, text.find(old), old, new)
        )
    if count > 1:
        raise _ambiguous(text, old, label, count)
    try:
        return _recover(text, old, new, label, replace_all=replace_all)
    except _NotFound:
        pass
    if old.endswith("\n") and text and not text.endswith("\n"):
        try:
            splice = find_and_replace(text + "\n", old, new, replace_all=replace_all, label=label)
        except EditMatchError:
            pass
        else:
            return _at_unterminated_end(text, old, new, splice)
    raise EditMatchError(not_found_message(text, old, label, quote=quote))


def _at_unterminated_end(text: str, old: str, new: str, splice: Splice[str]) -> Splice[str]:
    """``splice``, made on ``text`` plus the final newline ``old`` ends with and the file
    lacks, fitted back to the file: it keeps ending without a newline, unless the model's
    change is at the end — lines added after the last line ``old`` quoted — where the
    model's text goes in as typed, with its newline."""
    appended = adds_lines_at_end(old, new)
    edited = splice.text
    if not appended and edited.endswith("\n"):
        edited = edited[:-1]
    how = (
        "the file now ends with a newline, after the lines added at its end"
        if appended and edited.endswith("\n")
        else "the file still ends without one"
    )
    label = f"matched old_string's final newline to the end of the file, which has none ({how})"
    replaced = None if splice.replaced is None else splice.replaced - 1
    return dataclasses.replace(
        splice,
        text=edited,
        replaced=replaced,
        recovery=", ".join(filter(None, (splice.recovery, label))),
    )


def adds_lines_at_end(old: str, new: str) -> bool:
    """Whether ``new`` (a replacement of ``old``, which ends with a newline) adds lines after
    the last line of ``old``: the change is then at the end of the file."""
    if not new.endswith("\n"):
        return False
    olds, news = old[:-1].split("\n"), new[:-1].split("\n")
    tag, i1, i2, j1, j2 = opcodes(olds, news)[-1]
    return (tag == "insert" and i1 == len(olds)) or (tag == "replace" and j2 - j1 > i2 - i1)


def _ambiguous(text: str, old: str, label: str, count: int) -> EditMatchError:
    found = tuple(_occurrence_lines(text, old))
    lines = ", ".join(map(str, found))
    return EditMatchError(
        f"Found {count} matches of old_string in {label} (at lines {lines}), but replace_all "
        "is false. Add surrounding lines to old_string so it matches exactly one place, or set "
        "replace_all to true to change every occurrence.",
        kind="ambiguous",
        lines=found,
    )


class _NotFound(Exception):
    """No recovery found ``old_string``: the caller words the refusal."""


@dataclass(frozen=True, slots=True)
class LineScope:
    """Where a patch hunk may match: whole lines, from line ``first_line`` (0-based) on, and
    at the end of the file first when ``at_end``."""

    first_line: int = 0
    at_end: bool = False


def replace_lines(text: str, old: str, new: str, scope: LineScope, *, label: str) -> Splice[str]:
    """Replace the whole lines ``old`` by ``new`` (each line ending with a newline, and
    ``text`` too) at the first place within ``scope`` where they match exactly; else where
    they match once within ``scope`` by a recovery, merged like ``find_and_replace``'s.

    Raises ``EditMatchError`` (its ``kind`` says why) when they match nowhere, or several
    places only when normalised.
    """
    if old == new:
        raise EditMatchError(_SAME, kind="same")
    first = _scoped_starts(text, old, scope, limit=1)
    if first:
        return splice_at(text, first[0], old, new)
    try:
        return _recover(text, old, new, label, replace_all=False, scope=scope)
    except _NotFound:
        raise EditMatchError(f"The lines were not found in {label}.") from None


def _scoped_starts(haystack: str, wanted: str, scope: LineScope, limit: int = 20) -> list[int]:
    """Where ``wanted`` starts a line of ``haystack`` at or below ``scope.first_line`` (at
    most ``limit``); only at the very end when ``scope.at_end`` finds it there."""
    begin = 0
    for _ in range(scope.first_line):
        begin = haystack.find("\n", begin) + 1
        if not begin:
            return []
    if scope.at_end and haystack.endswith(wanted):
        at = len(haystack) - len(wanted)
        if at >= begin and (at == 0 or haystack[at - 1] == "\n"):
            return [at]
    found: list[int] = []
    at = haystack.find(wanted, begin)
    while at != -1 and len(found) < limit:
        if at == 0 or haystack[at - 1] == "\n":
            found.append(at)
        at = haystack.find(wanted, at + 1)
    return found


def _occurrence_lines(text: str, old: str) -> list[int]:
    return [text.count("\n", 0, start) + 1 for start in find_starts(text, old)]


# -- recoveries: one normalisation at a time, and the merge that keeps the file's bytes ------

_LEVELS = (
    (False, False, "Unicode look-alikes"),
    (False, True, "trailing whitespace and Unicode look-alikes"),
    (True, True, "indentation, trailing whitespace and Unicode look-alikes"),
)
"""(ignore leading blanks, ignore trailing blanks, what is ignored), loosest last."""

_INDENT_LABEL = (
    "matched ignoring indentation and re-indented new_string with the file's indentation"
)
_MAX_NOTES = 5


def _recover(
    text: str, old: str, new: str, label: str, *, replace_all: bool, scope: LineScope | None = None
) -> Splice[str]:
    """The one place ``old`` matches once normalised (within ``scope``, when given), merged;
    else a refusal or ``_NotFound``."""
    labels: list[str] = []
    bare_old, bare_new = strip_line_numbers(old, new)
    if bare_old != old:
        labels.append("stripped read_file line-number prefixes")
        old, new = bare_old, bare_new
        if old == new:
            raise EditMatchError(_SAME, kind="same")
        if scope is not None:
            first = _scoped_starts(text, old, scope, limit=1)
            if first:
                return splice_at(text, first[0], old, new, labels[0])
            count = 0
        else:
            count = text.count(old)
        if count == 1 or (count > 1 and replace_all):
            splice = (
                splice_all(text, old, new)
                if replace_all
                else splice_at(text, text.find(old), old, new)
            )
            return dataclasses.replace(splice, recovery=labels[0])
        if count > 1:
            raise _ambiguous(text, old, label, count)
    base = fold(text)  # once: each level only strips blanks from it
    for leading, trailing, ignored in _LEVELS:
        wanted = normalize(old, leading=leading, trailing=trailing)
        unfolded = base is text and wanted == old and not (leading or trailing)
        if not wanted.strip() or unfolded:
            continue  # blanks only, or nothing to fold: the exact search already answered
        folded = strip_blanks(base, leading=leading, trailing=trailing)
        if scope is not None:
            starts = _scoped_starts(folded, wanted, scope)
        else:
            starts = find_starts(folded, wanted)
        if old[:1] in (" ", "\t"):  # typed indentation starts a line, not inside another's
            starts = [s for s in starts if not s or folded[s - 1] not in " \t"]
        if len(starts) > 1:
            places = tuple(folded.count("\n", 0, s) + 1 for s in starts)
            lines = ", ".join(map(str, places))
            raise EditMatchError(
                f"old_string does not match {label} exactly, and ignoring {ignored} it matches "
                f"{len(starts)} places (at lines {lines}), so nothing was changed. Copy "
                "old_string exactly from the file, with enough surrounding lines to match one "
                "place.",
                kind="ambiguous",
                lines=places,
                ignored=ignored,
            )
        if starts:
            found = Found(folded, starts[0], len(wanted), leading, trailing)
            return _merged_splice(text, old, new, found, labels)
    raise _NotFound


def _merged_splice(text: str, old: str, new: str, found: Found, labels: list[str]) -> Splice[str]:
    begin = offset(text, found, found.start, first=True)
    end = offset(text, found, found.start + found.size, first=False)
    # whole lines: blanks between the region and its lines' ends belong to those lines
    line_start = text.rfind("\n", 0, begin) + 1
    if not text[line_start:begin].strip(" \t"):
        begin = line_start
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    if text[end - 1 : end] != "\n" and not text[end:line_end].strip(" \t"):
        end = line_end  # (a region that ends with its newline takes nothing of the next line)
    region = text[begin:end]
    first_line = text.count("\n", 0, begin) + 1
    try:
        merged, differences = merge(old, new, region, first_line=first_line, whole=text)
    except IndentUnclear:
        raise EditMatchError(
            f"old_string matches line {first_line} only when indentation is ignored, and its "
            "indentation does not follow the file's (lines indented alike in old_string are "
            "not alike in the file), so new_string's lines cannot be placed; copy old_string "
            "with the file's exact indentation.",
            kind="indent",
            lines=(first_line,),
        ) from None
    if merged == region:
        raise EditMatchError(
            f"No changes to make: once new_string is fitted to the file's own characters, the "
            f"text at line {first_line} already reads that way; read the file to see its real "
            "text, and change what differs.",
            kind="unchanged",
            lines=(first_line,),
        )
    parts = {d.part for d in differences}
    if "trail" in parts:
        labels.append("ignored trailing whitespace")
    if "indent" in parts:
        labels.append(_INDENT_LABEL)
    swaps = dict.fromkeys((d.held, d.typed) for d in differences if d.part == "char")
    if swaps:
        shown = ", ".join(f"{name(held)} for {describe(typed)}" for held, typed in list(swaps)[:3])
        labels.append(f"matched Unicode look-alikes ({shown})")
    notes = [note(d) for d in differences[:_MAX_NOTES]]
    if len(differences) > _MAX_NOTES:
        notes.append(f"and {len(differences) - _MAX_NOTES} more")
    splice = splice_at(text, begin, region, merged, ", ".join(labels) or None)
    return dataclasses.replace(splice, notes=tuple(notes))
