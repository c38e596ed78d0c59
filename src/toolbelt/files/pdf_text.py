"""A PDF's text, extracted in a process that a deadline or a cancellation ends.

pypdf runs in ``pdf_worker``, started as a process tree (``procs.tree``) with the PDF on its
standard input: memory and CPU capped there, wall time here (``PDF_SECONDS``), characters
extracted capped there and here (``PDF_CHARS``). A cancelled call (Ctrl-C, SIGTERM, an MCP
client's cancel) ends the tree on its way out, so no thread is left parsing; a deadline keeps
the pages that arrived and says which did not, so the model can ask for fewer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

from toolbelt.core.errors import ToolError
from toolbelt.procs.tree import ProcessTree

__all__ = ["MAX_PDF_BYTES", "PDF_CHARS", "PDF_SECONDS", "PdfText", "pdf_text"]

PDF_SECONDS = 20.0
"""Wall time one PDF's extraction may take: well under what a client waits for a call."""
PDF_CHARS = 400_000
"""Characters of text kept from one call's pages."""
MAX_PDF_BYTES = 64 * 1024 * 1024
"""The largest PDF handed to the parser."""
_CODE = "from toolbelt.files.pdf_worker import main; main()"


@dataclass
class PdfText:
    """The text of the pages that were extracted, the page count, and what was left out."""

    pages: list[tuple[int, str]] = field(default_factory=list)
    total: int = 0
    wanted: list[int] = field(default_factory=list)
    note: str = ""
    """Why some wanted pages are missing or cut (a deadline, the memory cap, the size cap)."""


async def pdf_text(
    data: bytes, pages: str | None, *, seconds: float = PDF_SECONDS, chars: int = PDF_CHARS
) -> PdfText:
    """The text of the chosen ``pages`` of the PDF ``data`` (all when it has at most 20);
    ToolError for a PDF that cannot be parsed, is too large, or a page range outside it."""
    if len(data) > MAX_PDF_BYTES:
        raise ToolError(
            f"This PDF is {len(data) >> 20} MiB, more than the {MAX_PDF_BYTES >> 20} MiB toolbelt "
            "extracts text from; split it, or extract its text with a command."
        )
    result = PdfText()
    argv = [sys.executable, "-I", "-c", _CODE, pages or "", str(chars), str(int(seconds) + 5)]
    env = {"PATH": os.defpath, "LC_ALL": "C.UTF-8"}
    failed = ""
    async with ProcessTree(argv, cwd="/", env=env, stderr=subprocess.DEVNULL, grace=0.2) as tree:
        process = tree.process
        with anyio.move_on_after(seconds) as deadline:
            async with anyio.create_task_group() as group:
                group.start_soon(_feed, process.stdin, data)
                failed = await _read(process.stdout, result, chars)
                group.cancel_scope.cancel()
        if not deadline.cancelled_caught:
            with anyio.move_on_after(1):
                await process.wait()
    stopped = deadline.cancelled_caught or process.returncode not in (0, None)
    if failed:
        raise ToolError(failed)
    if stopped and not result.wanted:
        raise ToolError(
            "This PDF could not be opened within the time and memory a PDF may use; it may be "
            "damaged or built to be slow. Extract its text with a command instead."
        )
    if deadline.cancelled_caught:
        result.note = _missing(result, f"stopped after {seconds:g} s")
    elif stopped and len(result.pages) < len(result.wanted):
        result.note = _missing(result, "ran out of the memory or time a PDF may use")
    elif sum(len(text) for _, text in result.pages) >= chars:
        result.note = f"the text was cut at {chars:,} characters"
    return result


async def _feed(stdin: ByteSendStream | None, data: bytes) -> None:
    if stdin is None:
        return
    try:
        await stdin.send(data)
        await stdin.aclose()
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass  # the worker ended (it read what it needed, or it failed): its answer says


async def _read(stdout: ByteReceiveStream | None, result: PdfText, chars: int) -> str:
    """Collect the worker's messages into ``result``; an error message's sentence, or ""."""
    if stdout is None:
        return ""
    buffer = b""
    kept = 0
    async for chunk in stdout:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if "error" in message:
                return str(message["error"])
            if "total" in message:
                result.total, result.wanted = int(message["total"]), list(message["pages"])
            elif "page" in message:
                text = str(message["text"])[: max(0, chars - kept)]
                kept += len(text)
                result.pages.append((int(message["page"]), text))
    return ""


def _missing(result: PdfText, why: str) -> str:
    done = {number for number, _ in result.pages}
    left = [number for number in result.wanted if number not in done]
    if not left:
        return f"the extraction {why}"
    shown = ", ".join(map(str, left[:10])) + ("…" if len(left) > 10 else "")
    return (
        f"the extraction {why}: page{'s' if len(left) > 1 else ''} {shown} "
        "not extracted (their content is slow to decode); ask for them with `pages`, a few at "
        "a time, or extract the text with a command"
    )
