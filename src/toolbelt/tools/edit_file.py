"""edit_file: replace an exact string in a file, keeping everything else byte for byte.

The file must have been read in this session. An exact match comes first; when there is none,
labelled recoveries (pasted line numbers, Unicode look-alikes, trailing spaces, re-indentation)
are tried, each only if it finds exactly one place, and they keep the file's own bytes wherever
the model changed nothing (``files.matching``, ``files.merge``). The result says which of the
file's characters differ from what the model typed, so it learns the file's real text. If the
file changed on disk since it was read, the edit is still applied when it matches exactly one
place, and the result says so. The result shows the edited lines with their numbers, so no
re-read is needed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.wording import counted
from toolbelt.files.diff import Region, snippet
from toolbelt.files.exact import replace_exact, utf8_bom
from toolbelt.files.matching import Splice, find_and_replace
from toolbelt.files.tracker import Freshness
from toolbelt.paths.guard import ResolvedPath
from toolbelt.tools._edit_result import ChangedPath, EditReport, edit_result
from toolbelt.tools._files import (
    Change,
    LoadedFile,
    describe_change,
    encode_like,
    load_for_change,
    require_read_to_match,
    resolve,
    save_text,
    write_access,
)

__all__ = ["EditFileInput", "EditFileTool", "apply_and_save"]

DESCRIPTION = """\
Replace text in an existing file. `old_string` must match the file exactly — including \
whitespace and indentation — and match only one place, unless `replace_all` is true. Read the \
file with read_file first; copy old_string from what it showed, without the `N<TAB>` line \
number prefix. Include enough surrounding lines to make old_string unique. The result shows \
the edited lines, so you do not need to read the file again. For several changes to one file, \
use multi_edit; for notebooks, notebook_edit."""

STALE_NOTE = (
    "Note: the file had changed on disk since you last read it; the edit still matched "
    "exactly one place and was applied, but the file contains other changes you have not seen "
    "— read it before edits that depend on the surrounding content."
)


class EditFileInput(ToolInput):
    """Arguments of `edit_file`."""

    path: str = Field(description="File to edit, absolute or relative to the working directory.")
    old_string: str = Field(description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place (must differ).")
    replace_all: bool = Field(default=False, description="Replace every occurrence.")


class EditFileOutput(BaseModel):
    """Structured result of `edit_file` and `multi_edit`."""

    path: str
    replacements: int
    recoveries: list[str] = Field(description="Recoveries used when old_string was inexact.")
    differences: list[str] = Field(
        default_factory=list,
        description="Where the file's characters differ from what old_string had.",
    )
    stale: bool = Field(description="The file had changed since it was read.")
    diff: str
    hunks: list[dict[str, Any]]


class EditFileTool(Tool[EditFileInput]):
    """Exact string replacement with safe recoveries."""

    name = "edit_file"
    rule_family = "Edit"
    claude_name = "Edit"
    title = "Edit file"
    description = DESCRIPTION
    output_model = EditFileOutput
    example = {"path": "src/app.py", "old_string": "return a + b", "new_string": "return a - b"}

    async def access(self, args: EditFileInput, ctx: ToolContext) -> Access:
        return await anyio.to_thread.run_sync(_preview, ctx, args.path, [_edit(args)])

    async def run(self, args: EditFileInput, ctx: ToolContext) -> ToolOutput:
        report = await anyio.to_thread.run_sync(apply_and_save, ctx, args.path, [_edit(args)])
        return await edit_result(ctx, report)


Edit = tuple[str, str, bool]


def _edit(args: EditFileInput) -> Edit:
    return (args.old_string, args.new_string, args.replace_all)


def _load(ctx: ToolContext, raw_path: str) -> tuple[LoadedFile, ResolvedPath]:
    resolved = resolve(ctx, raw_path)
    require_read_to_match(ctx, resolved)
    if resolved.path.suffix.lower() == ".ipynb":
        raise ToolError(f"{raw_path} is a Jupyter notebook; change its cells with notebook_edit.")
    loaded = load_for_change(ctx, resolved, must_exist=True)
    assert loaded is not None
    return loaded, resolved


Edited = tuple[str | bytes, Sequence[Splice[Any]]]
"""The new content — stored bytes after any BOM from the exact fast path, or text — and its
splices."""


def _apply(loaded: LoadedFile, edits: list[Edit], *, quote: bool) -> Edited:
    """The edited content; a refusal quotes the file's lines only when ``quote`` allows."""
    fast = replace_exact(loaded.data, edits)
    if fast is not None:
        return fast
    text, splices = loaded.decoded.text, []
    for index, (old, new, replace_all) in enumerate(edits, 1):
        try:
            splice = find_and_replace(
                text, old, new, replace_all=replace_all, label=loaded.shown, quote=quote
            )
        except ToolError as exc:
            if len(edits) == 1:
                raise
            message = f"Edit {index} of {len(edits)} failed, so nothing was written: {exc}"
            raise type(exc)(message) from exc
        splices.append(splice)
        text = splice.text
    return text, splices


