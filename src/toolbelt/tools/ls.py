"""ls: list a directory's entries with type, size, mode and modification time.

Directories first, then files, each group by name; gitignored entries are left out (asked of
git in one batch when the directory is in a repository), hidden ones unless ``hidden`` is
true, ``.git`` always. Symlinks are shown as symlinks and never followed: the directory is
opened through the path guard (no symlink on the way) and listed through its descriptor, and
subdirectories are opened beneath it, so a directory swapped for a symlink after the
permission check is refused instead of listing somewhere else. ``depth`` > 1 walks
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

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.core.wording import counted
from toolbelt.paths.beneath import open_beneath
from toolbelt.search.ignored import git_ignored
from toolbelt.tools._files import file_guard, not_a_directory, read_access, resolve

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
    rule_family, claude_name = "Read", "LS"
    title = "List directory"
    description = DESCRIPTION
    output_model = LsOutput
    example = {"path": "src", "depth": 2}
    hints = ToolHints.READ_ONLY

    async def access(self, args: LsInput, ctx: ToolContext) -> Access:
        return read_access(ctx, args.path, f"list {args.path}")

    async def run(self, args: LsInput, ctx: ToolContext) -> ToolOutput:
        target = resolve(ctx, args.path)
        shown = file_guard(ctx).display(target.path)
        if not target.path.is_dir():
            raise not_a_directory(shown, target.path)
        root_fd = file_guard(ctx).open_directory(target)
        try:
            return await anyio.to_thread.run_sync(
                _list, root_fd, target.path, shown, args, ctx.visible
            )
        finally:
            os.close(root_fd)


_SUBDIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _list(
    root_fd: int, root: Path, shown: str, args: LsInput, visible: Callable[[Path], bool]
) -> ToolOutput:
    lines: list[str] = []
    entries: list[dict[str, object]] = []
    truncated = False
    queue: list[tuple[Path, int, int]] = [(root, os.dup(root_fd), 0)]
    try:
        while queue and not truncated:
            directory, dir_fd, level = queue.pop(0)
            try:
                children = [c for c in _children(dir_fd, directory, args) if visible(c[0])]
                truncated = _add_entries(children, dir_fd, root, level, args, lines, entries, queue)
            finally:
                os.close(dir_fd)
    finally:
        for _, dir_fd, _ in queue:
            os.close(dir_fd)
    header = f"{shown}/ ({counted(len(entries), 'entry', 'entries')})"
    text = header + ("\n" + "\n".join(lines) if lines else "\n(empty)")
    if truncated:
        text += f"\n\n[Showing the first {MAX_ENTRIES} entries; list a subdirectory or use glob.]"
    return ToolOutput.text(text, {"path": shown, "entries": entries, "truncated": truncated})


def _add_entries(
    children: list[tuple[Path, os.stat_result]],
    dir_fd: int,
    root: Path,
    level: int,
    args: LsInput,
    lines: list[str],
    entries: list[dict[str, object]],
    queue: list[tuple[Path, int, int]],
) -> bool:
    """Render ``children`` of the directory ``dir_fd``; True when the entry cap was reached."""
    for entry, info in children:
        if len(entries) >= MAX_ENTRIES:
            return True
        rel = _as_text(os.path.relpath(entry, root))
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
            name += f" -> {_as_text(_link_target(entry.name, dir_fd))}"
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
            try:
                queue.append((entry, open_beneath(dir_fd, entry.name, _SUBDIR_FLAGS), level + 1))
            except OSError:
                continue  # swapped for a symlink or removed since it was listed: not followed
    return False


def _as_text(name: str) -> str:
    """``name`` as text a reply can carry: bytes of a name that are not UTF-8 (held by Python
    as lone surrogates) shown as U+FFFD, as glob and grep show them."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _link_target(name: str, dir_fd: int) -> str:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return "?"


def _children(dir_fd: int, directory: Path, args: LsInput) -> list[tuple[Path, os.stat_result]]:
    try:
        names = sorted(os.listdir(dir_fd))
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
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            continue
        found.append((directory / name, info))
    found.sort(key=lambda item: (not stat.S_ISDIR(item[1].st_mode), item[0].name))
    return found
