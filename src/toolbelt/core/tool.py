"""The ``Tool`` base class: one input model, one description, one permission hook, one ``run``.

A tool module declares a pydantic input model (``extra="forbid"``: unknown fields are refused,
so a model cannot smuggle in a ``cwd`` or a ``dangerouslyDisableSandbox``), the description the
model reads, whether it may run concurrently, what a call touches (``access``) and the work
itself (``run``). Schemas for every provider are derived from the same input model that
validates the arguments, so the two can never drift.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from toolbelt.core.access import Access, AccessKind

if TYPE_CHECKING:
    from toolbelt.core.content import ToolOutput
    from toolbelt.core.context import ToolContext

__all__ = ["Tool", "ToolInput"]


class ToolInput(BaseModel):
    """Base of every tool's input model: unknown fields are an error, strings keep whitespace."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, defer_build=True)


InputT = TypeVar("InputT", bound=ToolInput)


class Tool(ABC, Generic[InputT]):
    """A capability the model can call.

    Subclasses set the class attributes and implement ``run``; ``access`` defaults to "no
    effect" for read-only tools and must be overridden by any tool that touches files,
    commands or the network.
    """

    name: ClassVar[str]
    """snake_case name the model calls (``read_file``)."""
    title: ClassVar[str]
    """Short human title for UIs and MCP (``Read file``)."""
    description: ClassVar[str]
    """What the model reads to decide when and how to call the tool."""
    input_model: ClassVar[type[ToolInput]]
    """Validates the arguments; provider schemas are derived from it."""
    example: ClassVar[dict[str, Any]]
    """A correct call, shown to the model when its arguments are invalid."""
    output_model: ClassVar[type[BaseModel] | None] = None
    """Schema of ``ToolOutput.structured`` when the tool has one (MCP ``outputSchema``)."""

    readonly: ClassVar[bool] = False
    """May run concurrently with other read-only calls; when unsure, leave it False."""
    destructive: ClassVar[bool] = True
    """May destroy or overwrite data (MCP ``destructiveHint``); ignored for read-only tools."""
    idempotent: ClassVar[bool] = False
    """Calling twice with the same arguments has no further effect (MCP ``idempotentHint``)."""
    open_world: ClassVar[bool] = False
    """Reaches outside the workspace, e.g. the network (MCP ``openWorldHint``)."""
    programmatic: ClassVar[bool] = True
    """Suitable when no person is at the keyboard (False for ask_user, git_commit, web_fetch)."""

    def is_readonly(self, args: InputT) -> bool:
        """Whether this particular call may run concurrently; defaults to the class flag."""
        return self.readonly

    async def access(self, args: InputT, ctx: ToolContext) -> Access:
        """Declare what this call touches; may raise ``ToolError`` for arguments that cannot work.

        The executor calls it before asking the policy, so a call that would fail anyway
        (a path outside every root, a string that is not in the file) fails without
        bothering the user.
        """
        return Access.none() if self.readonly else Access(AccessKind.EXECUTE, summary=self.name)

    @abstractmethod
    async def run(self, args: InputT, ctx: ToolContext) -> ToolOutput:
        """Do the work; raise ``ToolError`` with an instructive message when it cannot be done."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
