"""OpenAI Responses through the official ``openai`` SDK, streaming.

The transcript is sent whole every turn (no ``previous_response_id``), so a conversation does
not depend on what the server kept. The items a turn produced besides its text and calls —
reasoning, and the hosted tool search's call and output — are kept in
``provider_data["responses_items"]`` and sent back before that turn's calls, which is what
lets a reasoning model continue its chain of thought across tool calls (and keeps what a
hosted search loaded loaded). Deferred tools go in the native form (``deferred``): a
client-executed ``tool_search_call`` item is run as a call of toolbelt's ``tool_search`` and
answered by a ``tool_search_output`` carrying the found tools' definitions. A Responses turn has
no finish reason: it wants tools iff it output ``function_call`` items, and an ``incomplete``
status with ``max_output_tokens`` is a cut-off turn. ``request.options["reasoning"]`` is sent
as the API's ``reasoning`` parameter (``{"effort": "low"}``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from toolbelt.providers.deferral import TOOL_SEARCH
from toolbelt.providers.deferred import (
    native_search_by_toolbelt,
    openai_tool_search_call,
    openai_tool_search_output,
    request_tool_definitions,
)
from toolbelt.providers.failures import Failure, describe
from toolbelt.providers.formats import openai_responses_output
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelEvent,
    ModelRequest,
    StopReason,
    ToolResultsMessage,
    Usage,
)
from toolbelt.providers.openai_sdk import OpenAISdkClient
from toolbelt.providers.turn import TurnBuilder
from toolbelt.providers.untrusted import arguments_as_written
from toolbelt.providers.wire_content import wire_content

__all__ = ["OpenAIResponsesClient", "responses_input"]

_REPLAYED_KEY = "responses_items"
_OWN_ITEMS = {"message", "function_call"}  # rebuilt from the neutral message, never replayed


_INCOMPLETE: dict[str, StopReason] = {
    "max_output_tokens": "max_tokens",
    "content_filter": "refusal",
}


class OpenAIResponsesClient(OpenAISdkClient):
    """OpenAI models over the Responses API."""

    async def _stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        params: dict[str, Any] = {
            "model": self.endpoint.model,
            "input": responses_input(request.messages, request),
            "max_output_tokens": request.max_tokens,
            "stream": True,
        }
        if request.system:
            params["instructions"] = request.system
        if request.tools:
            definitions = request_tool_definitions(request, "openai-responses")
            params["tools"] = self._definitions(definitions)
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if "reasoning" in request.options:
            params["reasoning"] = request.options["reasoning"]
        turn = TurnBuilder()
        final: Any = None
        stream = await self._sdk.responses.create(**params)
        async with stream:
            async for event in stream:
                kind = event.type
                if kind == "response.output_text.delta":
                    if (text := turn.text(event.delta)) is not None:
                        yield text
                elif kind == "response.output_item.added" and event.item.type == "function_call":
                    item = event.item
                    started = turn.start_call(item.id or item.call_id, item.call_id, item.name)
                    if started is not None:
                        yield started
                elif kind == "response.function_call_arguments.delta":
                    if turn.has_call(event.item_id):
                        turn.add_arguments(event.item_id, event.delta)
                elif kind == "response.output_item.done" and event.item.type == "function_call":
                    item = event.item
                    key = item.id or item.call_id
                    if not turn.has_call(key):
                        turn.start_call(key, item.call_id, item.name)
                    turn.set_arguments(key, item.arguments)
                elif kind == "response.output_item.done" and _searches_here(event.item):
                    item = event.item  # the model asks toolbelt's tool_search to run
                    started = turn.start_call(item.id, item.call_id or item.id, TOOL_SEARCH)
                    if started is not None:
                        yield started
                    turn.set_arguments(item.id, _search_arguments(item.arguments))
                elif kind in ("response.completed", "response.incomplete"):
                    final = event.response
                elif kind in ("response.failed", "error"):
                    raise describe(_stream_failure(event), self.endpoint, 1)
        if final is None:
            raise describe(
                Failure("server", None, "the stream ended before the response was complete"),
                self.endpoint,
                1,
            )
        replayed = [
            item.model_dump(exclude_none=True)
            for item in final.output
            if item.type not in _OWN_ITEMS and not _searches_here(item)
        ]
        yield turn.finish(
            _stop(final),
            _usage(final.usage),
            {_REPLAYED_KEY: replayed} if replayed else None,
        )


def responses_input(
    transcript: tuple[Message, ...], request: ModelRequest | None = None
) -> list[dict[str, Any]]:
    """The transcript as Responses ``input`` items; under ``request``'s native deferral with
    toolbelt's search, ``tool_search`` calls and results are the search's own items."""
    native = request is not None and bool(native_search_by_toolbelt(request))
    catalog = request.deferred_tools if request is not None else ()
    items: list[dict[str, Any]] = []
    for message in transcript:
        if isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message, native))
        elif isinstance(message, ToolResultsMessage):
            for result in message.results:
                if native and result.tool == TOOL_SEARCH:
                    items.append(openai_tool_search_output(result, catalog))
                else:
                    items.append(openai_responses_output(result))
        else:
            items.append(
                {"role": "user", "content": wire_content(message.content, "openai-responses")}
            )
    return items


def _assistant_items(message: AssistantMessage, native_search: bool) -> list[dict[str, Any]]:
    data = message.provider_data or {}
    replay = data.get(_REPLAYED_KEY, data.get("responses_reasoning"))  # the older key
    items: list[dict[str, Any]] = list(replay) if isinstance(replay, list) else []
    if message.text:
        items.append({"role": "assistant", "content": message.text})
    for call in message.tool_calls:
        if native_search and call.name == TOOL_SEARCH:
            items.append(openai_tool_search_call(call))
        else:
            items.append(_call(call.id, call.name, arguments_as_written(message, call)))
    for invalid in message.invalid_calls:  # answered with an error; replayed with no arguments
        items.append(_call(invalid.id, invalid.name, "{}"))
    return items


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def _stop(response: Any) -> StopReason:
    if response.status == "incomplete":
        reason = getattr(response.incomplete_details, "reason", None)
        return _INCOMPLETE.get(reason or "", "other")
    has_calls = any(
        item.type == "function_call" or _searches_here(item) for item in response.output
    )
    return "tool_use" if has_calls else "end_turn"


def _searches_here(item: Any) -> bool:
    """Whether ``item`` is a tool search the client (toolbelt) is asked to run."""
    return bool(item.type == "tool_search_call" and getattr(item, "execution", None) == "client")


def _search_arguments(arguments: Any) -> str | dict[str, Any]:
    """A ``tool_search_call``'s arguments (an object, or JSON text from some servers)."""
    if isinstance(arguments, dict):
        return arguments
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    details = getattr(usage, "input_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details is not None else 0
    return Usage(usage.input_tokens - cached, usage.output_tokens, cached, 0)


def _stream_failure(event: Any) -> Failure:
    error = getattr(getattr(event, "response", None), "error", None) or event
    code = str(getattr(error, "code", "") or "")
    message = str(getattr(error, "message", "") or "the response failed")
    return Failure("rate_limit" if "rate_limit" in code else "server", None, message)
