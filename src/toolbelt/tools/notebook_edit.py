"""notebook_edit: replace, insert or delete one cell of a Jupyter notebook.

Edits go through nbformat, so the notebook's metadata is kept and the result is validated
before it is saved (atomically). An edited code cell loses its outputs and execution count —
they described the old source.
"""

from __future__ import annotations

import importlib
import json
from typing import Any, Literal

import anyio
from pydantic import BaseModel, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.wording import counted
from toolbelt.files.tracker import Freshness
from toolbelt.tools._edit_result import ChangedPath, EditReport, edit_result
from toolbelt.tools._files import (
    load_for_change,
    require_read_to_match,
    resolve,
    save_text,
    write_access,
)

__all__ = ["NotebookEditInput", "NotebookEditTool"]

DESCRIPTION = """\
Change one cell of a Jupyter notebook (.ipynb). Identify the cell by `cell_id` (as shown by \
read_file) or by `cell_number` (0-based). `edit_mode` is replace (default), insert (a new cell \
after the given cell, or at the start if none is given) or delete. `cell_type` (code or \
markdown) is required for insert. Read the notebook first."""


class NotebookEditInput(ToolInput):
    """Arguments of `notebook_edit`."""

    path: str = Field(description="The .ipynb file.")
    cell_id: str | None = Field(default=None, description="Id of the cell to change.")
    cell_number: int | None = Field(default=None, ge=0, description="0-based index of the cell.")
    new_source: str = Field(default="", description="The cell's new source (unused for delete).")
    cell_type: Literal["code", "markdown"] | None = Field(default=None, description="Cell type.")
    edit_mode: Literal["replace", "insert", "delete"] = Field(default="replace")


class NotebookEditOutput(BaseModel):
    """Structured result of `notebook_edit`."""

    path: str
    cell_id: str
    edit_mode: str
    cells: int = Field(description="Cells in the notebook after the edit.")


class NotebookEditTool(Tool[NotebookEditInput]):
    """Replace, insert or delete a notebook cell."""

    name = "notebook_edit"
    rule_family = "Edit"
    claude_name = "NotebookEdit"
    title = "Edit notebook cell"
    description = DESCRIPTION
    output_model = NotebookEditOutput
    example = {"path": "analysis.ipynb", "cell_id": "a1b2c3", "new_source": "df.describe()"}

    async def access(self, args: NotebookEditInput, ctx: ToolContext) -> Access:
        resolved = resolve(ctx, args.path)
        require_read_to_match(ctx, resolved)
        return write_access(f"{args.edit_mode} a cell of {args.path}", args.new_source, resolved)

    async def run(self, args: NotebookEditInput, ctx: ToolContext) -> ToolOutput:
        return await edit_result(ctx, await anyio.to_thread.run_sync(_edit, args, ctx))


def _edit(args: NotebookEditInput, ctx: ToolContext) -> EditReport:
    nbformat: Any = importlib.import_module("nbformat")  # untyped library, imported on use

    resolved = resolve(ctx, args.path)
    if resolved.path.suffix.lower() != ".ipynb":
        raise ToolError(f"{args.path} is not a notebook; use edit_file for other files.")
    loaded = load_for_change(ctx, resolved, must_exist=True)
    assert loaded is not None
    if loaded.freshness is Freshness.CHANGED:
        raise ToolError(f"{loaded.shown} changed since you read it; read it again first.")
    try:
        notebook: Any = nbformat.reads(loaded.decoded.text, as_version=4)
    except Exception as exc:
        raise ToolError(f"{loaded.shown} is not a valid notebook ({exc}).") from exc
    cells = notebook.cells
    index = _locate(args, cells)
    if args.edit_mode == "insert":
        kind = args.cell_type
        if kind is None:
            raise ToolError("cell_type (code or markdown) is required to insert a cell.")
        maker = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        position = 0 if index is None else index + 1
        cells.insert(position, maker(args.new_source))
        changed, verb = cells[position], "Inserted"
    else:
        if index is None:
            raise ToolError("Give cell_id or cell_number to say which cell to change.")
        if args.edit_mode == "delete":
            changed, verb = cells.pop(index), "Deleted"
        else:
            changed, verb = cells[index], "Replaced"
            changed.source = args.new_source
            if args.cell_type and args.cell_type != changed.cell_type:
                changed = _retyped(nbformat, changed, args.cell_type)
                cells[index] = changed
            if changed.cell_type == "code":
                changed.outputs = []
                changed.execution_count = None
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        raise ToolError(f"The edited notebook would be invalid ({exc.message}).") from exc
    text = nbformat.writes(notebook) + "\n"
    save_text(ctx, resolved, text.encode("utf-8"))
    cell_id = changed.get("id", "")
    said = f"{verb} {changed.cell_type} cell {cell_id!r} in {loaded.shown} "
    said += f"({counted(len(cells), 'cell')} now)."
    structured = {
        "path": loaded.shown,
        "cell_id": cell_id,
        "edit_mode": args.edit_mode,
        "cells": len(cells),
    }
    return EditReport([said], structured, (ChangedPath(resolved.path, loaded.shown, loaded.data),))


def _locate(args: NotebookEditInput, cells: list[Any]) -> int | None:
    if args.cell_id is not None:
        for position, cell in enumerate(cells):
            if cell.get("id") == args.cell_id:
                return position
        ids = ", ".join(json.dumps(c.get("id")) for c in cells[:20])
        raise ToolError(f"No cell has id {args.cell_id!r}; the cells' ids are: {ids}.")
    if args.cell_number is not None:
        if args.cell_number >= len(cells):
            raise ToolError(
                f"cell_number {args.cell_number} is out of range; the notebook has {len(cells)} "
                "cells (numbered from 0)."
            )
        return args.cell_number
    return None


def _retyped(nbformat: Any, cell: Any, kind: str) -> Any:
    maker = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    fresh = maker(cell.source)
    if "id" in cell:
        fresh["id"] = cell["id"]
    fresh.metadata = cell.metadata
    return fresh
