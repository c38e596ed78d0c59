"""``CheckpointToolset``: a toolset whose file-changing and command tools leave checkpoints.

A small wrapper (a ``WrappedToolset``, as ``FilteredToolset`` is): it hands
out the inner toolset's tools, each tool of the ``Edit`` and ``Bash`` rule families wrapped
once, so no tool needs a flag and the executor knows nothing of checkpoints. The wrapper
overrides two methods and delegates the rest:

- ``access``: the tool's own declaration says whether the call runs a command that may write
  (``Access.command`` set and not ``readonly_command``: the command analysis, or the
  read-only profile, found it read-only) — only such a call is snapshotted;
- ``run``: a snapshotted call is bracketed by snapshots of the workspace; one that starts a
  background job gets its after-snapshot when the job ends (``Checkpoints.watch_job``). The
  file tools record their own before-images (``journal``). When nothing could be recorded,
  the result says the change is not undoable — the call itself never fails for that.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio

from toolbelt.checkpoints.journal import NOT_UNDOABLE, failure, not_undoable
from toolbelt.checkpoints.session import Checkpoints
from toolbelt.core.access import Access
from toolbelt.core.content import TextBlock, ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.registry import AnyTool, Toolset, WrappedToolset
from toolbelt.core.rule_identity import RuleIdentity
from toolbelt.core.schema import JsonSchema
from toolbelt.core.tool import HookSubject, Tool

if TYPE_CHECKING:  # the snapshot machinery loads with the first command that snapshots
    from toolbelt.checkpoints.store import PendingSnapshot
    from toolbelt.core.tool_input import ToolInput

__all__ = ["CheckpointToolset", "CheckpointedTool"]

FAMILIES = frozenset({"Edit", "Bash"})


class CheckpointToolset(WrappedToolset):
    """``inner``'s tools, those that change files or run commands wrapped to leave checkpoints."""

    def __init__(self, inner: Toolset, checkpoints: Checkpoints) -> None:
        super().__init__(inner)
        self._checkpoints = checkpoints
        self._wrapped: dict[int, tuple[AnyTool, AnyTool]] = {}

    def _wrap(self, tool: AnyTool) -> AnyTool:
        if tool.readonly or tool.rule_identity().family not in FAMILIES:
            return tool
        held = self._wrapped.get(id(tool))
        if held is None or held[0] is not tool:
            held = self._wrapped[id(tool)] = (tool, CheckpointedTool(tool, self._checkpoints))
        return held[1]

    def tools(self) -> tuple[AnyTool, ...]:
        return tuple(self._wrap(tool) for tool in self.inner.tools())

    def get(self, name: str) -> AnyTool | None:
        tool = self.inner.get(name)
        return None if tool is None else self._wrap(tool)

    def names(self) -> tuple[str, ...]:
        return self.inner.names()

    async def list_tools(self) -> tuple[AnyTool, ...]:
        return tuple(self._wrap(tool) for tool in await self.inner.list_tools())


class CheckpointedTool(Tool[Any]):
    """``inner`` as the model and the policy see it; its calls leave checkpoints."""

    def __init__(self, inner: AnyTool, checkpoints: Checkpoints) -> None:
        self.inner = inner
        self._checkpoints = checkpoints
        self.name, self.title, self.description = inner.name, inner.title, inner.description
        self.example = inner.example
        self.hints = inner.hints
        self.programmatic, self.claude_name = inner.programmatic, inner.claude_name
        self.rule_family, self.rule_target = inner.rule_family, inner.rule_target
        self.rule_aliases = inner.rule_aliases

    @property
    def input_model(self) -> type[ToolInput]:  # type: ignore[override]  # a class's, per instance
        """The inner tool's model (validation and schemas are the inner tool's)."""
        return self.inner.input_model

    def rule_identity(self) -> RuleIdentity:
        return self.inner.rule_identity()

    async def hook_subject(self, args: Any, dumped: dict[str, Any]) -> HookSubject:
        return await self.inner.hook_subject(args, dumped)

    def from_hook_input(self, dumped: dict[str, Any], updated: Mapping[str, Any]) -> dict[str, Any]:
        return self.inner.from_hook_input(dumped, updated)

    def call_identity(self, args: Any) -> RuleIdentity:
        return self.inner.call_identity(args)

    def input_schema(self) -> JsonSchema:
        return self.inner.input_schema()

    def output_schema(self) -> JsonSchema | None:
        return self.inner.output_schema()

    def validate(self, arguments: Mapping[str, Any]) -> Any:
        return self.inner.validate(arguments)

    def is_readonly(self, args: Any) -> bool:
        return self.inner.is_readonly(args)

    async def access(self, args: Any, ctx: ToolContext) -> Access:
        return await self.inner.access(args, ctx)

    async def run(self, args: Any, ctx: ToolContext) -> ToolOutput:
        # the access the executor approved says whether the command may write
        approved = ctx.access.command if ctx.access is not None else None
        command = approved.text if approved is not None and not approved.readonly else None
        if command is None:
            return _noted(await self.inner.run(args, ctx), ctx)
        pending = await self._begin(ctx, command)
        try:
            output = await self.inner.run(args, ctx)
        except BaseException:
            if pending is not None:
                await self._end(ctx, pending)
            raise
        if pending is not None:
            ended = _job_end(ctx, output)
            if ended is not None:
                self._checkpoints.watch_job(pending, ended)
            else:
                await self._end(ctx, pending)
        return _noted(output, ctx)

    async def _begin(self, ctx: ToolContext, command: str) -> PendingSnapshot | None:
        from toolbelt.checkpoints.shadow_git import GitFailed

        call = self._checkpoints.call(ctx.call_id, ctx.tool_name)
        try:
            return await anyio.to_thread.run_sync(self._checkpoints.begin_command, call, command)
        except (OSError, GitFailed, ValueError) as exc:
            not_undoable(
                ctx, f"the workspace could not be snapshotted before it ran ({failure(exc)})"
            )
            return None

    async def _end(self, ctx: ToolContext, pending: PendingSnapshot) -> None:
        from toolbelt.checkpoints.shadow_git import GitFailed

        with anyio.CancelScope(shield=True):  # a cancelled command changed files too
            try:
                await anyio.to_thread.run_sync(self._checkpoints.end_command, pending)
            except (OSError, GitFailed, ValueError) as exc:
                not_undoable(
                    ctx, f"the workspace could not be snapshotted after it ran ({failure(exc)})"
                )


def _job_end(ctx: ToolContext, output: ToolOutput) -> threading.Event | None:
    """The event set when the background job this call started ends, or None when it
    started none."""
    from toolbelt.shell.jobs import JobManager  # loaded with the shell, when a job started

    job_id = (output.structured or {}).get("id")
    jobs = ctx.session.peek(JobManager)
    if not isinstance(job_id, str) or jobs is None:
        return None
    try:
        return jobs.get(job_id).output.ended
    except ToolError:
        return None


def _noted(output: ToolOutput, ctx: ToolContext) -> ToolOutput:
    reason = ctx.scratch.get(NOT_UNDOABLE)
    if reason is None:
        return output
    note = TextBlock(f"[This change is not undoable: {reason}.]")
    return ToolOutput((*output.content, note), output.structured, output.is_error)
