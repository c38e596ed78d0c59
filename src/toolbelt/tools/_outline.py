"""read_file's outline of a source file: asked for (``outline``), or given instead of the
first part of a file too large to read whole (its shape tells the model which part to read).

The outline is capped like a read (``MAX_OUTLINE_CHARS``); structured, it is the definitions
with their kinds, names and line ranges.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolbelt.core.content import ToolOutput
from toolbelt.core.errors import ToolError
from toolbelt.core.wording import counted

__all__ = ["MAX_OUTLINE_CHARS", "can_outline", "outline_result"]

MAX_OUTLINE_CHARS = 40_000


def can_outline(path: Path) -> bool:
    from toolbelt.outline.grammars import grammar_for

    return grammar_for(path) is not None


def outline_result(path: Path, data: bytes, shown: str, *, over_budget: int | None) -> ToolOutput:
    """The outline of ``data`` (``path``'s bytes); ``over_budget``: the read budget the whole
    file passed, said in the header."""
    from toolbelt.outline.grammars import SUFFIXES, grammar_for
    from toolbelt.outline.outline import Definition, outline, render

    grammar = grammar_for(path)
    if grammar is None:
        kinds = ", ".join(sorted(SUFFIXES))
        raise ToolError(
            f"{shown} is not a source file toolbelt can outline (it knows {kinds}); read it "
            "without `outline`."
        )
    definitions = outline(data, grammar)
    total = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    size = counted(total, "line")
    if over_budget is not None:
        head = (
            f"{shown} has {size}, more than one read returns, so here is its outline; read "
            "the part you need with offset and limit."
        )
    else:
        head = f"Outline of {shown} ({size}):"
    body = render(definitions, max_chars=MAX_OUTLINE_CHARS) or "(no classes or functions)"

    def entry(item: Definition) -> dict[str, Any]:
        return {
            "kind": item.kind,
            "name": item.name,
            "signature": item.signature,
            "line": item.line,
            "end_line": item.end_line,
            "children": [entry(child) for child in item.children],
        }

    structured = {
        "path": shown,
        "type": "outline",
        "total_lines": total,
        "definitions": [entry(d) for d in definitions],
    }
    return ToolOutput.text(f"{head}\n{body}", structured)
