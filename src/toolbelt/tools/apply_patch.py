"""apply_patch: change several files in one call with a V4A patch — all of it, or nothing.

The format GPT-family models were trained on (Codex, OpenCode): add, delete, move and update
files, updates as hunks of context, ``-`` and ``+`` lines (``files.patch_format``). Every hunk
is located first, with edit_file's recoveries and its rule that the file keeps its own bytes
wherever the model changed nothing (``files.patch_apply``); every file is checked like the
tool that would change it alone (``tools._patch_plan``); the permission is asked once for all
of them, each path judged (a protected path asks, outside the workspace asks, a deny rule on
any of them denies); then the files are written with a rollback (``tools._patch_commit``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.tools._edit_result import ChangedPath, EditReport, edit_result
from toolbelt.tools.edit_file import STALE_NOTE

if TYPE_CHECKING:  # the patch machinery loads with the first patch
    from toolbelt.tools._patch_plan import PatchPlan, PlannedChange

__all__ = ["ApplyPatchInput", "ApplyPatchTool"]

DESCRIPTION = """\
Edit files with a patch: add, delete, move and change several files in one call. Nothing is \
written unless every part applies. The patch is plain text in this format:

*** Begin Patch
*** Add File: path/new.py
+every line of the new file, each starting with +
*** Delete File: path/old.py
*** Update File: path/app.py
*** Move to: path/main.py
@@ def greet():
     unchanged context line (a space, then the line as the file has it)
-    removed line
+    added line
*** End Patch

*** Move to: is optional (it renames the updated file). In an update, each hunk starts with \
@@ and lists context lines (starting with a space), removed lines (-) and added lines (+); \
show about 3 lines of context above and below each change. The hunk applies at the first \
place below the previous hunk where its context and - lines match, so hunks go in file order. \
When context alone would match earlier, name the class or function above the change after \
@@ (`@@ class Store`), several @@ lines in a row to narrow further. End a hunk with \
*** End of File when its lines end the file. Paths are relative to the working directory. \
Read a file with read_file before updating, replacing or deleting it."""


class ApplyPatchInput(ToolInput):
    """Arguments of `apply_patch`."""

    input: str = Field(
        description="The whole patch, from `*** Begin Patch` to `*** End Patch`.",
    )


class PatchedFile(BaseModel):
    """One file the patch changed."""

    path: str
    action: str = Field(description="add, update or delete.")
    moved_from: str | None = None
    added: int
    removed: int
    recoveries: list[str] = Field(description="Recoveries used where hunks were inexact.")
    differences: list[str] = Field(
        description="Where the file's characters differ from what the hunks had."
    )
    stale: bool = Field(description="The file had changed since it was read.")
    diff: str
    hunks: list[dict[str, Any]]


class ApplyPatchOutput(BaseModel):
    """Structured result of `apply_patch`."""

    files: list[PatchedFile]


class ApplyPatchTool(Tool[ApplyPatchInput]):
    """Multi-file V4A patches, applied atomically."""

    name = "apply_patch"
    rule_family = "Edit"
    title = "Apply patch"
    description = DESCRIPTION
    output_model = ApplyPatchOutput
    example = {
        "input": "*** Begin Patch\n*** Update File: src/app.py\n@@ def add(a, b):\n"
        "-    return a - b\n+    return a + b\n*** End Patch\n"
    }

    async def access(self, args: ApplyPatchInput, ctx: ToolContext) -> Access:
        return await anyio.to_thread.run_sync(_preview, ctx, args.input)

    async def run(self, args: ApplyPatchInput, ctx: ToolContext) -> ToolOutput:
        return await edit_result(ctx, await anyio.to_thread.run_sync(_apply, ctx, args.input))


def _preview(ctx: ToolContext, patch: str) -> Access:
    from toolbelt.tools._patch_plan import plan_patch

    plan = plan_patch(ctx, patch)
    ctx.scratch["patch"] = (patch, plan)
    return plan.access("apply patch: " + ", ".join(_summary(c) for c in _shown(plan.changes)))


def _apply(ctx: ToolContext, patch: str) -> EditReport:
    """Write the plan ``access`` made, or a fresh one if a file changed since."""
    from toolbelt.tools._patch_commit import commit
    from toolbelt.tools._patch_plan import kept_plan, plan_patch

    plan = kept_plan(ctx, "patch", patch) or plan_patch(ctx, patch)
    commit(ctx, plan.changes)
    for change in _shown(plan.changes):
        ctx.diff(change.shown, change.change.unified, tuple(change.change.as_dicts()))
    return _report(plan)


def _shown(changes: tuple[PlannedChange, ...]) -> list[PlannedChange]:
    """The changes as the model and UIs see them: a move is its destination's change."""
    return [change for change in changes if change.moved_to is None]


def _summary(change: PlannedChange) -> str:
    verb: str = change.action
    if change.moved_from is not None:
        verb = f"move {change.moved_from} to"
    if not change.quote:
        return f"{verb} {change.shown}"
    return f"{verb} {change.shown} (+{change.change.added} -{change.change.removed})"


_LETTERS = {"add": "A", "update": "M", "delete": "D"}


def _report(plan: PatchPlan) -> EditReport:
    """Codex's summary the models know (``A``/``M``/``D`` per file), then what was recovered."""
    shown = _shown(plan.changes)
    lines = ["Success. Updated the following files:"]
    details: list[str] = []
    files: list[dict[str, Any]] = []
    for change in shown:
        line = f"{_LETTERS[change.action]} {change.shown}"
        if change.moved_from is not None:
            line = f"M {change.shown} (moved from {change.moved_from})"
        if change.quote:
            line += f" (+{change.change.added} -{change.change.removed})"
        lines.append(line)
        recoveries = list(change.recoveries) if change.quote else []
        differences = list(change.notes) if change.quote else []
        if recoveries:
            details.append(
                f"{change.shown}: lines did not match exactly; recovered by: "
                f"{'; '.join(recoveries)}."
            )
        if differences:
            details.append(
                f"{change.shown}: the file's own text differs from what you typed: "
                f"{'; '.join(differences)}."
            )
        if change.stale:
            details.append(f"{change.shown}: {STALE_NOTE}")
        files.append(
            {
                "path": change.shown,
                "action": change.action,
                "moved_from": change.moved_from,
                "added": change.change.added if change.quote else 0,
                "removed": change.change.removed if change.quote else 0,
                "recoveries": recoveries,
                "differences": differences,
                "stale": change.stale,
                "diff": change.change.unified if change.quote else "",
                "hunks": change.change.as_dicts() if change.quote else [],
            }
        )
    hidden = [change.shown for change in shown if not change.quote]
    if hidden:
        details.append(
            f"What changed in {', '.join(hidden)} is not described because reading "
            f"{'that file' if len(hidden) == 1 else 'those files'} is not allowed without asking."
        )
    changed = tuple(
        ChangedPath(change.resolved.path, change.shown, before, moved_from)
        for change in plan.changes
        if change.after is not None
        for before, moved_from in [_before(plan, change)]
    )
    return EditReport([*lines, *details], {"files": files}, changed)


def _before(plan: PatchPlan, change: PlannedChange) -> tuple[bytes | None, Path | None]:
    """What the changed file held before, and where: a move's destination held its source's
    bytes, at the source's path."""
    if change.moved_from is None:
        return change.before, None
    source = next((c for c in plan.changes if c.moved_to == change.shown), None)
    return (None, None) if source is None else (source.before, source.resolved.path)
