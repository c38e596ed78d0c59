"""The lsp tool's map of a directory: its definitions ranked by use (``outline.repo_map``),
over the files a listing would show (gitignore-aware, as glob lists them; hidden and
read-denied files left out)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.programs import find_rg
from toolbelt.search.ripgrep import lines_of, rg_output
from toolbelt.tools._files import file_guard

__all__ = ["repo_map_result"]


async def repo_map_result(ctx: ToolContext, directory: Path, tokens: int) -> ToolOutput:
    """The ranked map of ``directory`` within ``tokens``."""
    rg = find_rg()
    if rg is None:
        raise ToolError("The repository map needs ripgrep (rg), which is not installed.")
    listed = lines_of(await rg_output(rg, ["--no-config", "--files"], cwd=directory))
    files = [directory / os.fsdecode(line) for line in listed if line]
    if ctx.hides_below(directory):
        files = [path for path in files if ctx.visible(path)]
    return await anyio.to_thread.run_sync(_render, ctx, directory, files, tokens)


def _render(ctx: ToolContext, directory: Path, files: list[Path], tokens: int) -> ToolOutput:
    from toolbelt.outline.grammars import grammar_for
    from toolbelt.outline.repo_map import repo_map

    guard = file_guard(ctx)
    shown = [guard.display(path) for path in files]
    text, entries = repo_map(directory, files, tokens=tokens, shown=shown)
    where = guard.display(directory)
    if not text:
        return ToolOutput.text(
            f"No definitions found in {where} (toolbelt maps Python, JavaScript, TypeScript, "
            "Go, Rust, Java, C, C++, Ruby and shell files).",
            {"operation": "symbols", "server": "", "places": [], "text": ""},
        )
    files_shown = len({e.path for e in entries})
    sources = sum(1 for path in files if grammar_for(path) is not None)
    head = (
        f"The most used definitions in {where}, ranked by how many other files use their "
        f"names ({files_shown} of {sources} source files, about {tokens} tokens):"
    )
    places = [
        {"path": guard.display(e.path), "line": e.line, "name": e.name, "score": round(e.score, 2)}
        for e in entries
    ]
    return ToolOutput.text(
        f"{head}\n{text}", {"operation": "symbols", "server": "", "places": places, "text": ""}
    )
