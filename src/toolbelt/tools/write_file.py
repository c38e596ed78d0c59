"""write_file: create a file or replace one whole, atomically and losslessly.

Overwriting an existing file requires that the model read it in this session and that it has
not changed since (otherwise the model would be writing over something it never saw). An
overwritten file keeps its encoding, BOM and line-ending style; parent directories are
created; the save is atomic. The diff is shown in the permission prompt and returned.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import PathError, ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.core.wording import counted
from toolbelt.files.text import looks_binary
from toolbelt.files.tracker import Freshness
from toolbelt.paths.guard import ResolvedPath
from toolbelt.tools._edit_result import ChangedPath, EditReport, edit_result
from toolbelt.tools._files import (
    MAX_EDIT_BYTES,
    describe_change,
    encode_like,
    file_guard,
    load_for_change,
    read_tracker,
    resolve,
    save_text,
    write_access,
)

__all__ = ["WriteFileInput", "WriteFileTool"]

DESCRIPTION = """\
Create a new file, or replace an existing file's whole content. Parent directories are \
created as needed. To overwrite an existing file you must have read it with read_file in this \
session (and it must not have changed since). Prefer edit_file to change part of a file: it \
sends only the change. An existing file keeps its encoding and line endings."""


class WriteFileInput(ToolInput):
    """Arguments of `write_file`."""

    path: str = Field(description="File to write, absolute or relative to the working directory.")
    content: str = Field(description="The complete new content of the file.")


class WriteFileOutput(BaseModel):
    """Structured result of `write_file`."""

    path: str
    bytes_written: int
    created: bool
    diff: str = Field(description="Unified diff of the change.")
    hunks: list[dict[str, Any]] = Field(description="The diff as hunks, for UIs.")


class WriteFileTool(Tool[WriteFileInput]):
    """Create or overwrite a file."""

    name = "write_file"
    rule_family = "Edit"
    claude_name = "Write"
    title = "Write file"
    description = DESCRIPTION
    output_model = WriteFileOutput
    example = {"path": "src/hello.py", "content": "print('hello')\n"}
    hints = ToolHints(idempotent=True)

    async def access(self, args: WriteFileInput, ctx: ToolContext) -> Access:
        resolved = resolve(ctx, args.path)
        shown = file_guard(ctx).display(resolved.path)
        return await anyio.to_thread.run_sync(_preview, args, ctx, resolved, shown)

    async def run(self, args: WriteFileInput, ctx: ToolContext) -> ToolOutput:
        return await edit_result(ctx, await anyio.to_thread.run_sync(_write, args, ctx))


def _preview(args: WriteFileInput, ctx: ToolContext, resolved: ResolvedPath, shown: str) -> Access:
    old = ""
    if resolved.exists:
        old = _current_text(ctx, resolved)
    change = describe_change(shown, old, args.content.replace("\r\n", "\n"))
    verb = "overwrite" if resolved.exists else "create"
    summary = f"{verb} {shown} (+{change.added} -{change.removed})"
    if not ctx.may_quote(resolved.path):  # a refusal quotes the summary: nothing of the file,
        summary = f"write {shown}"  # not its line count, nor whether it exists
    return write_access(summary, change.unified, resolved)


def _current_text(ctx: ToolContext, resolved: ResolvedPath) -> str:
    """The file's text for the preview, read through the path guard like every read (so a
    symlink swapped in after the check shows nothing); empty when it cannot be read as text."""
    try:
        with os.fdopen(file_guard(ctx).open_for_read(resolved), "rb") as handle:
            data = handle.read(MAX_EDIT_BYTES + 1)
    except (OSError, PathError):
        return ""
    if len(data) > MAX_EDIT_BYTES or looks_binary(data[:8192]):
        return ""
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


def _refuse_unseen(ctx: ToolContext, resolved: ResolvedPath, shown: str) -> None:
    """A file this session may not read and has not seen is written without looking at it:
    whether it is binary, too large, or in another encoding must not show through an error
    (and none of it matters to a content the model gives whole). Where writes require a read
    first, every such file gets the same refusal, whatever it holds."""
    if resolved.exists and ctx.session.config.require_read_before_write:
        raise ToolError(
            f"{shown} has not been read in this session. Read it with read_file first (which "
            "will ask), so the change is based on its current content."
        )


def _write(args: WriteFileInput, ctx: ToolContext) -> EditReport:
    resolved = resolve(ctx, args.path)
    shown = file_guard(ctx).display(resolved.path)
    quote = ctx.may_quote(resolved.path)
    loaded = None
    if not quote and read_tracker(ctx).get(resolved.path) is None:
        _refuse_unseen(ctx, resolved, shown)
    else:
        loaded = load_for_change(ctx, resolved, must_exist=False)
    if loaded is not None and loaded.freshness is Freshness.CHANGED:
        raise ToolError(
            f"{shown} has changed since you read it (another program or the user edited it). "
            "Read it again with read_file before overwriting it."
        )
    content = args.content.replace("\r\n", "\n")
    data = encode_like(content, loaded)
    old = loaded.decoded.text if loaded is not None else ""
    created = save_text(ctx, resolved, data)
    change = describe_change(shown, old, content)
    ctx.diff(shown, change.unified, tuple(change.as_dicts()))
    if created:
        size = f"{counted(len(data), 'byte')}, {counted(content.count(chr(10)), 'line')}"
        text = f"Created {shown} ({size})."
    elif not change.hunks:
        text = f"{shown} already had exactly this content; nothing changed."
    else:
        text = f"Updated {shown}: +{change.added} -{change.removed} lines.\n{change.unified}"
    if not quote:  # the diff, its counts, "nothing changed", "created": what a read shows
        text = (
            f"Wrote {shown} ({counted(len(data), 'byte')}); what it held before, if anything, "
            f"is not described because reading {shown} is not allowed without asking."
        )
    structured = {
        "path": shown,
        "bytes_written": len(data),
        "created": created,
        "diff": change.unified if quote else "",
        "hunks": change.as_dicts() if quote else [],
    }
    before = None if created else (loaded.data if loaded is not None else b"")
    changed = ChangedPath(resolved.path, shown, before)
    return EditReport([text.rstrip("\n")], structured, (changed,))
