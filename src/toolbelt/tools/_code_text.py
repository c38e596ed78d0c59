"""What the code tools (lsp, symbol_edit) show of files: places with their lines.

A place is shown as ``path:line:column: the line's text``; the text only where this call may
show the file's content (``ToolContext.may_quote``), and places in files a listing would hide
(``ToolContext.visible``) are only counted. Files are read once per call, through the path
guard.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.paths.guard import ResolvedPath
from toolbelt.tools._files import file_guard

__all__ = ["MAX_PLACES", "FileLines", "place_lines", "read_source"]

MAX_PLACES = 100
MAX_SOURCE_BYTES = 8 * 1024 * 1024


def read_source(ctx: ToolContext, resolved: ResolvedPath) -> str:
    """A source file's text, read through the path guard (UTF-8, undecodable bytes replaced)."""
    shown = file_guard(ctx).display(resolved.path)
    if not resolved.exists:
        raise ToolError(f"{shown} does not exist.")
    try:
        with os.fdopen(file_guard(ctx).open_for_read(resolved), "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise ToolError(f"{shown} could not be read ({exc.strerror}).") from exc
    if len(data) > MAX_SOURCE_BYTES:
        raise ToolError(f"{shown} is larger than 8 MB; no language server reads it.")
    return data.decode("utf-8", "replace")


class FileLines:
    """Files' lines for one call, read on first need."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.first: Path | None = None
        """The file the call asked about, if any."""
        self._texts: dict[Path, str] = {}

    def seed(self, path: Path, text: str) -> None:
        self.first = self.first or path
        self._texts[path] = text

    def text(self, path: Path | None) -> str:
        if path is None:
            return ""
        if path not in self._texts:
            try:
                with open(path, "rb") as handle:
                    self._texts[path] = handle.read(MAX_SOURCE_BYTES).decode("utf-8", "replace")
            except OSError:
                self._texts[path] = ""
        return self._texts[path]

    def lines(self, path: Path) -> list[str]:
        return self.text(path).splitlines() if self.quotable(path) else []

    def quotable(self, path: Path) -> bool:
        return self.ctx.may_quote(path) and self.ctx.visible(path)

    def shown(self, path: Path) -> str:
        return file_guard(self.ctx).display(path)


def place_lines(
    items: Sequence[tuple[Path, int, int, str | None]],
    lines: FileLines,
    title: str,
    *,
    none: str,
) -> tuple[str, list[dict[str, Any]]]:
    """``title``, then each place as ``path:line:column: text`` (capped); hidden ones counted."""
    visible = [item for item in items if lines.ctx.visible(item[0])]
    hidden = len(items) - len(visible)
    if not visible:
        return (none if not hidden else f"{none[:-1]}; {hidden} in files you may not see."), []
    files = len({item[0] for item in visible})
    head = f"{title}: {len(visible)} in {files} file{'s' * (files != 1)}"
    rows, places = [], []
    for path, line, column, label in visible[:MAX_PLACES]:
        shown = lines.shown(path)
        text = ""
        if lines.quotable(path):
            content = lines.lines(path)
            text = content[line - 1].strip() if 0 < line <= len(content) else ""
        described = f"{label}: {text}" if label and text else (label or text)
        rows.append(
            f"{shown}:{line}:{column}: {described}" if described else f"{shown}:{line}:{column}"
        )
        places.append({"path": shown, "line": line, "column": column, "text": text})
    more = []
    if len(visible) > MAX_PLACES:
        more.append(f"… and {len(visible) - MAX_PLACES} more.")
    if hidden:
        more.append(f"({hidden} more in files you may not see.)")
    return "\n".join([f"{head}:", *rows, *more]), places
