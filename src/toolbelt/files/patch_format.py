"""The V4A patch format GPT-family models write, parsed into file operations.

Codex and OpenCode give these models an ``apply_patch`` tool, and the models were trained on
its format::

    *** Begin Patch
    *** Add File: hello.txt
    +Hello
    *** Update File: src/app.py
    *** Move to: src/main.py
    @@ def greet():
    -    print("Hi")
    +    print("Hello")
    *** Delete File: obsolete.txt
    *** End Patch

An update is a list of hunks. A hunk's `` `` (context) and ``-`` lines are what the file
holds; its `` `` and ``+`` lines what it should hold. ``@@ text`` lines name a line above the
hunk (a class, a function) to search from — several in a row narrow it step by step — and
``*** End of File`` says the hunk ends the file. Hunks apply in order, each below the previous.

Parsing is as lenient as Codex's where a model's slip is unambiguous: blanks around the
markers, a shell heredoc (``<<'EOF'`` … ``EOF``) or a Markdown fence around the patch, an empty
line inside a hunk taken as an empty context line, a missing ``@@`` before the first hunk.
Anything else is refused with the patch line at fault and what to write instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolbelt.core.errors import ToolError

__all__ = [
    "AddFile",
    "DeleteFile",
    "FileOp",
    "Hunk",
    "PatchSyntaxError",
    "UpdateFile",
    "parse_patch",
]

BEGIN = "*** Begin Patch"
END = "*** End Patch"
_ADD = "*** Add File:"
_DELETE = "*** Delete File:"
_UPDATE = "*** Update File:"
_MOVE = "*** Move to:"
_END_OF_FILE = "*** End of File"
_HEREDOC = re.compile(r"^(?:apply_patch\s*)?<<-?\s*(['\"]?)(\w+)\1\s*$")
_UNIFIED_HEADER = re.compile(r"^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_LINE_KINDS = "' ' (context), '-' (removed) or '+' (added)"


class PatchSyntaxError(ToolError):
    """The patch text is not in the V4A format; the message names the line."""


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``@@`` section of an update: where to look and what to change."""

    anchors: tuple[str, ...]
    """The ``@@ text`` lines before it, in order (empty: search from the previous hunk)."""
    old: tuple[str, ...]
    """Its context and ``-`` lines: what the file holds."""
    new: tuple[str, ...]
    """Its context and ``+`` lines: what the file should hold."""
    at_end: bool
    """``*** End of File`` followed it: the lines end the file."""
    line: int
    """1-based line of the patch where the hunk starts."""


@dataclass(frozen=True, slots=True)
class AddFile:
    """``*** Add File``: a new file and its whole content."""

    path: str
    content: str
    line: int


@dataclass(frozen=True, slots=True)
class DeleteFile:
    """``*** Delete File``: an existing file to remove."""

    path: str
    line: int


@dataclass(frozen=True, slots=True)
class UpdateFile:
    """``*** Update File``: hunks to apply, and a new name when ``move_to`` is set."""

    path: str
    move_to: str | None
    hunks: tuple[Hunk, ...]
    line: int


FileOp = AddFile | DeleteFile | UpdateFile


def parse_patch(text: str) -> list[FileOp]:
    """The operations of ``text``, in order; ``PatchSyntaxError`` when it is malformed."""
    lines, first = _envelope(text)
    ops: list[FileOp] = []
    at = 0
    while at < len(lines):
        line = lines[at].strip()
        number = first + at
        if not line:
            at += 1
            continue
        op: FileOp
        if line.startswith(_ADD):
            op, at = _add(lines, at, first)
        elif line.startswith(_DELETE):
            op, at = DeleteFile(_path(line, _DELETE, number), number), at + 1
        elif line.startswith(_UPDATE):
            op, at = _update(lines, at, first)
        else:
            raise PatchSyntaxError(
                f"Line {number} of the patch, `{_short(lines[at])}`, does not start a file "
                "section; each section starts with `*** Add File: PATH`, `*** Update File: PATH` "
                "or `*** Delete File: PATH`."
            )
        ops.append(op)
    if not ops:
        raise PatchSyntaxError(
            "The patch holds no file sections, so it changes nothing; put `*** Add File:`, "
            "`*** Update File:` or `*** Delete File:` sections between `*** Begin Patch` and "
            "`*** End Patch`."
        )
    return ops


