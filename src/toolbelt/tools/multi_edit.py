"""multi_edit: several replacements in one file, applied in order, all or nothing."""

from __future__ import annotations

import anyio
from pydantic import BaseModel, ConfigDict, Field

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.tools._edit_result import edit_result
from toolbelt.tools.edit_file import EditFileOutput, _preview, apply_and_save

__all__ = ["MultiEditInput", "MultiEditTool"]

DESCRIPTION = """\
Make several replacements in one file in a single step. Each edit is an edit_file-style \
{old_string, new_string, replace_all}, applied in order to the result of the previous one; if \
any edit fails, nothing is written. Read the file first. Use it instead of several edit_file \
calls on the same file."""


class SingleEdit(BaseModel):
    """One replacement."""

    model_config = ConfigDict(extra="forbid")

    old_string: str = Field(description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(default=False, description="Replace every occurrence.")


class MultiEditInput(ToolInput):
    """Arguments of `multi_edit`."""

    path: str = Field(description="File to edit.")
    edits: list[SingleEdit] = Field(min_length=1, description="Replacements, applied in order.")


class MultiEditTool(Tool[MultiEditInput]):
    """All-or-nothing sequence of edits to one file."""

    name = "multi_edit"
    rule_family = "Edit"
    claude_name = "MultiEdit"
    title = "Edit file (several changes)"
    description = DESCRIPTION
    output_model = EditFileOutput
    example = {
        "path": "src/app.py",
        "edits": [
            {"old_string": "import os", "new_string": "import os\nimport sys"},
            {"old_string": "DEBUG = True", "new_string": "DEBUG = False"},
        ],
    }

    async def access(self, args: MultiEditInput, ctx: ToolContext) -> Access:
        return await anyio.to_thread.run_sync(_preview, ctx, args.path, _edits(args))

    async def run(self, args: MultiEditInput, ctx: ToolContext) -> ToolOutput:
        report = await anyio.to_thread.run_sync(apply_and_save, ctx, args.path, _edits(args))
        return await edit_result(ctx, report)


def _edits(args: MultiEditInput) -> list[tuple[str, str, bool]]:
    return [(e.old_string, e.new_string, e.replace_all) for e in args.edits]
