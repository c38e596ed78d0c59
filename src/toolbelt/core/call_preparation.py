"""Preparing a batch: each call's tool looked up and arguments validated, then the batch cut
into the segments that may run together.

A call that cannot run (no such tool, invalid arguments) gets its result here, before anything
runs: the unknown-tool error lists the tools there are, the invalid-input error names the
field and shows a correct call. Whether a call is read-only is decided per call
(``Tool.is_readonly(args)``), defensively: a check that fails means mutating.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolbelt.core.arguments import parse_arguments
from toolbelt.core.call_results import CallResults, ToolCall, ToolCallResult
from toolbelt.core.errors import InvalidInputError, UnknownToolError
from toolbelt.core.events import CallState, StateEvent
from toolbelt.core.registry import Toolset
from toolbelt.core.tool import Tool

if TYPE_CHECKING:
    from toolbelt.core.tool_input import ToolInput

__all__ = ["PreparedCall", "prepare", "segments"]


@dataclass(slots=True)
class PreparedCall:
    """A call of the batch, ready to run (``tool`` and ``args`` set) or already answered
    (``failure``)."""

    index: int
    call: ToolCall
    tool: Tool[Any] | None = None
    args: ToolInput | None = None
    failure: ToolCallResult | None = None
    readonly: bool = True
    asks_user: bool = False


def prepare(toolset: Toolset, index: int, call: ToolCall, results: CallResults) -> PreparedCall:
    """Look the tool up and validate the arguments; emits the call's ``pending`` state."""
    item = PreparedCall(index, call)
    now = time.time()
    if results.events.wants(StateEvent):
        results.events.emit(StateEvent(call.id, call.name, CallState.PENDING, now))
    tool = toolset.get(call.name)
    if tool is None:
        known = ", ".join(toolset.names())
        error = UnknownToolError(
            toolset.why_missing(call.name)
            or f"There is no tool named `{call.name}`. Call one of the available tools: {known}."
        )
        item.failure = results.failure(call, error, "unknown_tool", now)
        return item
    item.tool = tool
    try:
        item.args = parse_arguments(tool, call.arguments)
    except InvalidInputError as error:
        item.failure = results.failure(call, error, "invalid_input", now)
        return item
    item.asks_user = tool.asks_user
    try:
        item.readonly = bool(tool.is_readonly(item.args))
    except Exception:
        item.readonly = False
    return item


def segments(items: list[PreparedCall]) -> list[list[PreparedCall]]:
    """Consecutive read-only calls share a segment; every other call is a segment alone, and
    so is a call that may ask the person something (``Tool.asks_user``): one terminal, one
    question at a time, and no permission prompt beside it to catch the answer."""
    found: list[list[PreparedCall]] = []
    for item in items:
        shares = item.readonly and not item.asks_user
        if shares and found and found[-1][-1].readonly and not found[-1][-1].asks_user:
            found[-1].append(item)
        else:
            found.append([item])
    return found
