"""What the call blocks of one assistant turn came to: calls to run, and calls answered as not
run, each with an id unique in the turn.

The streaming parser (``stream``) finds where blocks open and close; each closed block's
items land here. A call gets its arguments coerced by the tool's schema (values written as
text become the types the tool takes) and the values a neutralised tool result showed restored;
a block that does not parse, a name that cannot be a tool's, or a block the output limit cut
off becomes an ``InvalidToolCall`` whose problem tells the model how to write it instead. The
calls made inside reasoning whose start was in the prompt are retracted: considered, not made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolbelt.core.schema import JsonSchema
from toolbelt.providers.framing import ZWSP, restore_values
from toolbelt.providers.model import InvalidToolCall, ModelToolCall, TextDelta, ToolCallStarted
from toolbelt.providers.textcalls.call_ids import TurnCallIds
from toolbelt.providers.textcalls.call_problems import (
    CUT_OFF,
    is_tool_name,
    not_a_tool_name,
    written_in_reasoning,
)
from toolbelt.providers.textcalls.coerce import coerce_arguments
from toolbelt.providers.textcalls.family import BadCall, Call, Item, Visible

__all__ = ["ParseEvent", "Show", "TurnCalls"]

ParseEvent = TextDelta | ToolCallStarted | ModelToolCall | InvalidToolCall
Show = Callable[[str, list[ParseEvent]], None]
"""How the parser passes visible text on (it keeps the turn's text and its events in order)."""


class TurnCalls:
    """One turn's calls (``calls``) and calls answered as not run (``invalid``)."""

    def __init__(
        self, shape: str, schemas: Mapping[str, JsonSchema], new_id: Callable[[], str]
    ) -> None:
        self._shape = shape
        """The family's call shape, quoted in every correction."""
        self._schemas = schemas
        self._ids = TurnCallIds(new_id)
        self._pending: str | None = None  # the id announced for the open block's first call
        self._raw: dict[str, str] = {}  # each call's text, should it turn out to be reasoning
        self.calls: list[ModelToolCall] = []
        self.invalid: list[InvalidToolCall] = []

    def announce(self, proposed: str | None, name: str) -> ToolCallStarted:
        """The open block's first call, announced as soon as its name is complete."""
        self._pending = self._ids.unique(proposed)
        return ToolCallStarted(self._pending, name)

    def block_ended(self) -> None:
        """The open block is done: an id announced for it is not handed out again."""
        self._pending = None

    def emit(self, items: list[Item], raw: str, events: list[ParseEvent], show: Show) -> None:
        """What a closed block parsed to (``raw``: its text); ``show`` passes on the text of a
        ``Visible`` item."""
        for item in items:
            if isinstance(item, Visible):
                show(item.text, events)
            elif isinstance(item, BadCall):
                call_id = self._take_id(None, item.name, events)
                self._invalid(InvalidToolCall(call_id, item.name, raw, item.problem), events)
            elif not is_tool_name(item.name):
                problem = not_a_tool_name(item.name, self._shape)
                call_id = self._take_id(None, item.name, events)
                self._invalid(InvalidToolCall(call_id, item.name, raw, problem), events)
            else:
                copied = ZWSP in raw or "\\u200b" in raw or "\\u200B" in raw  # JSON may escape it
                self._raw[self._call(item, events, copied=copied)] = raw

    def _call(self, item: Call, events: list[ParseEvent], *, copied: bool) -> str:
        """Emit a parsed call; ``copied``: its text holds what a neutralised result showed."""
        schema = self._schemas.get(item.name)
        arguments: dict[str, Any] = (
            coerce_arguments(item.arguments, schema, raw_text=item.raw_text)
            if schema is not None
            else dict(item.arguments)
        )
        if copied:
            arguments = restore_values(arguments)
        call = ModelToolCall(self._take_id(item.id, item.name, events), item.name, arguments)
        self.calls.append(call)
        events.append(call)
        return call.id

    def retract(self, marker: str) -> None:
        """The text so far was reasoning (its start was in the prompt): the calls in it were
        considered, not made. None of them runs; each was announced, so each is answered as
        not run (the model learns where a call belongs)."""
        problem = written_in_reasoning(marker, self._shape)
        for call in self.calls:
            raw = self._raw.get(call.id, "")
            self.invalid.append(InvalidToolCall(call.id, call.name, raw, problem))
        self.calls.clear()

    def truncated(self, name: str, raw: str, events: list[ParseEvent]) -> None:
        """A block the stream cut off: answered as not run, never runnable."""
        call_id = self._take_id(None, name, events)
        self._invalid(InvalidToolCall(call_id, name, raw, CUT_OFF, truncated=True), events)

    def _invalid(self, call: InvalidToolCall, events: list[ParseEvent]) -> None:
        self.invalid.append(call)
        events.append(call)

    def _take_id(self, proposed: str | None, name: str, events: list[ParseEvent]) -> str:
        """The id announced for this block's first call, or a new one announced now."""
        if self._pending is not None:
            call_id, self._pending = self._pending, None
            return call_id
        call_id = self._ids.unique(proposed)
        events.append(ToolCallStarted(call_id, name))
        return call_id
