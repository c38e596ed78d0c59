"""The lsp tool's search for definitions by name, across a directory, without a server.

ripgrep finds the files that mention the name as a word (gitignore-aware, as grep searches);
tree-sitter outlines them (``outline``) and the definitions whose name — or name path,
``Class.method`` — matches are listed with their signatures and line ranges. A name no
definition has exactly is matched as a case-insensitive part of names instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.programs import find_rg
from toolbelt.paths.small_read import read_head
from toolbelt.search.ripgrep import lines_of, rg_output
from toolbelt.tools._files import file_guard

__all__ = ["MAX_FOUND", "find_definitions"]

MAX_FOUND = 100
MAX_PARSED_BYTES = 8 * 1024 * 1024


async def find_definitions(ctx: ToolContext, directory: Path, symbol: str) -> ToolOutput:
    """The definitions named ``symbol`` under ``directory``."""
    rg = find_rg()
    if rg is None:
        raise ToolError("Searching for definitions needs ripgrep (rg), which is not installed.")
    name = re.split(r"[./]", symbol)[-1]
    if not name:
        raise ToolError("Give `symbol`, the name of the definitions to find.")
    argv = ["--no-config", "-l", "-i", "-F", "-e", name, "--", "."]
    listed = lines_of(await rg_output(rg, argv, cwd=directory))
    files = [directory / os.fsdecode(line).removeprefix("./") for line in listed if line]
    if ctx.hides_below(directory):
        files = [path for path in files if ctx.visible(path)]
    return await anyio.to_thread.run_sync(_render, ctx, files, symbol)


def _render(ctx: ToolContext, files: list[Path], symbol: str) -> ToolOutput:
    from toolbelt.outline.grammars import grammar_for
    from toolbelt.outline.outline import Definition, outline

    wanted = tuple(re.split(r"[./]", symbol))
    exact: list[tuple[Path, Definition, tuple[str, ...]]] = []
    loose: list[tuple[Path, Definition, tuple[str, ...]]] = []
    parsed = 0

    def walk(path: Path, items: Sequence[Definition], trail: tuple[str, ...]) -> None:
        for item in items:
            here = (*trail, item.name)
            if here[-len(wanted) :] == wanted:
                exact.append((path, item, trail))
            elif wanted[-1].lower() in item.name.lower():
                loose.append((path, item, trail))
            walk(path, item.children, here)

    for path in sorted(files):
        grammar = grammar_for(path)
        if grammar is None or parsed > MAX_PARSED_BYTES:
            continue
        data = read_head(path, MAX_PARSED_BYTES)  # never blocks on a FIFO swapped in
        if data is None:
            continue
        parsed += len(data)
        walk(path, outline(data, grammar), ())
    found = exact or loose
    guard = file_guard(ctx)
    if not found:
        return ToolOutput.text(
            f"No definitions named {symbol!r} found.",
            {"operation": "symbols", "server": "", "places": [], "text": ""},
        )
    matching = "named" if exact else "with names containing"
    files_count = len({path for path, _, _ in found})
    head = f"Definitions {matching} {symbol!r}: {len(found)} in {files_count} file"
    rows, places = [head + ("s:" if files_count != 1 else ":")], list[dict[str, Any]]()
    for path, item, trail in found[:MAX_FOUND]:
        inside = f", in {'.'.join(trail)}" if trail else ""
        shown = guard.display(path)
        rows.append(
            f"{shown}:{item.line}: {item.signature}  (lines {item.line}-{item.end_line}{inside})"
        )
        where = {"path": shown, "line": item.line, "end_line": item.end_line}
        places.append({**where, "name": item.name, "kind": item.kind, "container": ".".join(trail)})
    if len(found) > MAX_FOUND:
        rows.append(f"… and {len(found) - MAX_FOUND} more.")
    return ToolOutput.text(
        "\n".join(rows), {"operation": "symbols", "server": "", "places": places, "text": ""}
    )
