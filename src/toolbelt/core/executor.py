"""The executor: the one path every tool call takes, whichever door it came through.

For a batch of calls from the model it returns one result per call, in the model's order:

1. **Prepare** each call: look the tool up (unknown → error listing the known tools), parse and
   validate the arguments (invalid → error naming the field, with a correct example).
2. **Segment** the batch: consecutive read-only calls form a group that runs concurrently (at
   most ``max_concurrency`` at once); any other call runs alone, in order. Read-only is
   decided per call (``Tool.is_readonly(args)``), defensively: unknown means mutating. One
   readers–writer gate (``core.gate``) holds across batches too: a mutating call never
   overlaps any other call of this executor, whichever batch or MCP request it came from.
3. **Run** each call: PreToolUse hooks → the tool's own ``access`` declaration → the policy's
   decision → the user's answer if it asks → ``run`` → PostToolUse hooks.
4. **Report**: every state change is an event; a raised ``ToolError`` becomes an error result,
   any other exception an "unexpected failure" result; the executor itself never raises for a
   call. ``cancel()`` turns the running and not-yet-started calls of the batches in flight into
   ``aborted`` results; each batch has its own cancel flag, so a ``run`` right after
   ``cancel()`` neither revives the cancelled batch nor is cancelled itself.

Cancellation is structured: each call runs in its own anyio cancel scope inside a task group,
so cancelling unwinds the tool through its ``finally`` blocks (which kill its processes)
before the result is produced.

This module runs batches and calls under the gate; each other step is a module of its own:
preparing (``call_preparation``), authorizing (``authorization``) and building and recording
the results (``call_results``, where ``ToolCall`` and ``ToolCallResult`` are defined).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from toolbelt.core.access import Access
from toolbelt.core.arguments import parse_arguments
from toolbelt.core.authorization import authorize, read_allowed, with_hook
from toolbelt.core.call_preparation import PreparedCall, prepare, segments
from toolbelt.core.call_results import CallResults, ErrorKind, ToolCall, ToolCallResult, error_kind
from toolbelt.core.content import TextBlock, ToolOutput
from toolbelt.core.context import Session, ToolContext, ToolModel
from toolbelt.core.errors import FatalError, ToolError, UnknownToolError
from toolbelt.core.events import CallState, EventBus, StateEvent
from toolbelt.core.gate import ReadWriteGate
from toolbelt.core.hooks import HookCall, PreToolUseResult, ToolHooks
from toolbelt.core.metrics import ExecutorMetrics
from toolbelt.core.os_errors import tool_error_from_os
from toolbelt.core.permission import (
    Decision,
    NeedsInput,
    PermissionPolicy,
    PermissionRequest,
    PermissionRequester,
)
from toolbelt.core.registry import Toolset
from toolbelt.core.requesters import DenyRequests
from toolbelt.core.tool import Tool
from toolbelt.core.user import NoUser, UserChannel

if TYPE_CHECKING:
    from toolbelt.core.tool_input import ToolInput

__all__ = ["ErrorKind", "Executor", "ToolCall", "ToolCallResult"]

_NO_HOOK = PreToolUseResult()


@dataclass(frozen=True, slots=True)
class _Judged:
    """What the permission step made of a call (``Executor._judged``)."""

    args: ToolInput
    """The arguments the call runs with (a PreToolUse hook may have rewritten them)."""
    hook_call: HookCall | None
    pre: PreToolUseResult
    access: Access
    request: PermissionRequest
    decision: Decision


@dataclass(slots=True)
class _Running:
    scope: anyio.CancelScope
    ctx: ToolContext
    started_at: float = field(default_factory=time.time)


@dataclass(slots=True)
class _Batch:
    """One ``run``: its own cancel flag and running calls, so cancelling it cannot be undone
    by the next ``run`` and cannot reach a batch started after the cancel."""

    cancelled: bool = False
    running: dict[str, _Running] = field(default_factory=dict)

    def cancel(self) -> None:
        self.cancelled = True
        for running in tuple(self.running.values()):
            running.ctx.cancelled = True
            running.scope.cancel()


class Executor:
    """Runs the model's tool calls through validation, hooks, permissions and the tools."""

    def __init__(
        self,
        toolset: Toolset,
        session: Session,
        *,
        policy: PermissionPolicy,
        requester: PermissionRequester | None = None,
        hooks: ToolHooks | None = None,
        events: EventBus | None = None,
        permission_timeout: float = 300.0,
        user: UserChannel | None = None,
        model: ToolModel | None = None,
    ) -> None:
        self.toolset = toolset
        self.session = session
        self._hidden: Callable[[Path], bool] | None = None
        self.policy = policy
        self.requester = requester or DenyRequests()
        self.hooks = hooks or ToolHooks()
        self.events = events or EventBus()
        self.metrics = ExecutorMetrics()
        self._results = CallResults(self.events, self.metrics)
        self.permission_timeout = permission_timeout
        self.user: UserChannel = user or NoUser()
        """How tools reach the person (questions, messages); ``NoUser`` when nobody is there."""
        self.model = model
        """The model tools may use (``ToolContext.model``); None when there is none."""
        self.gate = ReadWriteGate()
        """Read-only calls share it, any other call holds it alone — across batches and doors."""
        self._batches: list[_Batch] = []

    @property
    def policy(self) -> PermissionPolicy:
        """Decides every call; replacing it also replaces what listings hide."""
        return self._policy

    @policy.setter
    def policy(self, policy: PermissionPolicy) -> None:
        self._policy = policy
        self._hidden = policy.hidden_paths()

    async def run(self, calls: Sequence[ToolCall]) -> list[ToolCallResult]:
        """Run a batch of calls; returns exactly one result per call, in the same order."""
        batch = _Batch()
        self._batches.append(batch)
        try:
            return await self._run_batch(batch, calls)
        finally:
            self._batches.remove(batch)

    async def _run_batch(self, batch: _Batch, calls: Sequence[ToolCall]) -> list[ToolCallResult]:
        toolset, built = self.toolset, self._results
        prepared = [prepare(toolset, index, call, built) for index, call in enumerate(calls)]
        if len(prepared) == 1:  # the common case (MCP, the CLI): no segments, no limiter
            only = prepared[0]
            return [only.failure or await self._execute(only, batch)]
        results: list[ToolCallResult | None] = [p.failure for p in prepared]
        limiter: anyio.CapacityLimiter | None = None

        async def run_into(item: PreparedCall) -> None:
            assert limiter is not None
            async with limiter:
                results[item.index] = await self._execute(item, batch)

        for segment in segments([p for p in prepared if p.failure is None]):
            if len(segment) == 1:
                item = segment[0]
                results[item.index] = await self._execute(item, batch)
                continue
            limiter = limiter or anyio.CapacityLimiter(max(1, self.session.config.max_concurrency))
            async with anyio.create_task_group() as group:
                for item in segment:
                    group.start_soon(run_into, item)
        return [r for r in results if r is not None]

    async def run_one(self, call: ToolCall) -> ToolCallResult:
        """Run a single call (what MCP and the CLI do)."""
        return (await self.run([call]))[0]

    def cancel(self) -> None:
        """Abort the batches in flight: their running calls and calls not yet started end
        ``aborted``; a ``run`` started after this call is not affected."""
        for batch in tuple(self._batches):
            batch.cancel()

    async def decide(self, call: ToolCall) -> Decision:
        """What the permission step would decide for ``call`` now, without running it: the
        arguments validated, the PreToolUse hooks (which may decide or rewrite the input),
        the tool's ``access`` declaration and the policy, combined as a run combines them.
        Nobody is asked, nothing is remembered and no event is emitted; configured hooks do
        run (and run again when the call runs). For a door that must know before running
        whether a call needs the user's approval (the OpenAI Agents SDK's ``needs_approval``).

        A call that cannot run at all raises the error its run would report: a ``ToolError``
        for an unknown tool, invalid arguments or arguments ``access`` refuses, a
        ``FatalError`` once the session is closed.
        """
        if self.session.closed:
            raise FatalError("The session is closed; start a new session to run more tools.")
        tool = self.toolset.get(call.name)
        if tool is None:
            raise UnknownToolError(
                self.toolset.why_missing(call.name) or f"There is no tool named `{call.name}`."
            )
        args = parse_arguments(tool, call.arguments)
        dumped = args.model_dump(mode="json")
        ctx = ToolContext(
            self.session,
            call.id,
            call.name,
            EventBus(),  # a decision emits nothing the executor's listeners would see
            read_check=self._read_allowed,
            hidden=self._hidden,
            answer_timeout=self.permission_timeout,
            model=self.model,
        )
        try:
            judged = await self._judged(tool, args, dumped, ctx)
        except OSError as exc:
            raise tool_error_from_os(call.name, exc) from exc
        return judged.decision

    # -- execution ----------------------------------------------------------------------

    async def _execute(self, item: PreparedCall, batch: _Batch) -> ToolCallResult:
        assert item.tool is not None
        assert item.args is not None
        call, started = item.call, time.time()
        if batch.cancelled:
            return self._results.aborted(
                call, started, started_running=False, args=item.args.model_dump(mode="json")
            )
        ctx = ToolContext(
            self.session,
            call.id,
            call.name,
            self.events,
            read_check=self._read_allowed,
            hidden=self._hidden,
            user=self.user.for_call(call.id),
            answer_timeout=self.permission_timeout,
            model=self.model,
        )
        args = item.args.model_dump(mode="json")
        output: ToolOutput | None = None
        error: BaseException | None = None
        waiting: NeedsInput | None = None
        with anyio.CancelScope() as scope:
            batch.running[call.id] = _Running(scope, ctx, started)
            try:
                await self.gate.acquire(shared=item.readonly)
                try:
                    output = await self._pipeline(item.tool, item.args, args, ctx)
                finally:
                    self.gate.release(shared=item.readonly)
            except ToolError as exc:
                error = exc
            except OSError as exc:  # the one place OS failures become model-facing errors
                error = tool_error_from_os(call.name, exc)
            except NeedsInput as exc:
                waiting = exc
            except Exception as exc:
                error = exc
            finally:
                batch.running.pop(call.id, None)
        if waiting is not None and not scope.cancelled_caught:
            return self._results.needs_input(call, waiting.reason, started, args)
        if scope.cancelled_caught or (output is None and error is None):
            return self._results.aborted(call, started, started_running=True, args=args)
        if error is not None:
            return self._results.failure(call, error, error_kind(error), started, args=args)
        assert output is not None
        return self._results.output(call, output, started, args)

    async def _pipeline(
        self, tool: Tool[Any], args: ToolInput, dumped: dict[str, Any], ctx: ToolContext
    ) -> ToolOutput:
        if self.session.closed:
            raise FatalError("The session is closed; start a new session to run more tools.")
        judged = await self._judged(tool, args, dumped, ctx)
        hook_call, pre, args, access = judged.hook_call, judged.pre, judged.args, judged.access
        answer = await authorize(
            judged.request,
            judged.decision,
            policy=self.policy,
            requester=self.requester,
            events=self.events,
            timeout=self.permission_timeout,
        )
        # what was approved is what runs (a command's sandbox profile: the one it was judged
        # safe to run unasked in, or, approved at a prompt, the one the person approved)
        ctx.access = access if answer is None else access.approved_at_prompt()
        if self.events.wants(StateEvent):
            self.events.emit(StateEvent(ctx.call_id, tool.name, CallState.EXECUTING))
        try:
            output = await tool.run(args, ctx)
        except ToolError as exc:
            if hook_call is not None:
                await self._post_hooks(hook_call, {"error": str(exc)}, failed=True)
            raise
        post = ""
        if hook_call is not None:
            result = {"content": output.text_content, "is_error": output.is_error}
            post = await self._post_hooks(hook_call, result, failed=output.is_error)
        extra = "\n".join(t for t in (pre.additional_context, post) if t)
        if extra:
            output = ToolOutput(
                (*output.content, TextBlock(extra)), output.structured, output.is_error
            )
        return output

    async def _judged(
        self, tool: Tool[Any], args: ToolInput, dumped: dict[str, Any], ctx: ToolContext
    ) -> _Judged:
        """The permission step of a call, up to the policy's decision: the PreToolUse hooks
        (which may decide, or rewrite the input), the tool's ``access`` and the policy — what a
        run goes on to authorize, and what ``decide`` answers without running anything."""
        hook_call: HookCall | None = None  # None: the no-op hooks, skipped on the hot path
        pre = _NO_HOOK
        if type(self.hooks) is not ToolHooks:
            subject = await tool.hook_subject(args, dumped)
            hook_call = HookCall(
                ctx.call_id,
                subject.name if subject else tool.name,
                subject.arguments if subject else dumped,
                self.session.id,
                str(self.session.cwd),
                self.policy.mode,
                subject.aliases if subject else (),
            )
            pre = await self.hooks.pre_tool_use(hook_call)
        if pre.updated_input is not None:
            args = parse_arguments(tool, tool.from_hook_input(dumped, pre.updated_input))
            dumped = args.model_dump(mode="json")
        access: Access = await tool.access(args, ctx)
        request = PermissionRequest(
            ctx.call_id, tool.name, dumped, access, tool.is_readonly(args), tool.call_identity(args)
        )
        decision = with_hook(self.policy.decide(request), pre.decision, pre.reason)
        return _Judged(args, hook_call, pre, access, request, decision)

    async def _post_hooks(self, call: HookCall, result: Mapping[str, Any], *, failed: bool) -> str:
        post = await self.hooks.post_tool_use(call, result, failed=failed)
        return "\n".join(t for t in (post.block_reason, post.additional_context) if t)

    def _read_allowed(self, path: Path) -> bool:
        return read_allowed(self.policy, path)
