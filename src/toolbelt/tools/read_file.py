"""read_file: a file's lines as ``N<TAB>line``; images as images; PDFs and notebooks as text.

Ranged reads stream (lines 100,000–102,000 of a million-line file never load the rest); a
whole-file read that would flood the context returns what fits and says where to continue,
instead of failing. Every read goes through the path guard (real paths, opened without
following a swapped-in symlink) and is recorded in the session's read tracker, which
write_file and edit_file consult.
"""

from __future__ import annotations

import io
import os
import stat
from typing import BinaryIO

import anyio
from pydantic import BaseModel, ConfigDict, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ImageBlock, TextBlock, ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.core.wording import counted
from toolbelt.files.line_marks import marks_for
from toolbelt.files.lines import LineWindow, read_line_range, whole_text_window
from toolbelt.files.media import IMAGE_TYPES, image_info, render_notebook
from toolbelt.files.pdf_text import MAX_PDF_BYTES, PdfText, pdf_text
from toolbelt.files.text import decode_text, looks_binary
from toolbelt.paths.guard import ResolvedPath
from toolbelt.tools._files import file_guard, read_access, read_tracker, resolve
from toolbelt.tools._outline import can_outline, outline_result

__all__ = ["ReadFileInput", "ReadFileTool"]

MAX_CHARS = 100_000  # about 25k tokens
MAX_RANGE_CHARS = 256 * 1024
"""What one ranged read (``offset``/``limit`` given) returns at most: a model that asks for
three million lines gets a window and the offset to go on from, not 30 MB."""
MAX_LIMIT = 20_000
MAX_LINE_CHARS = 2000
MAX_IMAGE_BYTES = 10 * 1024 * 1024
MAX_IMAGE_SIDE = 8000
"""The largest side, in pixels, every provider accepts (Anthropic refuses more): an image
beyond it would make the request fail, and every later one of the conversation with it."""
HASH_LIMIT = 8 * 1024 * 1024  # files up to this size get a content hash for freshness
MAX_DECODE_BYTES = 32 * 1024 * 1024

DESCRIPTION = """\
Read a file from the workspace. Returns lines as `N<TAB>line`, where N is the 1-based line \
number (the number and the tab are not part of the file: leave them out of edit_file's \
old_string). By default up to 2000 lines from the start; use `offset` (1-based first line) and \
`limit` to read part of a large file. Lines over 2000 characters are cut. A whole-file read \
larger than about 100,000 characters returns what fits and tells you the offset to continue \
from. Images (png, jpeg, gif, webp) are returned as images; PDFs as text per page (`pages`, \
e.g. "1-5", at most 20 pages a call); Jupyter notebooks (.ipynb) as cells with their ids and \
outputs. `outline: true` returns a source file's classes, functions and methods with their \
signatures and line ranges instead; a source file too large to read whole returns its outline \
rather than its first part. Read several files at once by making several calls in one turn."""


class ReadFileInput(ToolInput):
    """Arguments of `read_file`."""

    path: str = Field(description="File to read, absolute or relative to the working directory.")
    offset: int = Field(default=1, ge=1, description="1-based line number to start from.")
    limit: int = Field(
        default=2000, ge=1, le=MAX_LIMIT, description="Maximum number of lines to return."
    )
    pages: str | None = Field(
        default=None, description='PDF pages to read, e.g. "3", "1-5" or "2,4-6" (at most 20).'
    )
    outline: bool = Field(
        default=False,
        description="Return the source file's outline (classes, functions, signatures, line "
        "ranges) instead of its lines.",
    )


class ReadFileOutput(BaseModel):
    """Structured result of `read_file`; which fields appear depends on the kind of file."""

    model_config = ConfigDict(extra="allow")

    path: str = Field(description="The file, relative to the workspace root when inside it.")
    type: str | None = Field(default=None, description="image, pdf or notebook; absent for text.")
    first_line: int | None = Field(default=None, description="First line returned (text).")
    last_line: int | None = Field(default=None, description="Last line returned (text).")
    total_lines: int | None = Field(default=None, description="Lines in the file, when counted.")
    truncated: bool | None = Field(default=None, description="More lines follow.")


class ReadFileTool(Tool[ReadFileInput]):
    """Read text, images, PDFs and notebooks."""

    name = "read_file"
    rule_family = "Read"
    claude_name = "Read"
    title = "Read file"
    description = DESCRIPTION
    output_model = ReadFileOutput
    example = {"path": "src/app.py", "offset": 1, "limit": 200}
    hints = ToolHints.READ_ONLY

    async def access(self, args: ReadFileInput, ctx: ToolContext) -> Access:
        return read_access(ctx, args.path, f"read {args.path}")

    async def run(self, args: ReadFileInput, ctx: ToolContext) -> ToolOutput:
        resolved = resolve(ctx, args.path)
        if resolved.path.suffix.lower() == ".pdf":
            data, shown = await anyio.to_thread.run_sync(_pdf_bytes, ctx, resolved)
            return _pdf(await pdf_text(data, args.pages), shown)
        if _small_text_file(resolved):
            return _read(args, ctx, resolved)  # ~50 µs of work: cheaper than a thread hop
        return await anyio.to_thread.run_sync(_read, args, ctx, resolved)


