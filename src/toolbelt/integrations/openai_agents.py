"""A toolbelt runtime's tools as OpenAI Agents SDK function tools, in-process.

``ToolbeltTools(runtime).function_tools()`` is a list of the SDK's ``FunctionTool`` for an
``agents.Agent(tools=[...])``: each carries the tool's name, description and schema, and every
call runs through the runtime — validation, hooks, the permission policy, events,
cancellation — as it does through any of toolbelt's doors.

The SDK decides whether a call needs the user's approval *before* it runs (``needs_approval``),
so each tool's approval check asks the runtime what it would decide (``Runtime.decide``:
validation, PreToolUse hooks, the tool's ``access``, the policy — nothing runs, nobody is
asked). When the policy would ask, the run stops with the call in ``result.interruptions``;
``question(item)`` is the policy's question for it. The application asks its user, approves
or rejects the item on ``result.to_state()`` and runs the agent again with that state: an
approved call runs through the runtime approved once (toolbelt's "yes"); a rejected one never
reaches the tool, and the model reads the SDK's rejection message. Approving every call of a
tool (``always_approve=True``) covers its later calls except those toolbelt never lets an
earlier answer cover — a protected path, a dangerous command, an ask rule, a hook's ask —:
such a call, which the user was not shown, does not run, and the model is told to leave it to
the user. The toolset answers the runtime's prompts this way (its requester replaces the
runtime's). PreToolUse hooks run twice for a call: when it is checked and when it runs.

A call the policy denies, arguments that do not validate, and a call that fails return
toolbelt's error text as the tool's output, which the model reads (as the SDK's
``failure_error_function`` does for a decorated function) — the run goes on. A call that was
decided without a question but asks when it runs (an earlier call of the same turn changed
what it touches) does not run; the model is told to call it again, which puts it to the user.

The SDK starts every call of a turn at once; toolbelt's executor lets read-only calls run side
by side and runs any other call alone, in the order the calls reach it. Schemas are OpenAI's
strict form (every field required, optional ones nullable; toolbelt reads ``null`` as "not
given") where strict mode can express the tool, the neutral schema with ``strict_json_schema``
off where it cannot (a map such as ``call_mcp_tool``'s ``arguments``).

Entering ``ToolbeltTools`` opens the runtime when it is not open yet, and leaving closes what
it opened: keep the runs of one conversation, approval rounds included, inside it, so they
share one session (shell, read tracker).
"""

from __future__ import annotations

import copy
from typing import Any

from agents import (
    FunctionTool,
    RunContextWrapper,
    ToolApprovalItem,
    ToolOutputImage,
    ToolOutputText,
)
from agents.tool_context import ToolContext

from toolbelt.core.call_results import ToolCall, ToolCallResult
from toolbelt.core.content import ImageBlock
from toolbelt.core.errors import ToolbeltError
from toolbelt.core.events import CallState
from toolbelt.core.permission import Answer, Approval, Ask, PermissionRequest
from toolbelt.core.tool import Tool
from toolbelt.integrations.approved_calls import ApprovedCalls
from toolbelt.providers.schema import neutral_schema, strict_tool_schema
from toolbelt.runtime import Runtime, RuntimeState

__all__ = ["ToolbeltTools"]

_QUESTIONS_KEPT = 1024
"""Questions kept for calls awaiting an answer; the oldest go first."""

_NOT_PUT_TO_THE_USER = (
    "{reason} The call was not put to the user for approval, so it did not run; "
    "call it again to have it approved."
)
_ASKS_EVERY_TIME = (
    "{reason} This call needs the user's approval each time, and the application approved "
    "every call of `{tool}` without showing them this one, so it did not run; ask the user to "
    "run it themselves, or do something else."
)
_NO_SUCH_CALL = "\0toolbelt: a call id no model sends"
"""Asked about through ``is_tool_approved``, it tells an approval of every call of a tool (the
SDK's ``always_approve``) from an approval of one call."""


class _SdkApprovals(ApprovedCalls):
    """``ApprovedCalls``, plus the calls the application approved by approving every call of
    their tool: those were never shown to the user, so they answer only the questions that an
    "allow for the session" could answer in toolbelt — never a protected path, a dangerous
    command, an ask rule or a hook's ask, which the user must see each time."""

    def __init__(self) -> None:
        super().__init__()
        self.tool_wide: set[str] = set()

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        if request.call_id in self.tool_wide and decision.remember and not decision.forced:
            return Answer(Approval.ONCE)
        return await super().ask(request, decision)


