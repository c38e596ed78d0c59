"""Operating-system failures, told to the model once, at the executor's boundary.

A tool that meets a full disk or a read-only file system did nothing wrong and neither did the
model; what the model needs is what happened in plain words and what to do instead. Tools let
``OSError`` through (or raise their own ``ToolError`` when they can say more), and the
executor turns it into a ``ToolError`` here. The name of a temp file (an atomic write's
``.name.toolbelt-tmp-…``) means nothing to the model and is never shown.
"""

from __future__ import annotations

import errno

from toolbelt.core.errors import ToolError

__all__ = ["tool_error_from_os"]

TEMP_MARKER = ".toolbelt-tmp-"
"""The infix of atomic writes' temp files (``files.atomic.TEMP_MARKER``)."""

_MEANINGS: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("the disk is full", "Free some space or ask the user to, then retry."),
    errno.EDQUOT: ("the disk quota is used up", "Free some space or ask the user to, then retry."),
    errno.EACCES: (
        "permission denied by the operating system",
        "Choose a path you may use, or ask the user to change its permissions.",
    ),
    errno.EPERM: (
        "the operating system does not permit this",
        "Choose another path, or ask the user to change its permissions.",
    ),
    errno.EROFS: ("the file system is read-only", "Write somewhere else."),
    errno.EFBIG: (
        "the file is larger than the operating system allows",
        "Write a smaller file, or split the content.",
    ),
    errno.ENAMETOOLONG: ("a file name is too long", "Use a shorter name."),
    errno.EMFILE: ("too many files are open", "Retry in a moment."),
    errno.ENFILE: ("too many files are open", "Retry in a moment."),
    errno.EIO: ("the device reported an input/output error", "Ask the user to check the disk."),
    errno.EBUSY: ("the file or device is busy", "Retry in a moment or choose another path."),
    errno.ETXTBSY: ("the file is a program that is running", "Stop it first or write elsewhere."),
}


def tool_error_from_os(tool_name: str, exc: OSError) -> ToolError:
    """The model-facing error for ``exc`` raised while ``tool_name`` ran."""
    what, advice = _MEANINGS.get(
        exc.errno or 0, ("the operating system refused an operation", "Try another approach.")
    )
    detail = exc.strerror or type(exc).__name__
    name = exc.filename if isinstance(exc.filename, str) else None
    on = f" on {name}" if name and TEMP_MARKER not in name else ""
    return ToolError(f"`{tool_name}` could not finish: {what}{on} ({detail}). {advice}")
