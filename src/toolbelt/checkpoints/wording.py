"""How checkpoints are named to people and to the model."""

from __future__ import annotations

import time

from toolbelt.checkpoints.history import Checkpoint
from toolbelt.checkpoints.states import Change, FileState
from toolbelt.core.wording import counted

__all__ = ["how_changed", "label", "listed_paths", "when"]


def when(moment: float) -> str:
    """A local time, with the date unless it is today."""
    local = time.localtime(moment)
    if time.strftime("%Y-%m-%d", local) == time.strftime("%Y-%m-%d"):
        return time.strftime("%H:%M:%S", local)
    return time.strftime("%Y-%m-%d %H:%M", local)


def label(checkpoint: Checkpoint) -> str:
    """``edit_file call cli-3f (12:03:04)``."""
    return f"{checkpoint.tool} call {checkpoint.call_id} ({when(checkpoint.time)})"


def listed_paths(paths: list[str] | tuple[str, ...], limit: int = 5) -> str:
    """``a, b and c`` — at most ``limit`` names, then how many more."""
    shown = list(paths[:limit])
    if len(paths) > limit:
        shown.append(f"{counted(len(paths) - limit, 'other file')}")
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def how_changed(change: Change, current: FileState | None) -> str:
    """How a path differs now from what the call left there, for a refusal."""
    if current is None:
        return f"{change.path} was deleted"
    if current.kind == "directory":
        return f"{change.path} was replaced by a directory"
    if change.after is None:
        return f"{change.path} was created again"
    if current.kind != change.after.kind:
        other = "a symbolic link" if current.kind == "link" else "a file"
        return f"{change.path} was replaced by {other}"
    return f"{change.path} was modified"
