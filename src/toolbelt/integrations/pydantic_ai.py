"""A toolbelt runtime's tools as a pydantic-ai toolset, in-process.

``ToolbeltToolset(runtime)`` is a pydantic-ai ``AbstractToolset``: the agent lists the
runtime's tools (their names, descriptions and neutral JSON schemas) and every call runs
through the runtime — validation, hooks, the permission policy, events, cancellation — as it
does through any of toolbelt's doors.

A permission prompt becomes pydantic-ai's deferred tool approval: when the policy asks, the
call does not run; it raises ``ApprovalRequired`` (its metadata carries the policy's reason),
so the agent run ends with ``DeferredToolRequests`` listing it in ``approvals``. The
application asks its user and runs the agent again with ``DeferredToolResults(approvals=
{tool_call_id: True})``: pydantic-ai calls the tool again, approved, and toolbelt runs it
(approved once). A denied approval never reaches the tool. The toolset answers the runtime's
prompts this way (its requester replaces the runtime's); a call the policy denies, and a call
that fails, come back to the model as a failed tool result (``ToolFailed``).

Mutating tools are ``sequential`` (pydantic-ai runs them alone, in the model's order), read-only
ones run side by side. Entering the toolset opens the runtime when it is not open yet, and
leaving the outermost entry closes what it opened: an approval round is a second agent run,
so enter the agent (``async with agent:``) — or open the runtime yourself — around the runs
of one conversation, whose session (shell, read tracker) they share.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from pydantic_ai import ApprovalRequired, RunContext, ToolFailed
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import SchemaValidatorProt, ToolsetTool

from toolbelt.core.call_results import ToolCall
from toolbelt.core.events import CallState
from toolbelt.integrations.approved_calls import ApprovedCalls
from toolbelt.providers.schema import neutral_schema
from toolbelt.runtime import Runtime, RuntimeState

__all__ = ["ApprovedCalls", "ToolbeltToolset"]

_ANY_ARGUMENTS: SchemaValidatorProt = TypeAdapter(dict[str, Any]).validator  # type: ignore[assignment]
"""pydantic-ai only parses the arguments; toolbelt's executor validates them against the
tool's own model and answers the model with the field at fault."""


class ToolbeltToolset(AbstractToolset[Any]):
    """The tools of ``runtime``, run by it, for a pydantic-ai ``Agent(toolsets=[...])``."""

    def __init__(self, runtime: Runtime, *, id: str | None = "toolbelt") -> None:
        self.runtime = runtime
        self.approvals = ApprovedCalls()
        runtime.executor.requester = self.approvals
        self._id = id
        self._entered = 0
        self._opened = False

    @property
    def id(self) -> str | None:
        return self._id

    async def __aenter__(self) -> ToolbeltToolset:
        if self._entered == 0 and self.runtime.state is RuntimeState.UNOPENED:
            await self.runtime.open()
            self._opened = True
        self._entered += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        self._entered -= 1
        if self._entered == 0 and self._opened:
            self._opened = False
            await self.runtime.aclose()
        return None

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools: dict[str, ToolsetTool[Any]] = {}
        for tool in self.runtime.toolset.tools():
            definition = ToolDefinition(
                name=tool.name,
                description=tool.description,
                parameters_json_schema=neutral_schema(tool),
                sequential=not tool.readonly,
                metadata={"readonly": tool.readonly, "title": tool.title},
            )
            tools[tool.name] = ToolsetTool(
                toolset=self, tool_def=definition, max_retries=1, args_validator=_ANY_ARGUMENTS
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        call_id = ctx.tool_call_id or f"pydantic-ai-{name}"
        if ctx.tool_call_approved:
            self.approvals.approved.add(call_id)
        try:
            result = await self.runtime.run_one(ToolCall(call_id, name, tool_args))
        finally:
            self.approvals.approved.discard(call_id)
        if result.state is CallState.NEEDS_INPUT:
            raise ApprovalRequired(metadata={"reason": result.text, "tool": name})
        if result.is_error:
            raise ToolFailed(result.text)
        return result.text
