"""glob: find files by name pattern, newest first, gitignore-aware, capped with guidance.

Built on ``rg --files --glob`` (the fastest walker that honours nested .gitignore files), with
hidden files included and ``.git`` never. Paths are relative to the search root; results are
sorted by modification time so the files most likely to matter come first.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.listing import ListingJudge
from toolbelt.core.programs import find_rg
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.search.budget import SearchBudget, cut_note
from toolbelt.search.fallback import python_files
from toolbelt.search.globs import compile_glob, name_only_glob
from toolbelt.search.order import newest_first
from toolbelt.search.ripgrep import rg_newest_first
from toolbelt.tools._files import file_guard, not_a_directory, read_access, resolve

__all__ = ["GlobInput", "GlobTool"]

DESCRIPTION = """\
Find files whose path matches a glob pattern, such as "**/*.py", "src/**/*.{ts,tsx}" or \
"test_*.py" (a pattern without a slash matches file names at any depth). Returns paths relative \
to the search directory, most recently modified first, at most `limit` (default 1000). Files \
ignored by .gitignore are skipped unless `include_ignored` is true; hidden files are included; \
.git is never searched. Use grep to search inside files."""


class GlobInput(ToolInput):
    """Arguments of `glob`."""

    pattern: str = Field(min_length=1, description="Glob pattern, e.g. '**/*.py'.")
    path: str | None = Field(default=None, description="Directory to search (default: cwd).")
    include_ignored: bool = Field(default=False, description="Also list gitignored files.")
    limit: int = Field(default=1000, ge=1, le=100_000, description="At most this many paths.")


class GlobOutput(BaseModel):
    """Structured result of `glob`."""

    pattern: str
    count: int = Field(description="Matching files, before the limit.")
    files: list[str] = Field(description="The files returned, newest first.")
    truncated: bool


class GlobTool(Tool[GlobInput]):
    """File-name search on ripgrep's walker."""

    name = "glob"
    rule_family, claude_name = "Read", "Glob"
    title = "Find files"
    description = DESCRIPTION
    output_model = GlobOutput
    example = {"pattern": "**/*.py", "path": "src"}
    hints = ToolHints.READ_ONLY

    async def access(self, args: GlobInput, ctx: ToolContext) -> Access:
        return read_access(ctx, args.path or ".", f"list {args.path or '.'}")

    async def run(self, args: GlobInput, ctx: ToolContext) -> ToolOutput:
        target = resolve(ctx, args.path or ".")
        shown = file_guard(ctx).display(target.path)
        if not target.path.is_dir():
            raise not_a_directory(shown, target.path)
        rg = find_rg()
        budget = SearchBudget()
        if rg is None:
            paths = await anyio.to_thread.run_sync(
                lambda: python_files(
                    target.path, args.pattern, include_ignored=args.include_ignored
                )
            )
        else:
            dir_fd = file_guard(ctx).open_directory(target)  # rg starts in what was checked
            try:
                # each path judged with the stat taken for the order, as rg lists it
                hides = ctx.listing_judge(target.path)
                paths = await _rg_glob(rg, args, target.path, budget, dir_fd, hides)
            finally:
                os.close(dir_fd)
        if rg is None:
            if ctx.hides_below(target.path):
                paths = [rel for rel in paths if ctx.visible(target.path / rel)]
            paths = await anyio.to_thread.run_sync(newest_first, target.path, paths)
        return _render(paths, args, slow=rg is None, budget=budget)


async def _rg_glob(
    rg: str,
    args: GlobInput,
    root: Path,
    budget: SearchBudget,
    dir_fd: int,
    hides: ListingJudge | None,
) -> list[str]:
    """Matching files, newest first, from one rg walk that honours the ignore files.

    ``--glob`` cannot filter (rg lets a glob override ignore files), but a file *type* does
    not override them: a pattern on file names alone (``*.py``, ``**/test_*.py``) becomes a
    type, and rg filters while it walks. Patterns on paths (``src/*.py``) are matched here,
    before the stat that orders them.
    """
    argv = ["--files"]
    if args.include_ignored:
        argv.append("--no-ignore")
    name_glob = name_only_glob(args.pattern)
    if name_glob is not None:
        argv += ["--type-add", f"toolbeltglob:{name_glob}", "--type", "toolbeltglob"]
        return await rg_newest_first(rg, argv, cwd=root, hides=hides, budget=budget, cwd_fd=dir_fd)
    matcher = compile_glob(args.pattern).fullmatch

    def keep(raw: bytes) -> bool:
        return matcher(raw.decode("utf-8", errors="replace")) is not None

    return await rg_newest_first(
        rg, argv, cwd=root, keep=keep, hides=hides, budget=budget, cwd_fd=dir_fd
    )


def _render(
    paths: list[str], args: GlobInput, *, slow: bool, budget: SearchBudget | None = None
) -> ToolOutput:
    shown = paths[: args.limit]
    structured = {
        "pattern": args.pattern,
        "count": len(paths),
        "files": shown,
        "truncated": len(paths) > len(shown) or bool(budget and budget.expired),
    }
    if not paths:
        text = "No files found."
    else:
        text = "\n".join(shown)
        if len(paths) > len(shown):
            text += (
                f"\n\n[Showing {len(shown)} of {len(paths)} files; narrow the pattern or path "
                "to see the rest.]"
            )
    if budget is not None and budget.expired:
        text += "\n\n" + cut_note(budget, file_sizes=False)
    if slow:
        text += "\n\n[ripgrep was not found, so this used the slow pure-Python walk.]"
    return ToolOutput.text(text, structured)
