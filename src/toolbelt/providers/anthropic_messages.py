"""Anthropic Messages through the official ``anthropic`` SDK, streaming.

Prompt caching: the system prompt and the last tool carry ``cache_control``, and tools keep
the toolset's stable order, so every turn after the first reads the whole prefix from the
cache. A turn with extended thinking keeps its content blocks (thinking with signatures, text,
tool uses) in ``provider_data["anthropic_content"]``; they are sent back verbatim, which the API
requires for thinking that precedes tool use. ``request.options["thinking"]`` is sent as the
API's ``thinking`` parameter (``{"type": "enabled", "budget_tokens": 4000}``).

Deferred tools (``request.deferred_tools``) go in the native form (``deferred``): sent with
``defer_loading``, found by toolbelt's ``tool_search`` — whose results become ``tool_reference``
blocks — or by the API's own search, whose ``server_tool_use`` and ``tool_search_tool_result``
blocks are kept and replayed like thinking blocks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Container
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.providers.deferral import TOOL_SEARCH
from toolbelt.providers.deferred import (
    anthropic_tool_search_result,
    native_search_by_toolbelt,
    request_tool_definitions,
)
from toolbelt.providers.failures import Endpoint
from toolbelt.providers.formats import anthropic_tool_result
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelEvent,
    ModelRequest,
    StopReason,
    ToolResultsMessage,
    TurnComplete,
    Usage,
)
from toolbelt.providers.retry import RetryPolicy
from toolbelt.providers.sdk_client import SdkModelClient
from toolbelt.providers.turn import TurnBuilder
from toolbelt.providers.wire_content import wire_content

__all__ = ["AnthropicClient", "anthropic_messages"]

_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "pause_turn",
}
_REPLAYED = {"thinking", "redacted_thinking", "server_tool_use", "tool_search_tool_result"}
"""Blocks the API needs back verbatim: thinking with its signature, and a server tool's
call and result (its own tool search)."""
_SERVER_INPUT = "_input_json"  # a server tool's streamed input, parsed when the turn ends


class AnthropicClient(SdkModelClient):
    """Claude models over the Messages API."""

    def __init__(self, endpoint: Endpoint, api_key: str, *, retry: RetryPolicy | None = None):
        import anthropic  # the SDK costs a second to import: only when this client is used

        super().__init__(endpoint, retry=retry)
        self._sdk = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=endpoint.base_url, max_retries=0
        )

    async def aclose(self) -> None:
        await self._sdk.close()

    async def _attempt(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        params: dict[str, Any] = {
            "model": self.endpoint.model,
            "max_tokens": request.max_tokens,
            "messages": anthropic_messages(request.messages, native_search_by_toolbelt(request)),
            "stream": True,
        }
        if request.system:
            cached = {"type": "ephemeral"}
            params["system"] = [{"type": "text", "text": request.system, "cache_control": cached}]
        if request.tools:
            params["tools"] = request_tool_definitions(request, "anthropic")
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if "thinking" in request.options:
            params["thinking"] = request.options["thinking"]
        turn = TurnBuilder()
        blocks: dict[int, dict[str, Any]] = {}
        usage = Usage()
        stop: StopReason = "other"
        stream = await self._sdk.messages.create(**params)
        async with stream:
            async for event in stream:
                if event.type == "message_start":
                    usage = _usage(event.message.usage, usage)
                elif event.type == "content_block_start":
                    block = event.content_block.model_dump(exclude_none=True)
                    blocks[event.index] = block
                    if block["type"] == "tool_use":
                        started = turn.start_call(event.index, block["id"], block["name"])
                        if started is not None:
                            yield started
                elif event.type == "content_block_delta":
                    delta = event.delta
                    block = blocks[event.index]
                    if delta.type == "text_delta":
                        if (text := turn.text(delta.text)) is not None:
                            yield text
                    elif delta.type == "input_json_delta":
                        if block["type"] == "tool_use":
                            turn.add_arguments(event.index, delta.partial_json)
                        else:  # a server tool's call, replayed and never run here
                            block[_SERVER_INPUT] = block.get(_SERVER_INPUT, "") + delta.partial_json
                    elif delta.type == "thinking_delta":
                        block["thinking"] = block.get("thinking", "") + delta.thinking
                    elif delta.type == "signature_delta":
                        block["signature"] = block.get("signature", "") + delta.signature
                elif event.type == "message_delta":
                    usage = _usage(event.usage, usage)
                    if event.delta.stop_reason is not None:
                        stop = _STOP.get(event.delta.stop_reason, "other")
        ordered = [_server_input_parsed(blocks[index]) for index in sorted(blocks)]
        done = turn.finish(stop, usage)
        if any(block["type"] in _REPLAYED for block in ordered):
            done = _with_replay(done, ordered)
        yield done


def anthropic_messages(
    transcript: tuple[Message, ...], deferred: Container[str] = frozenset()
) -> list[dict[str, Any]]:
    """The transcript as Messages API ``messages`` (tool results in one user message);
    ``tool_search`` results refer to the tools in ``deferred`` (natively deferred with
    toolbelt's search) by ``tool_reference``."""
    messages: list[dict[str, Any]] = []
    for message in transcript:
        if isinstance(message, AssistantMessage):
            messages.append({"role": "assistant", "content": _assistant_content(message)})
        elif isinstance(message, ToolResultsMessage):
            content = [_tool_result(result, deferred) for result in message.results]
            messages.append({"role": "user", "content": content})
        else:
            messages.append({"role": "user", "content": wire_content(message.content, "anthropic")})
    return messages


def _tool_result(result: ToolCallResult, deferred: Container[str]) -> dict[str, Any]:
    if result.tool == TOOL_SEARCH and deferred:
        return anthropic_tool_search_result(result, deferred)
    return anthropic_tool_result(result)


def _server_input_parsed(block: dict[str, Any]) -> dict[str, Any]:
    """``block`` with a server tool's streamed input parsed into ``input`` (as sent)."""
    raw = block.pop(_SERVER_INPUT, None)
    if raw is None:
        return block
    try:
        block["input"] = json.loads(raw) if raw.strip() else {}
    except ValueError:
        block["input"] = {}  # the API produced it; an unparsable one is replayed empty
    return block


def _assistant_content(message: AssistantMessage) -> list[dict[str, Any]]:
    replay = (message.provider_data or {}).get("anthropic_content")
    if isinstance(replay, list):
        return list(replay)
    content: list[dict[str, Any]] = []
    if message.text:
        content.append({"type": "text", "text": message.text})
    for call in message.tool_calls:
        content.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.arguments)}
        )
    for invalid in message.invalid_calls:  # answered with an error; its input never ran
        content.append({"type": "tool_use", "id": invalid.id, "name": invalid.name, "input": {}})
    return content


def _with_replay(done: TurnComplete, blocks: list[dict[str, Any]]) -> TurnComplete:
    """``done`` carrying its content blocks, tool inputs as parsed (``{}`` for invalid ones)."""
    inputs = {call.id: dict(call.arguments) for call in done.message.tool_calls}
    content = []
    for block in blocks:
        if block["type"] == "tool_use":
            block = {**block, "input": inputs.get(block["id"], {})}
        content.append(block)
    message = AssistantMessage(
        done.message.text,
        done.message.tool_calls,
        done.message.invalid_calls,
        provider_data={"anthropic_content": content},
    )
    return TurnComplete(message, done.usage, done.stop_reason)


def _usage(reported: Any, previous: Usage) -> Usage:
    """Anthropic's counts are cumulative: a later event overwrites what it reports."""

    def pick(name: str, old: int) -> int:
        value = getattr(reported, name, None)
        return value if isinstance(value, int) else old

    return Usage(
        pick("input_tokens", previous.input_tokens),
        pick("output_tokens", previous.output_tokens),
        pick("cache_read_input_tokens", previous.cache_read_tokens),
        pick("cache_creation_input_tokens", previous.cache_write_tokens),
    )
