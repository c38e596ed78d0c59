"""Messages as JSON and back, exactly: what a saved session holds and a resumed one sends.

A resumed conversation must send the provider what the original would have sent next, so the
whole message is kept — text, parsed calls, malformed calls with their problem, what the
provider asked to have replayed (``provider_data``: thinking signatures, reasoning items,
Gemini parts, already JSON-shaped by the clients), and each result's content blocks,
structured data, state and timing. Short keys keep a 1,000-turn file small and quick to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from toolbelt.core.content import ContentBlock, ImageBlock, TextBlock, ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ErrorKind, ToolCallResult
from toolbelt.providers.model import (
    AssistantMessage,
    InvalidToolCall,
    Message,
    ModelToolCall,
    ToolResultsMessage,
    Usage,
    UserMessage,
)

__all__ = ["message_from_json", "message_to_json", "usage_from_json", "usage_to_json"]


def message_to_json(message: Message) -> dict[str, Any]:
    """``message`` as a JSON-able dict (``message_from_json`` reads it back)."""
    if isinstance(message, UserMessage):
        return {"role": "user", "content": [_block_to_json(b) for b in message.content]}
    if isinstance(message, AssistantMessage):
        data: dict[str, Any] = {"role": "assistant", "text": message.text}
        if message.tool_calls:
            data["calls"] = [[c.id, c.name, dict(c.arguments)] for c in message.tool_calls]
        if message.invalid_calls:
            data["invalid"] = [
                [c.id, c.name, c.raw, c.problem, c.truncated] for c in message.invalid_calls
            ]
        if message.provider_data is not None:
            data["provider"] = dict(message.provider_data)
        return data
    return {"role": "tool", "results": [_result_to_json(r) for r in message.results]}


def message_from_json(data: Mapping[str, Any]) -> Message:
    """The message ``message_to_json`` wrote; ``ValueError`` for anything else."""
    role = data.get("role")
    if role == "user":
        return UserMessage(tuple(_block_from_json(b) for b in data["content"]))
    if role == "assistant":
        calls = tuple(ModelToolCall(i, n, a) for i, n, a in data.get("calls", ()))
        invalid = tuple(
            InvalidToolCall(i, n, raw, problem, bool(cut))
            for i, n, raw, problem, cut in data.get("invalid", ())
        )
        return AssistantMessage(str(data["text"]), calls, invalid, data.get("provider"))
    if role == "tool":
        return ToolResultsMessage(tuple(_result_from_json(r) for r in data["results"]))
    raise ValueError(f"not a saved message: role {role!r}")


def usage_to_json(usage: Usage) -> list[int]:
    """``usage`` as four numbers: input, output, cache read, cache write."""
    return [
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    ]


def usage_from_json(data: list[int]) -> Usage:
    """The usage ``usage_to_json`` wrote."""
    return Usage(*data)


def _block_to_json(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"t": block.text}
    return {"image": block.data, "mime": block.mime_type}


def _block_from_json(data: Mapping[str, Any]) -> TextBlock | ImageBlock:
    if "t" in data:
        return TextBlock(str(data["t"]))
    return ImageBlock(str(data["image"]), str(data["mime"]))


def _result_to_json(result: ToolCallResult) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": result.call_id,
        "tool": result.tool,
        "state": result.state.value,
        "content": [_block_to_json(b) for b in result.output.content],
        "at": [result.started_at, result.ended_at],
    }
    if result.output.structured is not None:
        data["structured"] = dict(result.output.structured)
    if result.output.is_error:
        data["is_error"] = True
    if result.error_kind is not None:
        data["kind"] = result.error_kind
    if result.arguments is not None:
        data["arguments"] = dict(result.arguments)
    return data


def _result_from_json(data: Mapping[str, Any]) -> ToolCallResult:
    output = ToolOutput(
        tuple(_block_from_json(b) for b in data["content"]),
        data.get("structured"),
        bool(data.get("is_error", False)),
    )
    started, ended = data.get("at", (0.0, 0.0))
    return ToolCallResult(
        str(data["id"]),
        str(data["tool"]),
        CallState(data["state"]),
        output,
        cast("ErrorKind | None", data.get("kind")),
        float(started),
        float(ended),
        data.get("arguments"),
    )
