"""apply_patch's writes: every planned file changed, or none.

Each file is replaced atomically through the path guard (``files.atomic``: a temp file
renamed over the name, so no file is ever torn). Across files, atomicity is a rollback: the
files are written first and removed last, each change remembered as it lands; when one fails
(a full disk, a directory swapped for a symlink, a permission), the ones already made are put
back in reverse order — their old bytes and mode bits restored, created files and the
directories made for them removed — and the call fails saying what happened.

Every change and every undo goes through ``change_file``, the one place a file of the patch
is written or removed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from toolbelt.checkpoints.journal import before_write
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolbeltError, ToolError
from toolbelt.paths.guard import ResolvedPath
from toolbelt.tools._files import file_guard, save_text
from toolbelt.tools._patch_plan import PlannedChange

__all__ = ["change_file", "commit"]


def change_file(
    ctx: ToolContext, target: ResolvedPath, data: bytes | None, *, mode: int | None = None
) -> None:
    """Write ``data`` to ``target`` atomically (a created file gets ``mode``), or remove the
    file when ``data`` is None."""
    if data is not None:
        save_text(ctx, target, data, mode=mode)
        return
    with before_write(ctx, target.path, None):  # undo's before-image, recorded first
        dir_fd = file_guard(ctx).open_dir_for_write(target)
        try:
            os.unlink(target.path.name, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)


def commit(ctx: ToolContext, changes: Sequence[PlannedChange]) -> None:
    """Make every change in order; on a failure undo the ones made, then raise ``ToolError``."""
    done: list[PlannedChange] = []
    made: list[Path] = []
    for change in changes:
        try:
            if change.after is not None:
                made += _missing_directories(change.resolved.path.parent)
            change_file(ctx, change.resolved, change.after, mode=change.mode)
        except (OSError, ToolbeltError) as exc:
            left = _undo(ctx, done, made)
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            verb = "Removing" if change.after is None else "Writing"
            outcome = (
                "every file is as it was before; check that path and send the patch again"
                if not left
                else f"these could not be put back and need a look: {', '.join(left)}"
            )
            raise ToolError(
                f"{verb} {change.shown} failed ({reason.rstrip('.')}), so the patch was rolled "
                f"back: {outcome}."
            ) from exc
        done.append(change)


def _undo(ctx: ToolContext, done: list[PlannedChange], made: list[Path]) -> list[str]:
    """Put back what ``done`` changed, newest first; the files that could not be restored."""
    left: list[str] = []
    for change in reversed(done):
        try:
            change_file(ctx, change.resolved, change.before, mode=change.original_mode)
        except (OSError, ToolbeltError):
            left.append(change.shown)
    for directory in reversed(made):
        with contextlib.suppress(OSError):
            directory.rmdir()  # only when empty: never what someone else put there
    return left


def _missing_directories(directory: Path) -> list[Path]:
    """The directories above a file that do not exist yet, outermost first."""
    missing: list[Path] = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    return list(reversed(missing))
