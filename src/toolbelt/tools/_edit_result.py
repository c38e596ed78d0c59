"""The result of every tool that changes files, finished in one place.

write_file, edit_file, multi_edit, notebook_edit and apply_patch each say what they changed in
their own words; ``edit_result`` turns that into the ``ToolOutput`` the model reads. What
follows an edit for every one of them alike is added here, for all five at once, from
``EditReport.changed``: the diagnostics that appeared or disappeared in the changed files
(``lsp.service``; a file whose content this call may not show gets none, as they quote it).
The edit has happened by then: nothing here may turn it into a failure, so a fault in the
diagnostics becomes a note in the result.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.lsp.languages import language_of
from toolbelt.tools._code import code_diagnostics, diagnostics_enabled

__all__ = ["ChangedPath", "EditReport", "edit_result"]

MAX_CHECKED_BYTES = 2 * 1024 * 1024
"""Files larger than this get no diagnostics (servers are slow on them, and so is a diff)."""


@dataclass(frozen=True, slots=True)
class ChangedPath:
    """A file the call changed or created."""

    path: Path
    """Its real path."""
    shown: str
    """The path as the model knows it."""
    before: bytes | None
    """What it held before the call; None when the call created it."""


@dataclass(frozen=True, slots=True)
class EditReport:
    """What a file-changing tool tells the model, before it is finished."""

    lines: Sequence[str]
    """The result's text, a line (or a paragraph) at a time."""
    structured: Mapping[str, Any]
    """The structured result (the tool's output model)."""
    changed: tuple[ChangedPath, ...]
    """Files whose content the call changed or created (deleted ones left out)."""


async def edit_result(ctx: ToolContext, report: EditReport) -> ToolOutput:
    """The ``ToolOutput`` of a call that changed ``report.changed``."""
    lines = list(report.lines)
    checked = [
        c for c in report.changed if language_of(c.path) is not None and ctx.may_quote(c.path)
    ]
    if checked and diagnostics_enabled(ctx.session):
        try:
            lines += await _diagnostics(ctx, checked)
        except Exception as exc:  # the edit is done: say what failed, do not fail it
            lines.append(f"Note: the diagnostics could not be computed ({exc}).")
    return ToolOutput.text("\n".join(lines), report.structured)


async def _diagnostics(ctx: ToolContext, changed: list[ChangedPath]) -> list[str]:
    started = time.monotonic()  # the bound counts from here: the import and reads included
    files = await anyio.to_thread.run_sync(_read_changed, changed)
    service = await anyio.to_thread.run_sync(_service_module)  # pygls: ~0.2 s to import
    return await code_diagnostics(ctx.session).after_edit(
        [service.ChangedFile(c.path, c.shown, before, after) for c, before, after in files],
        started=started,
    )


def _service_module() -> ModuleType:
    return importlib.import_module("toolbelt.lsp.service")


def _read_changed(changed: list[ChangedPath]) -> list[tuple[ChangedPath, str | None, str]]:
    """Each file's text before and after (as UTF-8, undecodable bytes replaced); files too
    large or gone since are left out."""
    found = []
    for change in changed:
        try:
            with open(change.path, "rb") as handle:
                data = handle.read(MAX_CHECKED_BYTES + 1)
        except OSError:
            continue
        if len(data) > MAX_CHECKED_BYTES:
            continue
        before = None if change.before is None else change.before.decode("utf-8", "replace")
        found.append((change, before, data.decode("utf-8", "replace")))
    return found
