"""The read-only questions the lsp tool asks a server, answered in toolbelt's terms.

Positions go in as a 1-based line and either a 1-based character column or a symbol's name
on that line, and are sent in UTF-16 code units as LSP counts them; locations come back as
real paths with 1-based lines and character columns. ``Location`` and ``LocationLink``
answers are folded into one shape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from toolbelt.core.errors import ToolError
from toolbelt.lsp.client import path_of

__all__ = [
    "Place",
    "column_to_utf16",
    "find_position",
    "hover_text",
    "locations",
    "utf16_to_column",
]


@dataclass(frozen=True, slots=True)
class Place:
    """A point in a file: real path, 1-based line and character column."""

    path: Path
    line: int
    column: int
    end_line: int


def utf16_to_column(line: str, units: int) -> int:
    """The character index in ``line`` that ``units`` UTF-16 code units reach."""
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def column_to_utf16(line: str, column: int) -> int:
    """UTF-16 code units before the character index ``column`` of ``line``."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in line[:column])


_WORD = re.compile(r"[^\W\d]\w*")


def find_position(
    text: str, line: int, character: int | None, symbol: str | None, *, shown: str
) -> lsp.Position:
    """The position the arguments name: ``character`` (1-based) on ``line``, or the first
    whole-word occurrence of ``symbol`` on it, or its first identifier."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        raise ToolError(f"{shown} has {len(lines)} lines; line {line} is not one of them.")
    content = lines[line - 1]
    if character is not None:
        if not 1 <= character <= len(content) + 1:
            raise ToolError(
                f"Line {line} of {shown} has {len(content)} characters; character {character} "
                "is past its end (characters count from 1)."
            )
        column = character - 1
    elif symbol is not None:
        found = re.search(rf"(?<!\w){re.escape(symbol)}(?!\w)", content)
        if found is None:
            raise ToolError(
                f"{symbol!r} is not on line {line} of {shown}, which reads: {content.strip()!r}. "
                "Give the line where it appears, or its character column."
            )
        column = found.start()
    else:
        first = _WORD.search(content)
        if first is None:
            raise ToolError(
                f"Line {line} of {shown} holds no identifier; give `symbol` or `character`."
            )
        column = first.start()
    return lsp.Position(line - 1, column_to_utf16(content, column))


def locations(answer: Any, lines_of: Any) -> list[Place]:
    """``Location | LocationLink | list of them | None`` as places (``lines_of(path)`` gives
    a file's lines, to turn UTF-16 columns into characters)."""
    if answer is None:
        return []
    items = answer if isinstance(answer, Sequence) else [answer]
    places = []
    for item in items:
        if isinstance(item, lsp.LocationLink):
            uri, span = item.target_uri, item.target_selection_range
        elif isinstance(item, lsp.Location):
            uri, span = item.uri, item.range
        else:
            continue
        path = path_of(uri)
        lines = lines_of(path)
        text = lines[span.start.line] if span.start.line < len(lines) else ""
        column = utf16_to_column(text, span.start.character) + 1
        places.append(Place(path, span.start.line + 1, column, span.end.line + 1))
    return sorted(set(places), key=lambda p: (str(p.path), p.line, p.column))


def hover_text(answer: lsp.Hover | None) -> str:
    """A hover's contents as plain text."""
    if answer is None:
        return ""
    contents = answer.contents
    parts = contents if isinstance(contents, list) else [contents]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        else:
            texts.append(getattr(part, "value", str(part)))
    return "\n\n".join(t.strip() for t in texts if t.strip())
