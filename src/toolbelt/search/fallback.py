"""The slow path: search and list files in pure Python when no rg binary can be found.

It keeps rg's essentials — .git skipped, the root .gitignore's simple patterns honoured,
files with NUL bytes skipped, one regex over the whole file — so answers match rg's on
ordinary trees; results say they came from the slow path.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from pathlib import Path

from toolbelt.core.errors import ToolError
from toolbelt.paths.small_read import read_small
from toolbelt.search.budget import MAX_FILE_BYTES, SearchBudget
from toolbelt.search.globs import compile_glob

__all__ = ["python_files", "python_grep"]


def _ignored(root: Path) -> list[str]:
    data = read_small(root / ".gitignore", MAX_FILE_BYTES)  # never blocks on a FIFO
    if data is None:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    return [line.strip().rstrip("/") for line in lines if line.strip() and not line.startswith("#")]


def python_files(
    root: Path, glob: str | None = None, *, include_ignored: bool = False
) -> list[str]:
    """Files under ``root`` (relative paths), like ``rg --files [-g glob]``."""
    patterns = [] if include_ignored else _ignored(root)
    found: list[str] = []
    for directory, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        dirs[:] = [d for d in dirs if d != ".git" and not _match(patterns, d, rel_dir)]
        for name in files:
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if _match(patterns, name, rel_dir):
                continue
            if glob and not compile_glob(glob).fullmatch(rel):
                continue
            found.append(rel)
    return sorted(found)


def _match(patterns: list[str], name: str, rel_dir: str) -> bool:
    rel = os.path.normpath(os.path.join(rel_dir, name))
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p.lstrip("/")) for p in patterns)


_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def _read_regular(path: Path, *, limit: int | None) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (never through a symlink, as rg's walk
    never follows one) of at most ``limit`` bytes; None otherwise."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (limit is not None and info.st_size > limit):
            return None
        return handle.read()


def python_grep(
    root: Path,
    names: list[str],
    pattern: str,
    mode: str,
    case_insensitive: bool,
    glob: str | None,
    wanted: int | None,
    budget: SearchBudget | None = None,
) -> list[str]:
    """Lines in the same shapes as the rg path produces for ``mode``; within ``budget`` (then
    what was found so far) and, walking a directory, skipping files over ``MAX_FILE_BYTES``."""
    try:
        regex = re.compile(
            pattern.encode(), re.MULTILINE | (re.IGNORECASE if case_insensitive else 0)
        )
    except re.error as exc:
        raise ToolError(
            f"Search failed — the pattern is not a valid regular expression: {exc}."
        ) from exc
    out: list[str] = []
    for rel in names or python_files(root, glob):
        if budget is not None and budget.spent():
            break
        data = _read_regular(root / rel, limit=None if names else MAX_FILE_BYTES)
        if data is None:
            continue
        if b"\x00" in data[:8192]:
            continue
        hits = list(regex.finditer(data))
        if not hits:
            continue
        if mode == "files_with_matches":
            out.append(rel)
        elif mode == "count":
            out.append(f"{rel}\x00{len(hits)}")
        else:
            lines = data.split(b"\n")
            seen: set[int] = set()
            for hit in hits:
                number = data.count(b"\n", 0, hit.start()) + 1
                if number not in seen:
                    seen.add(number)
                    text = lines[number - 1].decode("utf-8", errors="replace")
                    out.append(f"{rel}\x00{number}:{text[:500]}")
        if wanted is not None and len(out) >= wanted:
            break
    return out
