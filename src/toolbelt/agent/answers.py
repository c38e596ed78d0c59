"""The results the loop writes itself, for calls the executor never ran.

A call the model could not make well (``InvalidToolCall``) and a call left unanswered by a
cancellation still get exactly one result each, so every provider accepts the transcript that
follows: Anthropic and OpenAI both reject a tool call without its answer.
"""

from __future__ import annotations

import time

from toolbelt.core.content import ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCall, ToolCallResult
from toolbelt.providers.model import InvalidToolCall, ModelToolCall

__all__ = ["aborted_result", "executor_call", "invalid_call_result"]


def executor_call(call: ModelToolCall) -> ToolCall:
    """The executor's view of a call the model made."""
    return ToolCall(call.id, call.name, dict(call.arguments))


def invalid_call_result(call: InvalidToolCall) -> ToolCallResult:
    """An error result whose text is the call's ``problem``: what was wrong, what works."""
    now = time.time()
    output = ToolOutput.text(
        call.problem, {"error": call.problem, "kind": "invalid_input"}, is_error=True
    )
    return ToolCallResult(call.id, call.name, CallState.ERROR, output, "invalid_input", now, now)


def aborted_result(call: ModelToolCall) -> ToolCallResult:
    """The answer to a call that a cancellation ended before the executor could answer it."""
    now = time.time()
    message = "Aborted: the run was cancelled before this call finished."
    output = ToolOutput.text(message, {"error": message, "kind": "aborted"}, is_error=True)
    return ToolCallResult(
        call.id, call.name, CallState.ABORTED, output, "aborted", now, now, dict(call.arguments)
    )
