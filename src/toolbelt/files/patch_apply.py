"""An update's hunks applied to a file's text, with edit_file's recoveries and its one rule.

Each hunk is searched below the previous one: its ``@@`` lines first move the search down to
the line they name (the first line below that holds it — exactly, then ignoring blanks and
look-alikes, then as the line's start), then the hunk's context and ``-`` lines are found as
whole lines. An exact match takes the first place, as Codex does: the model wrote the hunks in
file order and added ``@@`` lines where context alone repeats. When there is no exact match,
``files.matching``'s recoveries (line-number prefixes, look-alikes, trailing blanks,
indentation) are tried, each only where it matches one place below, and merged so the file
keeps its own bytes wherever the model changed nothing.

A hunk without context or ``-`` lines inserts its lines below its ``@@`` line, or at the end
of the file when it has none. A file whose last line has no newline keeps it that way, unless
a hunk adds lines at its end (the model's lines then come with their newline), as edit_file
does. Any hunk that does not apply refuses the whole update with one sentence naming the file,
the hunk and what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolbelt.core.errors import ToolError
from toolbelt.files.closest import closest_region
from toolbelt.files.folding import fold
from toolbelt.files.matching import EditMatchError, LineScope, adds_lines_at_end, replace_lines
from toolbelt.files.patch_format import Hunk

__all__ = ["HunkError", "PatchedText", "apply_hunks"]


class HunkError(ToolError):
    """A hunk did not apply; the message names the file and the hunk."""


@dataclass(frozen=True, slots=True)
class PatchedText:
    """The updated text, and how hunks that did not match exactly were recovered."""

    text: str
    recoveries: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def apply_hunks(text: str, hunks: Sequence[Hunk], *, label: str, quote: bool) -> PatchedText:
    """``text`` (``\\n`` newlines) with ``hunks`` applied in order; ``HunkError`` if one does
    not apply. ``quote`` false keeps the file's lines out of a refusal."""
    terminated = not text or text.endswith("\n")
    work = text if terminated else text + "\n"
    cursor = 0
    ends_with_new_lines: bool | None = None
    recoveries: list[str] = []
    notes: list[str] = []
    for number, hunk in enumerate(hunks, 1):
        where = _Where(label, number, len(hunks), hunk, quote)
        cursor = _follow_anchors(work, hunk, cursor, where)
        if hunk.old == hunk.new:
            continue  # context only: nothing to change
        new = "".join(f"{line}\n" for line in hunk.new)
        if not hunk.old:  # below the line the @@ names, else at the end
            at = _line_offset(work, cursor + 1) if hunk.anchors else len(work)
            if at == len(work):
                ends_with_new_lines = True
            work = work[:at] + new + work[at:]
            cursor = work.count("\n", 0, at) + len(hunk.new)
            continue
        old = "".join(f"{line}\n" for line in hunk.old)
        try:
            splice = replace_lines(work, old, new, LineScope(cursor, hunk.at_end), label=label)
        except EditMatchError as exc:
            raise HunkError(where.refusal(exc, work, old, cursor)) from None
        if splice.offset + (splice.replaced or 0) == len(work):
            ends_with_new_lines = adds_lines_at_end(old, new)
        cursor = splice.first_line - 1 + len(hunk.new)
        work = splice.text
        prefix = f"hunk {number}: " if len(hunks) > 1 else ""
        if splice.recovery:
            recoveries.append(prefix + splice.recovery)
        notes.extend(prefix + note for note in splice.notes)
    if not terminated and work.endswith("\n") and not ends_with_new_lines:
        work = work[:-1]
    return PatchedText(work, tuple(recoveries), tuple(notes))


@dataclass(frozen=True, slots=True)
class _Where:
    """Which hunk of which file, for the refusals."""

    label: str
    number: int
    count: int
    hunk: Hunk
    quote: bool

    @property
    def name(self) -> str:
        which = f"Hunk {self.number}" if self.count > 1 else "The hunk"
        return f"{which} of {self.label} (patch line {self.hunk.line})"

    def refusal(self, error: EditMatchError, work: str, old: str, cursor: int) -> str:
        below = f" below line {cursor}" if cursor else ""
        head = f"{self.name} did not apply, so nothing was changed"
        if error.kind == "ambiguous":
            lines = ", ".join(map(str, error.lines))
            return (
                f"{head}: its lines match only when {error.ignored} are ignored, and then "
                f"{len(error.lines)} places{below} (lines {lines}); copy its context and '-' "
                "lines exactly from the file, or add an `@@` line naming the function or class "
                "above the change."
            )
        if error.kind == "indent":
            return (
                f"{head}: its lines match line {error.lines[0]} only when indentation is "
                "ignored, and their indentation does not follow the file's; copy its context "
                "and '-' lines with the file's exact indentation."
            )
        if error.kind == "unchanged":
            return (
                f"{head}: once its '+' lines are fitted to the file's own characters, line "
                f"{error.lines[0]} already reads that way; read {self.label} to see its real "
                "text, and change what differs."
            )
        first = next((line.strip() for line in self.hunk.old if line.strip()), "")
        message = (
            f"{head}: its context and '-' lines (from `{first}`) are not in the file{below}; "
            f"read {self.label} again and copy them exactly as it shows them."
        )
        closest = closest_region(work, old) if self.quote else None
        if closest is not None:
            message += f" The closest match is near line {closest[0]}:\n{closest[1]}"
        return message


def _follow_anchors(work: str, hunk: Hunk, cursor: int, where: _Where) -> int:
    """The line (0-based) the hunk is searched from, once its ``@@`` lines are found."""
    if not hunk.anchors:
        return cursor
    lines = work.split("\n")
    for index, anchor in enumerate(hunk.anchors):
        found = _anchor_line(lines, anchor, cursor)
        if found is None:
            below = f" below line {cursor}" if cursor else ""
            raise HunkError(
                f"{where.name} did not apply, so nothing was changed: its line `@@ {anchor}` "
                f"names no line of the file{below}; after `@@` copy a line of the file above "
                "the change (the class or function it is in) exactly, or leave the `@@` line "
                "bare."
            )
        last = index == len(hunk.anchors) - 1
        cursor = found if last else found + 1  # the hunk may start on the line it names
    return cursor


def _anchor_line(lines: list[str], anchor: str, start: int) -> int | None:
    """The first line from ``start`` on that ``anchor`` names: the same line, then the same
    once blanks and look-alikes are ignored, then a line that starts that way."""
    wanted = fold(anchor).strip()
    tests = (
        lambda line: line == anchor,
        lambda line: line.strip() == anchor.strip(),
        lambda line: fold(line).strip() == wanted,
        lambda line: fold(line).strip().startswith(wanted),
    )
    for test in tests:
        for number in range(start, len(lines)):
            if test(lines[number]):
                return number
    return None


def _line_offset(text: str, line: int) -> int:
    at = 0
    for _ in range(line):
        at = text.find("\n", at) + 1
        if not at:
            return len(text)
    return at