def _describe(loaded: LoadedFile, edited: Edited) -> Change:
    """The diff, computed only around the splice when there is one place changed."""
    content, splices = edited
    region = None
    replaced = splices[0].replaced if len(splices) == 1 else None
    if replaced is not None:
        only = splices[0]
        if isinstance(content, bytes):
            old_size = len(loaded.data) - len(utf8_bom(loaded.data))
        else:
            old_size = len(loaded.decoded.text)
        region = Region(only.offset, old_size - only.offset - replaced, only.first_line - 1)
    if isinstance(content, bytes):
        body = loaded.data[len(utf8_bom(loaded.data)) :]
        return describe_change(loaded.shown, body, content, region)
    return describe_change(loaded.shown, loaded.decoded.text, content, region)


def _preview(ctx: ToolContext, raw_path: str, edits: list[Edit]) -> Access:
    loaded, resolved = _load(ctx, raw_path)
    edited = _apply(loaded, edits, quote=ctx.may_quote(loaded.path))
    change = _describe(loaded, edited)
    ctx.scratch["edit"] = (raw_path, edits, loaded, resolved, edited, change)
    summary = f"edit {loaded.shown} (+{change.added} -{change.removed})"
    return write_access(summary, change.unified, resolved)


def _unchanged(loaded: LoadedFile) -> bool:
    """True when the file still holds exactly the bytes that were planned against."""
    try:
        info = os.stat(loaded.path)
    except OSError:
        return False
    return info.st_size == len(loaded.data) and info.st_mtime_ns == loaded.mtime_ns


def apply_and_save(ctx: ToolContext, raw_path: str, edits: list[Edit]) -> EditReport:
    """Apply ``edits`` in order to the file (all or nothing) and save it atomically; what to
    tell the model (``edit_result`` finishes it).

    The plan ``access`` made (for the permission prompt) is reused when the file has not
    changed since, so a big file is read, matched and diffed once per call, not twice.
    """
    planned = ctx.scratch.pop("edit", None)
    if planned is not None and planned[:2] == (raw_path, edits) and _unchanged(planned[2]):
        _, _, loaded, resolved, edited, change = planned
    else:
        loaded, resolved = _load(ctx, raw_path)
        edited = _apply(loaded, edits, quote=ctx.may_quote(loaded.path))
        change = _describe(loaded, edited)
    content = edited[0]
    if isinstance(content, bytes):
        stored = utf8_bom(loaded.data) + content
    else:
        stored = encode_like(content, loaded)
    save_text(ctx, resolved, stored)
    ctx.diff(loaded.shown, change.unified, tuple(change.as_dicts()))
    return _report(loaded, edited, change, quote=ctx.may_quote(loaded.path))


def _report(loaded: LoadedFile, edited: Edited, change: Change, *, quote: bool) -> EditReport:
    """What the model is told: the change, its recoveries, and the edited lines.

    The file's own text (the edited lines, the diff's context, where the file differs from
    old_string) is shown only when a read of the file would have been allowed without asking.
    """
    content, splices = edited
    count = sum(s.replacements for s in splices)
    first = min(s.first_line for s in splices)
    last = max(s.last_line for s in splices)
    what = counted(count, "occurrence")
    lines = [f"Edited {loaded.shown}: replaced {what} (+{change.added} -{change.removed} lines)."]
    recoveries = [
        f"edit {i}: {s.recovery}" if len(splices) > 1 else s.recovery
        for i, s in enumerate(splices, 1)
        if s.recovery
    ]
    notes = [
        f"edit {i}: {note}" if len(splices) > 1 else note
        for i, s in enumerate(splices, 1)
        for note in s.notes
    ]
    stale = loaded.freshness is Freshness.CHANGED
    if not quote:
        recoveries = notes = []  # they name the file's characters
        lines.append(
            f"The edited lines are not shown because reading {loaded.shown} is not allowed "
            "without asking."
        )
    if recoveries:
        lines.append(f"old_string did not match exactly; recovered by: {'; '.join(recoveries)}.")
    if notes:
        lines.append(f"The file's own text differs from what you typed: {'; '.join(notes)}.")
    if stale:
        lines.append(STALE_NOTE)
    if quote and last - first < 60:
        at = splices[0].offset if len(splices) == 1 else None
        if isinstance(content, bytes):  # two calls: one per type of content, for mypy
            region = snippet(content, first, last, offset=at)
        else:
            region = snippet(content, first, last, offset=at)
        lines.append(f"The edited region now reads:\n{region}")
    structured = {
        "path": loaded.shown,
        "replacements": count,
        "recoveries": recoveries,
        "differences": notes,
        "stale": stale,
        "diff": change.unified if quote else "",
        "hunks": change.as_dicts() if quote else [],
    }
    return EditReport(lines, structured, (ChangedPath(loaded.path, loaded.shown, loaded.data),))