INLINE_LIMIT = 64 * 1024


def _small_text_file(resolved: ResolvedPath) -> bool:
    """A regular file small enough to read on the event loop: hopping to a worker thread costs
    more (~150 µs) than reading 64 KiB of page cache. PDFs and notebooks (parsers) and anything
    else go to a thread; so does every read when the path cannot be stat'ed cheaply."""
    if resolved.path.suffix.lower() in (".pdf", ".ipynb"):
        return False
    try:
        info = os.stat(resolved.path)
    except OSError:
        return False  # the threaded read reports it properly
    return stat.S_ISREG(info.st_mode) and info.st_size <= INLINE_LIMIT


def _read(args: ReadFileInput, ctx: ToolContext, resolved: ResolvedPath) -> ToolOutput:
    guard = file_guard(ctx)
    path = resolved.path
    shown = guard.display(path)
    with os.fdopen(guard.open_for_read(resolved), "rb") as handle:
        info = os.fstat(handle.fileno())
        suffix = path.suffix.lower()
        if suffix in IMAGE_TYPES:
            return _image(handle.read(MAX_IMAGE_BYTES + 1), IMAGE_TYPES[suffix], shown)
        small = info.st_size <= HASH_LIMIT
        data = handle.read() if small else None
        sample = data[:8192] if data is not None else handle.read(8192)
        if suffix == ".ipynb" and data is not None:
            read_tracker(ctx).record(path, data, info)
            text, cells = render_notebook(data)
            return ToolOutput.text(text, {"path": shown, "type": "notebook", "cells": cells})
        kind = looks_binary(sample)
        if kind is not None:
            raise ToolError(
                f"{shown} is {kind}, not text, so it cannot be shown here. Inspect it with bash "
                f"instead (for example `file {shown}` or `xxd {shown} | head`)."
            )
        read_tracker(ctx).record(path, data, info)
        if args.outline:
            return outline_result(path, _whole(handle, data), shown, over_budget=None)
        budget = _budget(args)
        window = None
        if data is not None:
            window = whole_text_window(
                data, args.offset, args.limit, max_line_chars=MAX_LINE_CHARS, max_chars=budget
            )
            if window is not None and _whole_read(args) and _cut(window) and can_outline(path):
                return outline_result(path, data, shown, over_budget=budget)
        if window is None:
            source = _text_source(handle, data, sample, info.st_size, shown)
            window = read_line_range(
                source,
                args.offset,
                args.limit,
                max_line_chars=MAX_LINE_CHARS,
                max_chars=budget,
                count_total=small,  # counting a huge file's lines would cost more than the read
                marks=marks_for(info) if source is handle else None,  # offsets of this file
            )
    return _text_result(window, args, shown)


def _budget(args: ReadFileInput) -> int:
    """Characters one call may return: less for a whole-file read (the model did not choose
    a window) than for a ranged one."""
    return MAX_CHARS if _whole_read(args) else MAX_RANGE_CHARS


def _whole_read(args: ReadFileInput) -> bool:
    return args.offset == 1 and "limit" not in args.model_fields_set


def _cut(window: LineWindow) -> bool:
    """Whether a read stopped before the file's end (its line limit or its budget)."""
    total = window.total_lines
    return window.stopped_by_budget or (total is not None and window.last_line < total)


def _whole(handle: BinaryIO, data: bytes | None) -> bytes:
    """The file's bytes (one outlined is parsed whole: at most ``MAX_DECODE_BYTES``)."""
    if data is not None:
        return data
    handle.seek(0)
    return handle.read(MAX_DECODE_BYTES)


def _text_source(
    handle: BinaryIO, data: bytes | None, sample: bytes, size: int, shown: str
) -> BinaryIO:
    """A binary stream of UTF-8 lines: the file itself, or its re-encoded text when it is not
    UTF-8 (UTF-16, GBK, Latin-1...), which must then be decoded whole."""
    try:
        sample[: max(len(sample) - 4, 0)].decode("utf-8")
        utf8 = not sample.startswith((b"\xff\xfe", b"\xfe\xff"))
    except UnicodeDecodeError:
        utf8 = False
    if utf8 and (data is None or _is_utf8(data)):
        if data is not None:
            return io.BytesIO(data)
        handle.seek(0)
        return handle
    if data is None:
        if size > MAX_DECODE_BYTES:
            raise ToolError(
                f"{shown} is not UTF-8 and too large ({counted(size, 'byte')}) to decode here."
            )
        handle.seek(0)
        data = handle.read()
    return io.BytesIO(decode_text(data).text.encode("utf-8"))


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not data.startswith((b"\xff\xfe", b"\xfe\xff"))


