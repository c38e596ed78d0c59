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
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.arguments import parse_arguments
from toolbelt.core.content import TextBlock, ToolOutput
from toolbelt.core.context import Session, ToolContext
from toolbelt.core.errors import (
    FatalError,
    InvalidInputError,
    PathError,
    PermissionDeniedError,
    ToolError,
    UnknownToolError,
)
from toolbelt.core.events import CallState, EventBus, StateEvent
from toolbelt.core.gate import ReadWriteGate
from toolbelt.core.identity import FILE_READ
from toolbelt.core.metrics import ExecutorMetrics
from toolbelt.core.os_errors import tool_error_from_os
from toolbelt.core.registry import Toolset
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.user import NoUser, UserChannel
from toolbelt.hooks.base import HookCall, PreToolUseResult, ToolHooks
from toolbelt.permissions.basic import DenyRequests
from toolbelt.permissions.decision import (
    Allow,
    Approval,
    Ask,
    Decision,
    Deny,
    NeedsInput,
    PermissionPolicy,
    PermissionRequest,
    PermissionRequester,
)

__all__ = ["ErrorKind", "Executor", "ToolCall", "ToolCallResult"]

_NO_HOOK = PreToolUseResult()

ErrorKind = Literal[
    "unknown_tool", "invalid_input", "permission_denied", "tool_error", "internal_error", "aborted"
]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call as the model made it: its id, the tool name, raw arguments (JSON text or dict)."""

    id: str
    name: str
    arguments: str | Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolCallResult:
    """The one result a call yields, whatever happened to it."""

    call_id: str
    tool: str
    state: CallState
    output: ToolOutput
    error_kind: ErrorKind | None = None
    started_at: float = 0.0
    ended_at: float = 0.0
    arguments: Mapping[str, Any] | None = None

    @property
    def is_error(self) -> bool:
        """True unless the call succeeded; this is what providers send as ``is_error``."""
        return self.state is not CallState.SUCCESS

    @property
    def text(self) -> str:
        """The model-facing text of the result."""
        return self.output.text_content

    @property
    def duration(self) -> float:
        """Seconds from the start of execution (or preparation) to the end."""
        return max(0.0, self.ended_at - self.started_at)


@dataclass(slots=True)
class _Prepared:
    index: int
    call: ToolCall
    tool: Tool[Any] | None = None
    args: ToolInput | None = None
    failure: ToolCallResult | None = None
    readonly: bool = True


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
        policy: PermissionPolicy | None = None,
        requester: PermissionRequester | None = None,
        hooks: ToolHooks | None = None,
        events: EventBus | None = None,
        permission_timeout: float = 300.0,
        user: UserChannel | None = None,
    ) -> None:
        self.toolset = toolset
        self.session = session
        self._hidden: Callable[[Path], bool] | None = None
        self.policy = policy or _default_policy(session)
        self.requester = requester or DenyRequests()
        self.hooks = hooks or ToolHooks()
        self.events = events or EventBus()
        self.metrics = ExecutorMetrics()
        self.permission_timeout = permission_timeout
        self.user: UserChannel = user or NoUser()
        """How tools reach the person (questions, messages); ``NoUser`` when nobody is there."""
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
        prepared = [self._prepare(index, call) for index, call in enumerate(calls)]
        if len(prepared) == 1:  # the common case (MCP, the CLI): no segments, no limiter
            only = prepared[0]
            return [only.failure or await self._execute(only, batch)]
        results: list[ToolCallResult | None] = [p.failure for p in prepared]
        limiter: anyio.CapacityLimiter | None = None

        async def run_into(item: _Prepared) -> None:
            assert limiter is not None
            async with limiter:
                results[item.index] = await self._execute(item, batch)

        for segment in _segments([p for p in prepared if p.failure is None]):
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

    # -- preparation --------------------------------------------------------------------

    def _prepare(self, index: int, call: ToolCall) -> _Prepared:
        item = _Prepared(index, call)
        now = time.time()
        self.events.emit(StateEvent(call.id, call.name, CallState.PENDING, now))
        tool = self.toolset.get(call.name)
        if tool is None:
            known = ", ".join(self.toolset.names())
            error = UnknownToolError(
                f"There is no tool named `{call.name}`. Call one of the available tools: {known}."
            )
            item.failure = self._finish(call, None, error, "unknown_tool", now)
            return item
        item.tool = tool
        try:
            item.args = parse_arguments(tool, call.arguments)
        except InvalidInputError as error:
            item.failure = self._finish(call, None, error, "invalid_input", now)
            return item
        try:
            item.readonly = bool(tool.is_readonly(item.args))
        except Exception:
            item.readonly = False
        return item

    # -- execution ----------------------------------------------------------------------

    async def _execute(self, item: _Prepared, batch: _Batch) -> ToolCallResult:
        assert item.tool is not None
        assert item.args is not None
        call, started = item.call, time.time()
        if batch.cancelled:
            return self._aborted(
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
            return self._needs_input(call, waiting.reason, started, args)
        if scope.cancelled_caught or (output is None and error is None):
            return self._aborted(call, started, started_running=True, args=args)
        if error is not None:
            kind = _error_kind(error)
            return self._finish(call, item.tool, error, kind, started, args=args)
        assert output is not None
        state = CallState.ERROR if output.is_error else CallState.SUCCESS
        result = ToolCallResult(
            call.id,
            call.name,
            state,
            output,
            "tool_error" if output.is_error else None,
            started,
            time.time(),
            args,
        )
        return self._record(result)

    async def _pipeline(
        self, tool: Tool[Any], args: ToolInput, dumped: dict[str, Any], ctx: ToolContext
    ) -> ToolOutput:
        if self.session.closed:
            raise FatalError("The session is closed; start a new session to run more tools.")
        hooked = type(self.hooks) is not ToolHooks  # skip the no-op hooks on the hot path
        hook_call = HookCall(
            ctx.call_id, tool.name, dumped, self.session.id, str(self.session.cwd), self.policy.mode
        )
        pre = await self.hooks.pre_tool_use(hook_call) if hooked else _NO_HOOK
        if pre.updated_input is not None:
            args = parse_arguments(tool, pre.updated_input)
            dumped = args.model_dump(mode="json")
        access: Access = await tool.access(args, ctx)
        request = PermissionRequest(
            ctx.call_id, tool.name, dumped, access, tool.is_readonly(args), tool.rule_identity()
        )
        decision = _with_hook(self.policy.decide(request), pre.decision, pre.reason)
        await self._authorize(request, decision, ctx)
        self.events.emit(StateEvent(ctx.call_id, tool.name, CallState.EXECUTING))
        try:
            output = await tool.run(args, ctx)
        except ToolError as exc:
            if hooked:
                await self._post_hooks(hook_call, {"error": str(exc)}, failed=True)
            raise
        post = ""
        if hooked:
            result = {"content": output.text_content, "is_error": output.is_error}
            post = await self._post_hooks(hook_call, result, failed=output.is_error)
        extra = "\n".join(t for t in (pre.additional_context, post) if t)
        if extra:
            output = ToolOutput(
                (*output.content, TextBlock(extra)), output.structured, output.is_error
            )
        return output

    async def _post_hooks(self, call: HookCall, result: Mapping[str, Any], *, failed: bool) -> str:
        post = await self.hooks.post_tool_use(call, result, failed=failed)
        return "\n".join(t for t in (post.block_reason, post.additional_context) if t)

    async def _authorize(
        self, request: PermissionRequest, decision: Decision, ctx: ToolContext
    ) -> None:
        match decision:
            case Allow():
                return
            case Deny(reason=reason):
                raise PermissionDeniedError(reason)
            case Ask() as ask:
                self.events.emit(
                    StateEvent(
                        ctx.call_id, request.tool, CallState.PERMISSION_REQUIRED, detail=ask.reason
                    )
                )
                answer = None
                with anyio.move_on_after(self.permission_timeout):
                    answer = await self.requester.ask(request, ask)
                if answer is None:
                    raise PermissionDeniedError(
                        f"No answer to the permission prompt within {self.permission_timeout:g} s,"
                        " so the call was denied; ask the user before trying again."
                    )
                if not answer.allowed:
                    reason = answer.reason or "The user denied this call."
                    raise PermissionDeniedError(
                        f"{reason} Do not retry the same call; ask the user how to proceed."
                        if not answer.reason
                        else reason
                    )
                if answer.approval in (Approval.SESSION, Approval.ALWAYS) and ask.remember:
                    self.policy.remember(request, answer)

    def _read_allowed(self, path: Path) -> bool:
        """Whether read_file of ``path`` would run without asking (what output may quote)."""
        access = Access(AccessKind.READ, paths=(path,), summary=f"read {path}")
        request = PermissionRequest(
            "", "read_file", {"path": str(path)}, access, readonly=True, identity=FILE_READ
        )
        return isinstance(self.policy.decide(request), Allow)

    # -- results ------------------------------------------------------------------------

    def _finish(
        self,
        call: ToolCall,
        tool: Tool[Any] | None,
        error: BaseException,
        kind: ErrorKind,
        started: float,
        *,
        args: Mapping[str, Any] | None = None,
    ) -> ToolCallResult:
        if isinstance(error, ToolError | FatalError):  # both are written for the model
            message = str(error)
        else:
            message = (
                f"`{call.name}` failed unexpectedly ({type(error).__name__}: {error}). "
                "This is a bug in the tool, not in your call; try another approach."
            )
        result = ToolCallResult(
            call.id,
            call.name,
            CallState.ERROR,
            ToolOutput.text(message, {"error": message, "kind": kind}, is_error=True),
            kind,
            started,
            time.time(),
            args,
        )
        return self._record(result)

    def _aborted(
        self,
        call: ToolCall,
        started: float,
        *,
        started_running: bool,
        args: Mapping[str, Any] | None,
    ) -> ToolCallResult:
        ended = time.time()
        if started_running:
            message = f"Aborted after {ended - started:.1f} s: the call was cancelled."
        else:
            message = "Aborted before it started: the batch was cancelled."
        result = ToolCallResult(
            call.id,
            call.name,
            CallState.ABORTED,
            ToolOutput.text(message, {"error": message, "kind": "aborted"}, is_error=True),
            "aborted",
            started,
            ended,
            args,
        )
        return self._record(result)

    def _needs_input(
        self, call: ToolCall, reason: str, started: float, args: Mapping[str, Any]
    ) -> ToolCallResult:
        result = ToolCallResult(
            call.id,
            call.name,
            CallState.NEEDS_INPUT,
            ToolOutput.text(reason, {"needs_input": reason}),
            None,
            started,
            time.time(),
            args,
        )
        return self._record(result)

    def _record(self, result: ToolCallResult) -> ToolCallResult:
        self.metrics.record(result.tool, result.state, result.error_kind, result.duration)
        detail = result.text if result.is_error else ""  # needs_input: what it waits for
        self.events.emit(
            StateEvent(result.call_id, result.tool, result.state, result.ended_at, detail)
        )
        return result


def _default_policy(session: Session) -> PermissionPolicy:
    from toolbelt.permissions.factory import build_policy

    return build_policy(session)


def _segments(items: list[_Prepared]) -> list[list[_Prepared]]:
    """Consecutive read-only calls share a segment; every other call is a segment alone."""
    segments: list[list[_Prepared]] = []
    for item in items:
        if item.readonly and segments and segments[-1][-1].readonly:
            segments[-1].append(item)
        else:
            segments.append([item])
    return segments


def _with_hook(decision: Decision, hook: str | None, reason: str) -> Decision:
    """Combine the policy's decision with a PreToolUse hook's: deny > ask > allow."""
    if hook == "deny":
        return Deny(reason or "A PreToolUse hook blocked this call.")
    if isinstance(decision, Deny):
        return decision
    if hook == "ask" and isinstance(decision, Allow):
        return Ask(
            reason or "A PreToolUse hook asks for approval of this call.",
            forced=True,
            remedy="leave this step to the user (a PreToolUse hook asks for it, whatever the "
            "rules and the mode say)",
        )
    if hook == "allow" and isinstance(decision, Ask) and not decision.forced:
        return Allow(reason or "allowed by a PreToolUse hook")
    return decision


def _error_kind(error: BaseException) -> ErrorKind:
    if isinstance(error, PermissionDeniedError):
        return "permission_denied"
    if isinstance(error, InvalidInputError):
        return "invalid_input"
    if isinstance(error, UnknownToolError):
        return "unknown_tool"
    if isinstance(error, ToolError | PathError):
        return "tool_error"
    return "internal_error"
