"""ls: list a directory's entries with type, size, mode and modification time.

Directories first, then files, each group by name; gitignored entries are left out (asked of
git in one batch when the directory is in a repository), hidden ones unless ``hidden`` is
true, ``.git`` always. Symlinks are shown as symlinks and never followed. ``depth`` > 1 walks
subdirectories, capped at 1,000 entries with a note.
"""

from __future__ import annotations

import fnmatch
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.permissions.paths import protections_of
from toolbelt.search.ignored import git_ignored
from toolbelt.tools._files import file_guard, resolve

__all__ = ["LsInput", "LsTool"]

MAX_ENTRIES = 1000

DESCRIPTION = """\
List a directory: each entry's type (dir, file, link), size, permissions and modification time, \
directories first. `depth` > 1 also lists subdirectories. Gitignored and hidden entries are \
skipped unless `hidden` is true (hidden only); `ignore` takes extra glob patterns to skip. Use \
glob to find files by pattern anywhere in the tree."""


class LsInput(ToolInput):
    """Arguments of `ls`."""

    path: str = Field(default=".", description="Directory to list (default: cwd).")
    depth: int = Field(default=1, ge=1, le=10, description="How many levels to list.")
    ignore: list[str] = Field(default_factory=list, description="Glob patterns of names to skip.")
    hidden: bool = Field(default=False, description="Include names starting with a dot.")


class LsOutput(BaseModel):
    """Structured result of `ls`."""

    path: str
    entries: list[dict[str, Any]] = Field(description="path, type, size, mode, mtime per entry.")
    truncated: bool


class LsTool(Tool[LsInput]):
    """Directory listing."""

    name = "ls"
    rule_family, rule_aliases = "Read", ("LS",)
    title = "List directory"
    description = DESCRIPTION
    input_model = LsInput
    output_model = LsOutput
    example = {"path": "src", "depth": 2}
    readonly = True
    destructive = False
    idempotent = True

    async def access(self, args: LsInput, ctx: ToolContext) -> Access:
        target = resolve(ctx, args.path)
        return Access(
            AccessKind.READ,
            paths=(target.path,),
            protections=protections_of(target),
            summary=f"list {args.path}",
        )

    async def run(self, args: LsInput, ctx: ToolContext) -> ToolOutput:
        target = resolve(ctx, args.path)
        shown = file_guard(ctx).display(target.path)
        if not target.path.is_dir():
            return ToolOutput.text(f"{shown} is not a directory.", is_error=True)
        return await anyio.to_thread.run_sync(_list, target.path, shown, args, ctx.visible)


def _list(root: Path, shown: str, args: LsInput, visible: Callable[[Path], bool]) -> ToolOutput:
    lines: list[str] = []
    entries: list[dict[str, object]] = []
    truncated = False
    queue: list[tuple[Path, int]] = [(root, 0)]
    while queue and not truncated:
        directory, level = queue.pop(0)
        children = [c for c in _children(directory, args) if visible(c[0])]
        for entry, info in children:
            if len(entries) >= MAX_ENTRIES:
                truncated = True
                break
            rel = os.path.relpath(entry, root)
            kind = (
                "dir"
                if stat.S_ISDIR(info.st_mode)
                else "link"
                if stat.S_ISLNK(info.st_mode)
                else "file"
            )
            stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.st_mtime))
            size = "-" if kind == "dir" else str(info.st_size)
            name = rel + ("/" if kind == "dir" else "")
            if kind == "link":
                name += f" -> {os.readlink(entry)}"
            lines.append(f"{stat.filemode(info.st_mode)} {size:>10} {stamp}  {name}")
            entries.append(
                {
                    "path": rel,
                    "type": kind,
                    "size": info.st_size,
                    "mode": stat.filemode(info.st_mode),
                    "mtime": info.st_mtime,
                }
            )
            if kind == "dir" and level + 1 < args.depth:
                queue.append((entry, level + 1))
    header = (
        f"{shown}/ ({len(entries)} entries)" if shown != "." else f"./ ({len(entries)} entries)"
    )
    text = header + ("\n" + "\n".join(lines) if lines else "\n(empty)")
    if truncated:
        text += f"\n\n[Showing the first {MAX_ENTRIES} entries; list a subdirectory or use glob.]"
    return ToolOutput.text(text, {"path": shown, "entries": entries, "truncated": truncated})


def _children(directory: Path, args: LsInput) -> list[tuple[Path, os.stat_result]]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    names = [n for n in names if n != ".git" and (args.hidden or not n.startswith("."))]
    names = [n for n in names if not any(fnmatch.fnmatch(n, p) for p in args.ignore)]
    ignored = git_ignored(directory, names)
    found = []
    for name in names:
        if name in ignored:
            continue
        try:
            info = os.lstat(directory / name)
        except OSError:
            continue
        found.append((directory / name, info))
    found.sort(key=lambda item: (not stat.S_ISDIR(item[1].st_mode), item[0].name))
    return found
