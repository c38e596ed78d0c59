"""OpenAI Chat Completions, and every OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM
Studio), through the official ``openai`` SDK, streaming.

Tool calls stream as fragments keyed by ``index``: the id and name come once (kept from the
first fragment even when a server repeats them), the arguments are concatenated. Chat
Completions tool messages carry text only, so images a tool returned follow the tool messages
in one user message, each introduced by the call it came from.
``request.options["reasoning_effort"]`` is sent as is (``"low"``, ``"medium"``, ``"high"``).
With ``neutralise_untrusted`` (every server but OpenAI's own API, see ``open.py``) the untrusted
text of each request has its chat-template special tokens broken (``untrusted``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

from toolbelt.core.content import ContentBlock, ImageBlock, TextBlock
from toolbelt.providers.failures import Endpoint
from toolbelt.providers.formats import openai_chat_tool_message, tool_definitions
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelEvent,
    ModelRequest,
    StopReason,
    ToolCallStarted,
    ToolResultsMessage,
    Usage,
)
from toolbelt.providers.openai_sdk import OpenAISdkClient
from toolbelt.providers.retry import RetryPolicy
from toolbelt.providers.turn import TurnBuilder
from toolbelt.providers.untrusted import arguments_as_written
from toolbelt.providers.wire_content import wire_content

__all__ = ["OpenAIChatClient", "chat_messages"]

_STOP: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


class OpenAIChatClient(OpenAISdkClient):
    """Chat Completions at OpenAI or at any server that speaks its wire format."""

    def __init__(
        self,
        endpoint: Endpoint,
        api_key: str,
        *,
        compatible: bool = False,
        neutralise_untrusted: bool = False,
        retry: RetryPolicy | None = None,
    ) -> None:
        super().__init__(endpoint, api_key, neutralise_untrusted=neutralise_untrusted, retry=retry)
        self._compatible = compatible

    async def _stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        params: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": chat_messages(request.system, request.messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        # OpenAI's reasoning models refuse ``max_tokens``; many compatible servers only know it.
        params["max_tokens" if self._compatible else "max_completion_tokens"] = request.max_tokens
        if request.tools:
            params["tools"] = self._definitions(tool_definitions(request.tools, "openai"))
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if "reasoning_effort" in request.options:
            params["reasoning_effort"] = request.options["reasoning_effort"]
        turn = TurnBuilder()
        early = _EarlyFragments()
        usage = Usage()
        stop: StopReason = "other"
        stream = await self._sdk.chat.completions.create(**params)
        async with stream:
            async for chunk in stream:
                if chunk.usage is not None:
                    usage = _usage(chunk.usage)
                for choice in chunk.choices[:1]:
                    delta = choice.delta
                    for fragment in (delta.content, delta.refusal):
                        if fragment and (event := turn.text(fragment)) is not None:
                            yield event
                    for position, call in enumerate(delta.tool_calls or ()):
                        key = call.index if call.index is not None else position
                        started = early.fragment(turn, key, call)
                        if started is not None:
                            yield started
                    if choice.finish_reason is not None:
                        stop = _STOP.get(choice.finish_reason, "other")
                        if delta.refusal:
                            stop = "refusal"
        early.flush(turn)
        yield turn.finish(stop, usage)


class _EarlyFragments:
    """Call fragments that came before the call's name (some servers send the id first).

    A call opens in the ``TurnBuilder`` — and ``ToolCallStarted`` is announced — once its name
    is known; what arrived earlier is kept here and handed over then.
    """

    def __init__(self) -> None:
        self._ids: dict[int, str] = {}
        self._arguments: dict[int, list[str]] = {}

    def fragment(self, turn: TurnBuilder, key: int, call: Any) -> ToolCallStarted | None:
        function = call.function
        arguments = (function.arguments if function is not None else None) or ""
        started = None
        if not turn.has_call(key):
            if call.id:
                self._ids.setdefault(key, call.id)
            name = function.name if function is not None else None
            if not name:
                self._arguments.setdefault(key, []).append(arguments)
                return None
            started = self._open(turn, key, name)
        if arguments:
            turn.add_arguments(key, arguments)
        return started

    def flush(self, turn: TurnBuilder) -> None:
        """Open the calls whose name never came (they fail as an unknown tool, visibly)."""
        for key in list(self._arguments):
            self._open(turn, key, "")

    def _open(self, turn: TurnBuilder, key: int, name: str) -> ToolCallStarted | None:
        started = turn.start_call(key, self._ids.pop(key, f"call_{key}"), name)
        for earlier in self._arguments.pop(key, []):
            if earlier:
                turn.add_arguments(key, earlier)
        return started


def chat_messages(system: str, transcript: tuple[Message, ...]) -> list[dict[str, Any]]:
    """The transcript as Chat Completions ``messages``, the system prompt first."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in transcript:
        if isinstance(message, AssistantMessage):
            messages.append(_assistant(message))
        elif isinstance(message, ToolResultsMessage):
            messages.extend(
                openai_chat_tool_message(r, images_follow=True) for r in message.results
            )
            images: list[ContentBlock] = []
            for result in message.results:
                shown = [b for b in result.output.content if isinstance(b, ImageBlock)]
                if shown:
                    images.append(TextBlock(f"Images returned by the {result.tool} call:"))
                    images.extend(shown)
            if images:
                messages.append({"role": "user", "content": wire_content(images, "openai")})
        else:
            messages.append({"role": "user", "content": _user_content(message.content)})
    return messages


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    calls = [
        _call(call.id, call.name, arguments_as_written(message, call))
        for call in message.tool_calls
    ]
    # A call that never ran is replayed with empty arguments: servers that re-render the
    # history through a chat template refuse arguments that are not JSON.
    calls += [_call(call.id, call.name, "{}") for call in message.invalid_calls]
    entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if calls:
        entry["tool_calls"] = calls
    return entry


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _user_content(blocks: tuple[ContentBlock, ...]) -> str | list[dict[str, Any]]:
    if all(isinstance(block, TextBlock) for block in blocks):
        return "\n".join(cast(TextBlock, block).text for block in blocks)
    return wire_content(blocks, "openai")


def _usage(usage: Any) -> Usage:
    details = getattr(usage, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details is not None else 0
    prompt = usage.prompt_tokens or 0
    return Usage(prompt - cached, usage.completion_tokens or 0, cached, 0)
