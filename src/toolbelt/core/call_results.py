"""What a call yields: its one ``ToolCallResult``, built and recorded whatever happened to it.

Every final state — success, an error the tool reported, a failure before or while running,
an abort, a wait for the user's input — becomes exactly one result for the model, and each is
recorded the same way: the executor's metrics and the final state event UIs and logs follow.
A ``ToolError`` (or ``FatalError``) is already written for the model and is shown as it is;
any other exception is a bug in the tool, and the model is told so in one sentence.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolbelt.core.content import ToolOutput
from toolbelt.core.errors import (
    FatalError,
    InvalidInputError,
    PathError,
    PermissionDeniedError,
    ToolError,
    UnknownToolError,
)
from toolbelt.core.events import CallState, EventBus, StateEvent
from toolbelt.core.metrics import ExecutorMetrics

__all__ = ["CallResults", "ErrorKind", "ToolCall", "ToolCallResult", "error_kind"]

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


class CallResults:
    """Builds each call's result and records it in ``metrics`` and on ``events``."""

    def __init__(self, events: EventBus, metrics: ExecutorMetrics) -> None:
        self.events = events
        self.metrics = metrics

    def output(
        self, call: ToolCall, output: ToolOutput, started: float, args: Mapping[str, Any]
    ) -> ToolCallResult:
        """The tool ran: a success, or an error the tool reported in its output."""
        state = CallState.ERROR if output.is_error else CallState.SUCCESS
        kind: ErrorKind | None = "tool_error" if output.is_error else None
        return self.record(
            ToolCallResult(call.id, call.name, state, output, kind, started, time.time(), args)
        )

    def failure(
        self,
        call: ToolCall,
        error: BaseException,
        kind: ErrorKind,
        started: float,
        *,
        args: Mapping[str, Any] | None = None,
    ) -> ToolCallResult:
        """The call failed with ``error`` (refused, invalid, or raised by the tool)."""
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
        return self.record(result)

    def aborted(
        self,
        call: ToolCall,
        started: float,
        *,
        started_running: bool,
        args: Mapping[str, Any] | None,
    ) -> ToolCallResult:
        """The call was cancelled, while it ran or before it started."""
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
        return self.record(result)

    def needs_input(
        self, call: ToolCall, reason: str, started: float, args: Mapping[str, Any]
    ) -> ToolCallResult:
        """The call waits for the user's input, which arrives with a later retry."""
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
        return self.record(result)

    def record(self, result: ToolCallResult) -> ToolCallResult:
        """Count ``result`` in the metrics and emit its final state."""
        self.metrics.record(result.tool, result.state, result.error_kind, result.duration)
        if self.events.wants(StateEvent):
            detail = result.text if result.is_error else ""  # needs_input: what it waits for
            self.events.emit(
                StateEvent(result.call_id, result.tool, result.state, result.ended_at, detail)
            )
        return result


def error_kind(error: BaseException) -> ErrorKind:
    """The kind of result a raised ``error`` makes."""
    if isinstance(error, PermissionDeniedError):
        return "permission_denied"
    if isinstance(error, InvalidInputError):
        return "invalid_input"
    if isinstance(error, UnknownToolError):
        return "unknown_tool"
    if isinstance(error, ToolError | PathError):
        return "tool_error"
    return "internal_error"