def _envelope(text: str) -> tuple[list[str], int]:
    """The lines between the begin and end markers, and the patch line number of the first."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    skipped = 0
    while len(lines) > 1 and not lines[0].strip():
        lines, skipped = lines[1:], skipped + 1
    while len(lines) > 1 and not lines[-1].strip():
        lines = lines[:-1]
    if len(lines) >= 2:
        heredoc = _HEREDOC.match(lines[0].strip())
        fenced = lines[0].strip().startswith("```") and lines[-1].strip() == "```"
        if (heredoc and lines[-1].strip() == heredoc.group(2)) or fenced:
            lines, skipped = lines[1:-1], skipped + 1
    if not lines[0].strip():
        raise PatchSyntaxError(
            f"The patch is empty; send the whole patch as the input, from `{BEGIN}` to `{END}`."
        )
    if lines[0].strip() != BEGIN:
        raise PatchSyntaxError(
            f"The patch must start with the line `{BEGIN}` (found `{_short(lines[0])}`); send "
            f"the whole patch, from `{BEGIN}` to `{END}`, as the input."
        )
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchSyntaxError(
            f"The patch must end with the line `{END}`; it may have been cut off, so nothing "
            f"was changed: send the whole patch again, ending with `{END}`."
        )
    return lines[1:-1], skipped + 2


def _path(line: str, marker: str, number: int) -> str:
    path = line[len(marker) :].strip()
    if not path:
        raise PatchSyntaxError(
            f"Line {number} of the patch, `{line}`, names no file; write the path after the "
            f"colon: `{marker} src/app.py`."
        )
    return path


def _is_header(line: str) -> bool:
    return line.lstrip().startswith(("*** Add File:", "*** Delete File:", "*** Update File:"))


def _add(lines: list[str], at: int, first: int) -> tuple[AddFile, int]:
    number = first + at
    path = _path(lines[at].strip(), _ADD, number)
    content: list[str] = []
    at += 1
    while at < len(lines):
        line = lines[at]
        if line.startswith("+"):
            content.append(line[1:])
        elif not line.strip() and _more_added_lines(lines, at):
            content.append("")  # an empty line the model did not prefix with "+"
        else:
            break
        at += 1
    if at < len(lines) and lines[at].strip() and not _is_header(lines[at]):
        raise PatchSyntaxError(
            f"Line {first + at} of the patch, `{_short(lines[at])}`, is inside `*** Add File: "
            f"{path}` but does not start with '+'; every line of a new file starts with '+' "
            "(an empty line is a lone '+')."
        )
    text = "".join(f"{line}\n" for line in content)
    return AddFile(path, text, number), at


def _more_added_lines(lines: list[str], at: int) -> bool:
    """Whether a ``+`` line follows the blank lines from ``at`` on, before anything else."""
    for line in lines[at:]:
        if line.strip():
            return line.startswith("+")
    return False


def _update(lines: list[str], at: int, first: int) -> tuple[UpdateFile, int]:
    number = first + at
    path = _path(lines[at].strip(), _UPDATE, number)
    at += 1
    move_to = None
    if at < len(lines) and lines[at].strip().startswith(_MOVE):
        move_to = _path(lines[at].strip(), _MOVE, first + at)
        at += 1
    hunks: list[Hunk] = []
    while at < len(lines) and not _is_header(lines[at]):
        if not lines[at].strip() and not _hunk_follows(lines, at):
            at += 1  # blank lines between sections
            continue
        hunk, at = _hunk(lines, at, first, path)
        hunks.append(hunk)
    if not hunks and move_to is None:
        raise PatchSyntaxError(
            f"`*** Update File: {path}` (line {number} of the patch) has no hunks; add the "
            "lines to change (' ' context, '-' removed, '+' added) after an `@@` line, or "
            "leave the section out."
        )
    return UpdateFile(path, move_to, tuple(hunks), number), at


def _hunk_follows(lines: list[str], at: int) -> bool:
    """Whether hunk lines follow the blank lines from ``at`` on (the blank is then context)."""
    for line in lines[at:]:
        if line.strip():
            return not _is_header(line) and not line.strip().startswith(_END_OF_FILE)
    return False


def _hunk(lines: list[str], at: int, first: int, path: str) -> tuple[Hunk, int]:
    start = first + at
    anchors: list[str] = []
    while at < len(lines) and lines[at].strip().startswith("@@"):
        anchor = lines[at].strip()[2:].strip()
        header = _UNIFIED_HEADER.match(anchor)  # `@@ -1,3 +1,4 @@ def f():` from a diff
        if header:
            anchor = anchor[header.end() :]
        anchor = anchor.removesuffix("@@").strip()  # `@@ def f(): @@`
        if anchor:
            anchors.append(anchor)
        at += 1
    old: list[str] = []
    new: list[str] = []
    at_end = False
    while at < len(lines):
        line = lines[at]
        if line.strip() == _END_OF_FILE:
            at_end = True
            at += 1
            break
        if _is_header(line) or line.strip().startswith("@@"):
            break
        if not line:
            old.append("")
            new.append("")
        elif line[0] == " ":
            old.append(line[1:])
            new.append(line[1:])
        elif line[0] == "-":
            old.append(line[1:])
        elif line[0] == "+":
            new.append(line[1:])
        else:
            raise PatchSyntaxError(
                f"Line {first + at} of the patch, `{_short(line)}`, is inside a hunk of "
                f"{path} but starts with none of {_LINE_KINDS}; prefix every hunk line with "
                "one of them (a context line keeps its own indentation after the space)."
            )
        at += 1
    while old and new and old[-1] == new[-1] == "" and not at_end:
        old.pop()  # blank lines before the next section are separators, not context
        new.pop()
    if not old and not new:
        raise PatchSyntaxError(
            f"The hunk at line {start} of the patch ({path}) has no lines; follow each `@@` "
            f"line with the lines to change, each starting with {_LINE_KINDS}."
        )
    return Hunk(tuple(anchors), tuple(old), tuple(new), at_end, start), at


def _short(line: str, limit: int = 60) -> str:
    line = line.strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"