class ToolbeltTools:
    """The tools of ``runtime``, run by it, for an OpenAI Agents SDK ``Agent(tools=[...])``."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.approvals = _SdkApprovals()
        runtime.executor.requester = self.approvals
        self.questions: dict[str, str] = {}
        """The policy's question for each call id the SDK stopped to have approved (until the
        call runs; the latest ``_QUESTIONS_KEPT``)."""
        self._entered = 0
        self._opened = False

    async def __aenter__(self) -> ToolbeltTools:
        if self._entered == 0 and self.runtime.state is RuntimeState.UNOPENED:
            await self.runtime.open()
            self._opened = True
        self._entered += 1
        return self

    async def __aexit__(self, *args: object) -> None:
        self._entered -= 1
        if self._entered == 0 and self._opened:
            self._opened = False
            await self.runtime.aclose()

    def function_tools(self) -> list[FunctionTool]:
        """One ``FunctionTool`` per tool the runtime has now (an MCP server's once listed)."""
        return [self._function_tool(tool) for tool in self.runtime.toolset.tools()]

    def question(self, item: ToolApprovalItem) -> str:
        """What to ask the user about an interruption: the policy's question for the call."""
        asked = self.questions.get(item.call_id or "")
        return asked or f"Allow `{item.name}` with the arguments {item.arguments}?"

    def _function_tool(self, tool: Tool[Any]) -> FunctionTool:
        name = tool.name
        strict = strict_tool_schema(tool)
        schema = copy.deepcopy(strict if strict is not None else neutral_schema(tool))

        async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
            return await self._run(name, ctx, arguments)

        async def needs_approval(
            ctx: RunContextWrapper[Any], arguments: dict[str, Any], call_id: str
        ) -> bool:
            return await self._asks(name, arguments, call_id)

        return FunctionTool(
            name=name,
            description=tool.description,
            params_json_schema=schema,
            on_invoke_tool=invoke,
            strict_json_schema=strict is not None,
            needs_approval=needs_approval,
        )

    async def _asks(self, name: str, arguments: dict[str, Any], call_id: str) -> bool:
        """Whether the policy would ask about this call (and remember its question)."""
        try:
            decision = await self.runtime.decide(ToolCall(call_id, name, arguments))
        except ToolbeltError:
            return False  # it cannot run: running it reports why (to the model, or the caller)
        if isinstance(decision, Ask):
            self.questions[call_id] = decision.reason
            if len(self.questions) > _QUESTIONS_KEPT:  # a rejected call never runs to pop its own
                del self.questions[next(iter(self.questions))]
            return True
        return False

    async def _run(self, name: str, ctx: ToolContext[Any], arguments: str) -> Any:
        call_id = ctx.tool_call_id
        approvals = self.approvals
        shown = call_id in self.questions
        every_call = ctx.is_tool_approved(ctx.tool_name, _NO_SUCH_CALL) is True
        if ctx.is_tool_approved(ctx.tool_name, call_id):
            (approvals.approved if shown or not every_call else approvals.tool_wide).add(call_id)
        try:
            result = await self.runtime.run_one(ToolCall(call_id, name, arguments))
        finally:
            approvals.approved.discard(call_id)
            approvals.tool_wide.discard(call_id)
            self.questions.pop(call_id, None)
        if result.state is not CallState.NEEDS_INPUT:
            return _model_output(result)
        if every_call and not shown:
            return _ASKS_EVERY_TIME.format(reason=result.text, tool=name)
        return _NOT_PUT_TO_THE_USER.format(reason=result.text)


def _model_output(result: ToolCallResult) -> Any:
    """What the model reads: the result's text, or its text and images in order."""
    blocks = result.output.content
    if result.is_error or not any(isinstance(block, ImageBlock) for block in blocks):
        return result.text
    return [
        ToolOutputImage(image_url=f"data:{block.mime_type};base64,{block.data}")
        if isinstance(block, ImageBlock)
        else ToolOutputText(text=block.text)
        for block in blocks
    ]