def _text_result(window: LineWindow, args: ReadFileInput, shown: str) -> ToolOutput:
    if window.total_lines is None:
        return _large_file_result(window, args, shown)
    total = window.total_lines
    structured = {
        "path": shown,
        "first_line": window.first_line,
        "last_line": window.last_line,
        "total_lines": total,
    }
    if total == 0:
        return ToolOutput.text(f"{shown} exists but is empty.", structured)
    if not window.lines:
        return ToolOutput.text(
            f"{shown} has {counted(total, 'line')}, so offset {args.offset} is past its end; "
            f"use an offset between 1 and {total}.",
            structured,
        )
    notes = []
    if window.stopped_by_budget:
        notes.append(
            f"Showing lines {window.first_line}–{window.last_line} of {total}: the rest would "
            f"exceed the read budget of {_budget(args):,} characters. Continue with "
            f"offset={window.last_line + 1}, or use grep to find what you need."
        )
    elif window.last_line < total:
        notes.append(
            f"Showing lines {window.first_line}–{window.last_line} of {total}. Continue with "
            f"offset={window.last_line + 1}."
        )
    if window.cut_lines:
        notes.append(
            f"{counted(window.cut_lines, 'line')} longer than {MAX_LINE_CHARS} characters were cut."
        )
    text = window.render()
    if notes:
        text += "\n\n[" + " ".join(notes) + "]"
    return ToolOutput.text(text, {**structured, "truncated": bool(notes)})


def _large_file_result(window: LineWindow, args: ReadFileInput, shown: str) -> ToolOutput:
    """A ranged read of a big file, whose total line count is not worth computing."""
    structured = {"path": shown, "first_line": window.first_line, "last_line": window.last_line}
    if not window.lines:
        return ToolOutput.text(
            f"{shown} has fewer than {args.offset} lines, so offset {args.offset} is past its "
            "end; use a smaller offset.",
            structured,
        )
    text = window.render()
    if len(window.lines) == args.limit or window.stopped_by_budget:
        last = window.last_line
        text += f"\n\n[Showing lines {window.first_line}–{last}. Continue with offset={last + 1}.]"
    return ToolOutput.text(text, structured)


def _image(data: bytes, mime_type: str, shown: str) -> ToolOutput:
    if len(data) > MAX_IMAGE_BYTES:
        raise ToolError(f"{shown} is larger than 10 MB; resize it before reading it here.")
    info = image_info(data, mime_type)
    if max(info.width or 0, info.height or 0) > MAX_IMAGE_SIDE:
        raise ToolError(
            f"{shown} is {info.width}×{info.height} px, larger than the {MAX_IMAGE_SIDE} px a "
            f"side models accept; resize it (for example with `convert {shown} -resize "
            f"{MAX_IMAGE_SIDE}x{MAX_IMAGE_SIDE} smaller.png`) and read that."
        )
    size = f"{info.width}×{info.height} px, " if info.width else ""
    caption = f"{shown}: {mime_type}, {size}{counted(info.size, 'byte')}"
    structured = {
        "path": shown,
        "type": "image",
        "mime_type": mime_type,
        "size": info.size,
        "width": info.width,
        "height": info.height,
    }
    return ToolOutput((TextBlock(caption), ImageBlock(info.data, mime_type)), structured)


def _pdf_bytes(ctx: ToolContext, resolved: ResolvedPath) -> tuple[bytes, str]:
    """The PDF's bytes, read from the descriptor the guard opened (at most one byte past
    ``MAX_PDF_BYTES``, which ``pdf_text`` refuses), and its path as shown."""
    guard = file_guard(ctx)
    with os.fdopen(guard.open_for_read(resolved), "rb") as handle:
        return handle.read(MAX_PDF_BYTES + 1), guard.display(resolved.path)


def _pdf(extracted: PdfText, shown: str) -> ToolOutput:
    total = extracted.total
    texts = extracted.pages
    body = "\n\n".join(f"--- page {n} of {total} ---\n{text.strip()}" for n, text in texts)
    if extracted.note:
        body = f"{body}\n\n[{shown}: {extracted.note}.]".lstrip()
    return ToolOutput.text(
        body or f"{shown} has no extractable text.",
        {"path": shown, "type": "pdf", "pages": [n for n, _ in texts], "total_pages": total},
    )
