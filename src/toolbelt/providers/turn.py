"""Assemble one streamed assistant turn into the neutral ``TurnComplete``.

Every client feeds the same builder: text as it arrives, each tool call's name when it is
known, argument fragments as they stream. At the end the builder parses each call's arguments
once: a JSON object becomes a ``ModelToolCall``; anything else becomes an ``InvalidToolCall``
whose ``problem`` tells the model the shape that works. When the turn stopped on
``max_tokens`` the last call is the one the limit cut off, so it is never run, whatever its
arguments happen to look like.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolbelt.core.strict_json import strict_loads
from toolbelt.providers.model import (
    AssistantMessage,
    InvalidToolCall,
    ModelToolCall,
    StopReason,
    TextDelta,
    ToolCallStarted,
    TurnComplete,
    Usage,
)

__all__ = ["TurnBuilder", "parse_call"]


@dataclass(slots=True)
class _PendingCall:
    id: str
    name: str
    fragments: list[str] = field(default_factory=list)
    parsed: Mapping[str, Any] | None = None


class TurnBuilder:
    """Collects one turn's text and calls in arrival order; ``finish`` builds the result."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls: dict[object, _PendingCall] = {}

    def text(self, fragment: str) -> TextDelta | None:
        """Record visible text; the event to yield (None for an empty fragment)."""
        if not fragment:
            return None
        self._text.append(fragment)
        return TextDelta(fragment)

    def start_call(self, key: object, call_id: str, name: str) -> ToolCallStarted | None:
        """Open the call ``key`` (an index or item id); None if it was already open.

        Some OpenAI-compatible servers repeat the id and name in every fragment: they are
        kept from the first one, never concatenated.
        """
        if key in self._calls:
            return None
        self._calls[key] = _PendingCall(call_id, name)
        return ToolCallStarted(call_id, name)

    def has_call(self, key: object) -> bool:
        return key in self._calls

    def add_arguments(self, key: object, fragment: str) -> None:
        """Append a streamed fragment of the call's JSON arguments."""
        self._calls[key].fragments.append(fragment)

    def set_arguments(self, key: object, arguments: str | Mapping[str, Any]) -> None:
        """Replace the call's arguments with the provider's final, whole value."""
        call = self._calls[key]
        if isinstance(arguments, str):
            call.fragments = [arguments]
            call.parsed = None
        else:
            call.fragments = [json.dumps(arguments, ensure_ascii=False)]
            call.parsed = arguments

    @property
    def text_so_far(self) -> str:
        return "".join(self._text)

    def finish(
        self,
        stop_reason: StopReason,
        usage: Usage,
        provider_data: Mapping[str, Any] | None = None,
    ) -> TurnComplete:
        """The turn as one ``TurnComplete``; a ``tool_use`` stop without calls is ``end_turn``."""
        calls: list[ModelToolCall] = []
        invalid: list[InvalidToolCall] = []
        pending = list(self._calls.values())
        for position, call in enumerate(pending):
            cut = stop_reason == "max_tokens" and position == len(pending) - 1
            parsed = parse_call(call.id, call.name, "".join(call.fragments), truncated=cut)
            if isinstance(parsed, InvalidToolCall):
                invalid.append(parsed)
            elif call.parsed is not None:  # keep the provider's own object (no JSON round trip)
                calls.append(ModelToolCall(call.id, call.name, call.parsed))
            else:
                calls.append(parsed)
        if stop_reason == "tool_use" and not pending:
            stop_reason = "end_turn"
        elif stop_reason == "end_turn" and pending:
            stop_reason = "tool_use"  # Gemini and forced OpenAI calls say "stop" with calls
        message = AssistantMessage(
            "".join(self._text), tuple(calls), tuple(invalid), provider_data=provider_data
        )
        return TurnComplete(message, usage, stop_reason)


def parse_call(
    call_id: str, name: str, raw: str, *, truncated: bool = False
) -> ModelToolCall | InvalidToolCall:
    """One call's raw JSON arguments as a runnable call, or the reason it cannot run."""
    if truncated:
        return InvalidToolCall(
            call_id,
            name,
            raw,
            f"The call to {name} was cut off by the output token limit before its arguments "
            "were complete, so it was not run; make the call again with shorter arguments "
            "(for example, write a large file in several smaller edits).",
            truncated=True,
        )
    if not raw.strip():
        return ModelToolCall(call_id, name, {})  # a tool without arguments streams nothing
    try:
        value = strict_loads(raw)
    except ValueError as error:
        return InvalidToolCall(
            call_id,
            name,
            raw,
            f"The arguments of {name} are not valid JSON ({_reason(error)}), so it was not run; "
            'send one JSON object of named arguments, for example {"path": "src/app.py"}.',
        )
    if not isinstance(value, dict):
        return InvalidToolCall(
            call_id,
            name,
            raw,
            f"The arguments of {name} must be a JSON object of named arguments, not "
            f'{_json_kind(value)}, so it was not run; send for example {{"path": "src/app.py"}}.',
        )
    return ModelToolCall(call_id, name, value)


def _reason(error: ValueError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at character {error.pos}"
    return str(error)


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"
