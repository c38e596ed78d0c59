"""todo_read / todo_write: the session's task list, so the model can plan and show progress.

``todo_write`` replaces the whole list each time (the model sends the list as it should be,
which is easier for it than patching items), and enforces the rules that keep the list
meaningful: unique ids, and at most one item in progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints

__all__ = [
    "TodoItem",
    "TodoList",
    "TodoReadInput",
    "TodoReadTool",
    "TodoWriteInput",
    "TodoWriteTool",
]

Status = Literal["pending", "in_progress", "completed"]
Priority = Literal["high", "medium", "low"]
_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}

WRITE_DESCRIPTION = """\
Create or update the task list for the current work. Send the complete list every time: it \
replaces the previous one. Each item has an `id` (unique), `content` (what to do, imperative), \
`status` (pending, in_progress or completed) and an optional `priority` (high, medium, low). \
Keep exactly one item in_progress while you work on it, mark items completed as soon as they \
are done, and add items when you discover new work. Use it for tasks with three or more steps; \
skip it for a single quick change."""

READ_DESCRIPTION = """\
Show the current task list with each item's id, status and priority. Use it to check what is \
left before choosing the next step."""


class TodoItem(BaseModel):
    """One task on the list."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="Unique identifier of the item, e.g. '1'.")
    content: str = Field(min_length=1, description="What to do, in the imperative.")
    status: Status = Field(description="pending, in_progress or completed.")
    priority: Priority | None = Field(default=None, description="high, medium or low.")


class TodoWriteInput(ToolInput):
    """Arguments of `todo_write`."""

    todos: list[TodoItem] = Field(description="The complete, updated task list.")

    @model_validator(mode="after")
    def _check_rules(self) -> TodoWriteInput:
        ids = [item.id for item in self.todos]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"todo ids must be unique, but {duplicates} appear more than once")
        active = [item.id for item in self.todos if item.status == "in_progress"]
        if len(active) > 1:
            raise ValueError(
                f"at most one todo can be in_progress, but {active} are; mark the others "
                "pending or completed"
            )
        return self


class TodoReadInput(ToolInput):
    """`todo_read` takes no arguments."""


@dataclass
class TodoList:
    """The session's current task list."""

    items: list[TodoItem] = field(default_factory=list)

    def render(self) -> str:
        """One line per item: mark, id, content, priority."""
        if not self.items:
            return "The task list is empty."
        lines = []
        for item in self.items:
            priority = f" ({item.priority})" if item.priority else ""
            lines.append(f"{_MARKS[item.status]} {item.id}. {item.content}{priority}")
        return "\n".join(lines)

    def counts(self) -> dict[str, int]:
        """How many items are in each status."""
        return {s: sum(1 for i in self.items if i.status == s) for s in _MARKS}


class TodoOutput(BaseModel):
    """Structured result of `todo_read` and `todo_write`."""

    todos: list[TodoItem] = Field(description="The task list.")
    counts: dict[str, int] = Field(description="Items per status.")


class TodoWriteTool(Tool[TodoWriteInput]):
    """Replace the session's task list."""

    name = "todo_write"
    claude_name = "TodoWrite"
    title = "Write task list"
    description = WRITE_DESCRIPTION
    output_model = TodoOutput
    example = {
        "todos": [
            {"id": "1", "content": "Reproduce the failing test", "status": "completed"},
            {"id": "2", "content": "Fix the parser", "status": "in_progress", "priority": "high"},
        ]
    }
    hints = ToolHints(destructive=False, idempotent=True)

    async def access(self, args: TodoWriteInput, ctx: ToolContext) -> Access:
        return Access.none()

    async def run(self, args: TodoWriteInput, ctx: ToolContext) -> ToolOutput:
        todos = ctx.session.resource(TodoList)
        todos.items = list(args.todos)
        counts = todos.counts()
        summary = (
            f"Task list updated: {counts['completed']} completed, "
            f"{counts['in_progress']} in progress, {counts['pending']} pending.\n{todos.render()}"
        )
        return ToolOutput.text(
            summary, {"todos": [i.model_dump(mode="json") for i in todos.items], "counts": counts}
        )


class TodoReadTool(Tool[TodoReadInput]):
    """Show the session's task list."""

    name = "todo_read"
    claude_name = "TodoRead"
    title = "Read task list"
    description = READ_DESCRIPTION
    output_model = TodoOutput
    example = {}  # the call takes no arguments
    hints = ToolHints.READ_ONLY

    async def run(self, args: TodoReadInput, ctx: ToolContext) -> ToolOutput:
        todos = ctx.session.resource(TodoList)
        return ToolOutput.text(
            todos.render(),
            {"todos": [i.model_dump(mode="json") for i in todos.items], "counts": todos.counts()},
        )
