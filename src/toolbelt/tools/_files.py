"""What the file tools share: the session's path guard and read tracker, loading a file for a
change with the read-before-write rule, and saving it atomically through the guard."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import AnyStr

from toolbelt.checkpoints.journal import before_write
from toolbelt.config.factory import session_protections
from toolbelt.core.access import Access, AccessKind
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import PathError, ToolError
from toolbelt.core.wording import counted
from toolbelt.files.atomic import atomic_write, sweep_now_and_then
from toolbelt.files.diff import Hunk, Region, diff_stats, hunks_as_dicts, region_diff, unified_text
from toolbelt.files.text import DecodedText, decode_text, encode_text, looks_binary
from toolbelt.files.tracker import Freshness, ReadTracker, start_digest
from toolbelt.paths.guard import PathGuard, ResolvedPath, protections_of

__all__ = [
    "Change",
    "LoadedFile",
    "describe_change",
    "file_guard",
    "load_for_change",
    "read_access",
    "read_tracker",
    "require_read_to_match",
    "resolve",
    "save_text",
    "write_access",
]

MAX_EDIT_BYTES = 64 * 1024 * 1024


def file_guard(ctx: ToolContext) -> PathGuard:
    """The session's path guard (created on first use), with the session's protected paths."""
    session = ctx.session
    guard = session.peek(PathGuard)
    if guard is not None:
        return guard
    protections = session_protections(session)  # not inside resource(): it holds the lock
    return session.resource(
        PathGuard, lambda: PathGuard(session.root, session.add_dirs, protections=protections)
    )


def read_tracker(ctx: ToolContext) -> ReadTracker:
    """The session's read tracker."""
    return ctx.session.resource(ReadTracker)


def resolve(ctx: ToolContext, raw: str) -> ResolvedPath:
    """Resolve a model-supplied path against the session's cwd, once per call.

    The permission decision is made on the resolution the tool's ``access`` made: its real
    path and the inode seen there. ``run`` gets that same resolution back (kept in the call's
    scratch), so what it opens is checked against it — a leaf or directory swapped for a
    symlink after the decision makes the open fail ("changed while it was being opened")
    instead of a second lookup of the name following the symlink somewhere the decision
    never saw.
    """
    key = f"resolved\0{ctx.cwd}\0{raw}"
    found = ctx.scratch.get(key)
    if not isinstance(found, ResolvedPath):
        found = ctx.scratch[key] = file_guard(ctx).resolve(raw, ctx.cwd)
    return found


def read_access(ctx: ToolContext, raw: str, summary: str) -> Access:
    """What a tool that reads one model-supplied path (a file, a directory to list or search)
    asks for: that path, resolved once for ``run`` (``resolve``), with its protections."""
    target = resolve(ctx, raw)
    return Access(
        AccessKind.READ, paths=(target.path,), protections=protections_of(target), summary=summary
    )


def write_access(summary: str, preview: str, *targets: ResolvedPath) -> Access:
    """What a tool that changes files asks for: those paths, with their protections, and the
    change as the person approving it sees it (``preview``)."""
    return Access(
        AccessKind.WRITE,
        paths=tuple(target.path for target in targets),
        protections=protections_of(*targets),
        preview=preview,
        summary=summary,
    )


def require_read_to_match(ctx: ToolContext, resolved: ResolvedPath) -> None:
    """Refuse, before anything is matched, a change that must find text in a file whose read
    would ask (read-denied, ``.env``, outside the workspace) when this session has not read it.

    Matching ``old_string`` (or a notebook cell) against such a file and saying whether it was
    found is an oracle for its content, whatever the permission decision is; the refusal is
    the same whether the file exists, holds the text or not. Once read_file has shown the file
    (after asking), the model knows the text and the edit runs as usual.
    """
    if ctx.may_quote(resolved.path) or read_tracker(ctx).get(resolved.path) is not None:
        return
    raise ToolError(
        f"{file_guard(ctx).display(resolved.path)} cannot be matched against without reading "
        "it, and reading it is not allowed without asking; read it first with read_file "
        "(which will ask), then edit it."
    )


