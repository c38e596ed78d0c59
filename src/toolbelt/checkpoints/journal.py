"""The file tools' journal: the one call a tool makes before it changes a file.

``before_write(ctx, path, after)`` (a context manager) — or ``record_before_write`` plus
``withdraw`` for a caller that cannot use one — records, durably and before anything is
written, what ``path`` holds now (its bytes and mode bits, or that it does not exist) and
what the call is about to put there (``after``; None for a removal), under the call's
session, id and tool. write_file, edit_file, multi_edit and notebook_edit record through
``tools._files.save_text``; ``apply_patch`` calls it once per file it adds, changes, deletes
or moves (a move is a removal and an addition).

Recording never makes a call fail: when the journal cannot be written (a full disk, a state
directory that cannot be created) the change goes ahead and the call's result says it is not
undoable (``toolset`` adds the note). A write that fails after recording withdraws its record.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterator
from pathlib import Path

from toolbelt.checkpoints.session import Checkpoints
from toolbelt.core.context import ToolContext

__all__ = [
    "NOT_UNDOABLE",
    "before_write",
    "failure",
    "not_undoable",
    "record_before_write",
    "withdraw",
]

NOT_UNDOABLE = "checkpoints.not_undoable"
"""``ToolContext.scratch`` key: why this call's change cannot be undone."""


def record_before_write(ctx: ToolContext, path: Path, after: bytes | None) -> str | None:
    """Record ``path``'s before-image for this call; the record's name (for ``withdraw``), or
    None when nothing was recorded (no checkpoints in this session, or the journal failed)."""
    checkpoints = ctx.session.peek(Checkpoints)
    if checkpoints is None:
        return None
    try:
        return checkpoints.record_file(checkpoints.call(ctx.call_id, ctx.tool_name), path, after)
    except (OSError, ValueError, zlib.error) as exc:
        not_undoable(ctx, f"the checkpoint journal could not be written ({failure(exc)})")
        return None


def withdraw(ctx: ToolContext, name: str | None) -> None:
    """Forget a record whose write did not happen."""
    checkpoints = ctx.session.peek(Checkpoints)
    if checkpoints is not None and name is not None:
        with contextlib.suppress(OSError):
            checkpoints.withdraw(name)


@contextlib.contextmanager
def before_write(ctx: ToolContext, path: Path, after: bytes | None) -> Iterator[None]:
    """Record ``path``'s before-image, run the write, and withdraw the record if it fails."""
    name = record_before_write(ctx, path, after)
    try:
        yield
    except BaseException:
        withdraw(ctx, name)
        raise


def not_undoable(ctx: ToolContext, reason: str) -> None:
    """Note (once per call) why the call's change cannot be undone; its result will say so."""
    ctx.scratch.setdefault(NOT_UNDOABLE, reason)


def failure(exc: BaseException) -> str:
    """A few words for why recording failed: the OS's reason, or the message."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
