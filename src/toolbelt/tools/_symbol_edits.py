"""What a symbol edit changes, as text rewrites for ``_patch_plan.plan_rewrites``.

A rename is the language server's ``WorkspaceEdit`` (``changes`` or ``documentChanges``; a
file created, renamed or deleted by it is refused, as that is no longer a rename of a name):
its text edits, positions in UTF-16 units on lines ended by ``\\n``, ``\\r\\n`` or ``\\r`` as
LSP counts them, applied from the last to the first. A replaced definition is found with
tree-sitter (``outline``): by name, or ``Class.method``, or the one starting on a given line;
its lines — from its ``def``/``class`` line to its last, decorators above kept — are replaced
by the new text, indented as given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolbelt.core.errors import ToolError
from toolbelt.outline.outline import Definition

__all__ = ["definition_rewrite", "locate_definition", "name_line", "workspace_edit_rewrites"]

_BREAK = re.compile(r"\r\n|\r|\n")


def _offset(text: str, starts: list[int], line: int, units: int) -> int:
    if line >= len(starts):
        return len(text)
    offset = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    count = 0
    while offset < end and count < units and text[offset] not in "\r\n":
        count += 2 if ord(text[offset]) > 0xFFFF else 1
        offset += 1
    return offset


def apply_text_edits(text: str, edits: Sequence[Any]) -> str:
    """``edits`` (LSP ``TextEdit``s against ``text``) applied."""
    starts = [0, *(m.end() for m in _BREAK.finditer(text))]
    spans = []
    for edit in edits:
        start = edit.range.start
        end = edit.range.end
        spans.append(
            (
                _offset(text, starts, start.line, start.character),
                _offset(text, starts, end.line, end.character),
                edit.new_text,
            )
        )
    for begin, end, new in sorted(spans, key=lambda span: span[:2], reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def workspace_edit_rewrites(edit: Any) -> list[tuple[str, Callable[[str], str]]]:
    """Each file a ``WorkspaceEdit`` changes, with the rewrite of its text."""
    from lsprotocol import types as lsp

    from toolbelt.lsp.client import path_of

    by_uri: dict[str, list[Any]] = {}
    for change in edit.document_changes or ():
        if not isinstance(change, lsp.TextDocumentEdit):
            raise ToolError(
                "The server's rename also creates, moves or deletes files, which symbol_edit "
                "does not do; rename the file with bash (git mv) and the name separately."
            )
        by_uri.setdefault(change.text_document.uri, []).extend(change.edits)
    for uri, edits in (edit.changes or {}).items():
        by_uri.setdefault(uri, []).extend(edits)

    def rewrite(edits: list[Any]) -> Callable[[str], str]:
        return lambda text: apply_text_edits(text, edits)

    return [(str(path_of(uri)), rewrite(edits)) for uri, edits in by_uri.items()]


def locate_definition(
    path: Path, data: bytes, symbol: str, line: int | None, *, shown: str
) -> Definition:
    """The definition ``symbol`` of ``path`` (a name path: ``Class.method`` or
    ``Class/method``; ``line`` picks among same-named ones), found with tree-sitter."""
    from toolbelt.outline.grammars import grammar_for
    from toolbelt.outline.outline import outline

    grammar = grammar_for(path)
    if grammar is None:
        raise ToolError(f"{shown} is not a source file toolbelt can find definitions in.")
    wanted = tuple(re.split(r"[./]", symbol))
    found: list[Definition] = []

    def walk(items: Sequence[Definition], trail: tuple[str, ...]) -> None:
        for item in items:
            here = (*trail, item.name)
            if here[-len(wanted) :] == wanted and (line is None or item.line == line):
                found.append(item)
            walk(item.children, here)

    walk(outline(data, grammar), ())
    if not found:
        where = f" starting on line {line}" if line is not None else ""
        raise ToolError(
            f"{shown} has no definition {symbol!r}{where}; see its definitions with read_file "
            "outline=true (name a method as Class.method)."
        )
    if len(found) > 1:
        lines = ", ".join(str(item.line) for item in found)
        raise ToolError(
            f"{shown} defines {symbol!r} {len(found)} times (lines {lines}); give `line`, "
            "the line its definition starts on."
        )
    return found[0]


def name_line(path: Path, text: str, symbol: str, line: int | None, *, shown: str) -> int:
    """The line where the definition ``symbol`` says its name (past its decorators)."""
    name = re.split(r"[./]", symbol)[-1]
    start = locate_definition(path, text.encode(), symbol, line, shown=shown).line
    for offset, content in enumerate(text.splitlines()[start - 1 : start + 20]):
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", content):
            return start + offset
    return start


def definition_rewrite(
    path: Path,
    data: bytes,
    symbol: str,
    line: int | None,
    new_text: str,
    *,
    shown: str,
    where: str = "replace",
) -> Callable[[str], str]:
    """The rewrite putting ``new_text`` in place of the definition ``symbol`` of ``path``
    (``where``: ``replace``), before it (``before``: above its decorators), after it
    (``after``), or removing it (``delete``, with the blank lines that followed it)."""
    target = locate_definition(path, data, symbol, line, shown=shown)

    def rewrite(text: str) -> str:
        starts = [0, *(m.end() for m in _BREAK.finditer(text))]
        first, last = target.line - 1, target.end_line - 1
        if last >= len(starts):
            raise ToolError(f"{shown} changed while the edit was planned; try again.")
        breaks = _BREAK.search(text)
        newline = breaks.group(0) if breaks else "\n"
        while where in ("before", "delete") and first > 0 and _decorator(text, starts, first - 1):
            first -= 1
        after = _BREAK.search(text, starts[last])
        end = after.start() if after is not None else len(text)
        lines = new_text.rstrip("\r\n").replace("\r\n", "\n").split("\n")
        block = newline.join(lines)
        if where == "replace":
            return text[: starts[first]] + block + text[end:]
        if where == "before":
            return text[: starts[first]] + block + newline + text[starts[first] :]
        if where == "after":
            return text[:end] + newline + block + text[end:]
        stop = last + 1
        while stop < len(starts) and not _line(text, starts, stop).strip():
            stop += 1
        if stop >= len(starts):  # it ended the file: the blank lines before it go instead
            while first > 0 and not _line(text, starts, first - 1).strip():
                first -= 1
            return text[: starts[first]]
        return text[: starts[first]] + text[starts[stop] :]

    return rewrite


def _line(text: str, starts: list[int], index: int) -> str:
    end = starts[index + 1] if index + 1 < len(starts) else len(text)
    return text[starts[index] : end]


def _decorator(text: str, starts: list[int], index: int) -> bool:
    return _line(text, starts, index).lstrip().startswith("@")
