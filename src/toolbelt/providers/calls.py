"""Read tool calls out of each provider's response into neutral ``ToolCall``s.

Accepts plain dicts (the JSON from the wire) or SDK objects (anything with ``model_dump``), so
an agent loop can hand over whatever its client returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolbelt.core.executor import ToolCall
from toolbelt.providers.formats import GEMINI_SYNTHETIC_ID_PREFIX

__all__ = [
    "calls_from_anthropic",
    "calls_from_gemini",
    "calls_from_openai_chat",
    "calls_from_openai_responses",
]


def calls_from_anthropic(content: Iterable[Any]) -> list[ToolCall]:
    """``tool_use`` blocks of an Anthropic assistant message (``message.content``)."""
    calls = []
    for block in map(_plain, content):
        if block.get("type") == "tool_use":
            calls.append(ToolCall(block["id"], block["name"], block.get("input") or {}))
    return calls


def calls_from_openai_chat(message: Any) -> list[ToolCall]:
    """``tool_calls`` of a Chat Completions assistant message (arguments stay JSON text)."""
    calls = []
    for call in _plain(message).get("tool_calls") or []:
        function = call.get("function") or {}
        calls.append(ToolCall(call["id"], function.get("name", ""), function.get("arguments")))
    return calls


def calls_from_openai_responses(output: Iterable[Any]) -> list[ToolCall]:
    """``function_call`` items of a Responses ``output`` list, keyed by ``call_id``."""
    calls = []
    for item in map(_plain, output):
        if item.get("type") == "function_call":
            calls.append(ToolCall(item["call_id"], item["name"], item.get("arguments")))
    return calls


def calls_from_gemini(parts: Iterable[Any]) -> list[ToolCall]:
    """``functionCall`` parts of a Gemini candidate; ids are invented when Gemini sent none."""
    calls = []
    for index, part in enumerate(map(_plain, parts)):
        call = part.get("functionCall") or part.get("function_call")
        if not call:
            continue
        call_id = call.get("id") or f"{GEMINI_SYNTHETIC_ID_PREFIX}{index}"
        calls.append(ToolCall(call_id, call.get("name", ""), _whole_numbers(call.get("args"))))
    return calls


def _plain(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        dumped: dict[str, Any] = dump(exclude_none=True)
        return dumped
    raise TypeError(f"Expected a dict or an SDK object, got {type(value).__name__}")


def _whole_numbers(value: Any) -> Any:
    """Gemini sends numbers as protobuf doubles; ``3.0`` for an integer field becomes ``3``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    return value