class LoadedFile:
    """An existing file read for a change, with how fresh the model's view of it is.

    It is decoded only when asked (``decoded``): an exact edit of a UTF-8 file works on the
    stored bytes and never needs the text (``files.exact``).
    """

    __slots__ = ("_decoded", "data", "freshness", "mtime_ns", "path", "shown")

    def __init__(
        self, path: Path, shown: str, data: bytes, freshness: Freshness, mtime_ns: int
    ) -> None:
        self.path, self.shown, self.data = path, shown, data
        self.freshness, self.mtime_ns = freshness, mtime_ns
        self._decoded: DecodedText | None = None

    @property
    def decoded(self) -> DecodedText:
        """The text, decoded on first use (raises ToolError when no encoding fits)."""
        if self._decoded is None:
            self._decoded = decode_text(self.data)
        return self._decoded


def missing_path(shown: str) -> ToolError:
    """The error for a path argument that names nothing."""
    return ToolError(
        f"{shown} does not exist; check the name (ls lists a directory, glob finds files by "
        "name); relative paths start at the working directory."
    )


def not_a_directory(shown: str, path: Path) -> ToolError:
    """The error for a directory argument (ls, glob) that names a file or nothing."""
    if not path.exists():
        return missing_path(shown)
    return ToolError(
        f"{shown} is a file, not a directory; read it with read_file, or give its directory."
    )


def load_for_change(
    ctx: ToolContext, resolved: ResolvedPath, *, must_exist: bool
) -> LoadedFile | None:
    """Read ``resolved`` for an edit or overwrite; None when it does not exist (and may not)."""
    guard = file_guard(ctx)
    shown = guard.display(resolved.path)
    if not resolved.exists:
        if must_exist:
            raise PathError(
                f"{shown} does not exist; edit_file changes existing files — create it with "
                "write_file."
            )
        return None
    fd = guard.open_for_read(resolved)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if info.st_size > MAX_EDIT_BYTES:
            raise ToolError(
                f"{shown} is {counted(info.st_size, 'byte')}, too large to change here."
            )
        data = handle.read()
    kind = looks_binary(data[:8192])
    if kind is not None:
        raise ToolError(f"{shown} is {kind}; it cannot be changed as text.")
    freshness = read_tracker(ctx).check(resolved.path, data, info)
    if freshness is Freshness.UNREAD and ctx.session.config.require_read_before_write:
        raise ToolError(
            f"{shown} has not been read in this session. Read it with read_file first, so the "
            "change is based on its current content."
        )
    return LoadedFile(resolved.path, shown, data, freshness, info.st_mtime_ns)


def save_text(
    ctx: ToolContext, resolved: ResolvedPath, data: bytes, *, mode: int | None = None
) -> bool:
    """Write ``data`` atomically (creating parent directories), with ``mode`` when given; True
    if the file was created. The file's before-image goes to the checkpoint journal first
    (``checkpoints.journal``)."""
    guard = file_guard(ctx)
    parent = resolved.path.parent
    digest = start_digest(data)
    with before_write(ctx, resolved.path, data):  # undo's before-image, recorded first
        dir_fd = guard.open_dir_for_write(resolved, create_parents=True)
        try:
            created = atomic_write(dir_fd, resolved.path.name, data, mode=mode)
        except BaseException:
            os.close(dir_fd)
            raise
    try:
        info = os.stat(resolved.path.name, dir_fd=dir_fd, follow_symlinks=False)
    finally:
        os.close(dir_fd)
    read_tracker(ctx).record(resolved.path, data, info, digest=digest())
    sweep_now_and_then(parent)
    return created


@dataclass(frozen=True, slots=True)
class Change:
    """A change's diff in every form the result and the UI need."""

    hunks: list[Hunk]
    unified: str
    added: int
    removed: int

    def as_dicts(self) -> list[dict[str, object]]:
        return hunks_as_dicts(self.hunks)


def describe_change(shown: str, old: AnyStr, new: AnyStr, region: Region | None = None) -> Change:
    """Diff ``old`` → ``new`` around the changed region only (``region`` when known)."""
    hunks = region_diff(old, new, region)
    added, removed = diff_stats(hunks)
    return Change(hunks, unified_text(shown, hunks), added, removed)


def encode_like(text: str, loaded: LoadedFile | None) -> bytes:
    """``text`` stored the way the existing file was (encoding, BOM, newlines), or as UTF-8."""
    if loaded is None:
        return text.encode("utf-8")
    return encode_text(text, loaded.decoded)
