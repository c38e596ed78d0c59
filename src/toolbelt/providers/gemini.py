"""Gemini through the official ``google-genai`` SDK, streaming.

Gemini sends each function call whole (no argument fragments), often without an id: toolbelt
invents one (``formats.GEMINI_SYNTHETIC_ID_PREFIX`` + the part's position) and never sends it
back, so results are matched by order and name as Gemini expects. Arguments arrive as a
protobuf ``Struct``, so whole numbers come as ``3.0`` and are turned back into ``3``. A model
turn whose parts carry a ``thoughtSignature`` (Gemini 3, thinking 2.5) is kept whole in
``provider_data["gemini_parts"]`` and sent back verbatim — Gemini refuses a replayed call
without its signature. Function results go back in one user turn; images a tool returned follow
the ``functionResponse`` parts as inline data. ``request.options["thinking_config"]`` is sent
as the config's ``thinking_config`` (``{"thinking_budget": 1024}``).
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

from toolbelt.core.content import ContentBlock, ImageBlock, TextBlock
from toolbelt.providers.calls import calls_from_gemini
from toolbelt.providers.failures import Endpoint, FailedTurn, Failure
from toolbelt.providers.formats import (
    GEMINI_SYNTHETIC_ID_PREFIX,
    gemini_function_declaration,
    gemini_function_response,
)
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelEvent,
    ModelRequest,
    StopReason,
    ToolResultsMessage,
    Usage,
)
from toolbelt.providers.retry import RetryPolicy
from toolbelt.providers.sdk_client import SdkModelClient
from toolbelt.providers.turn import TurnBuilder

__all__ = ["GeminiClient", "gemini_contents"]

_BAD_CALL = {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"}
_STOP: dict[str, StopReason] = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "BLOCKLIST": "refusal",
    "SPII": "refusal",
}


class GeminiClient(SdkModelClient):
    """Gemini models over the Gemini API."""

    def __init__(self, endpoint: Endpoint, api_key: str, *, retry: RetryPolicy | None = None):
        from google import genai  # the SDK costs two seconds to import: only when used
        from google.genai import types

        super().__init__(endpoint, retry=retry)
        self._types = types
        options = types.HttpOptions(base_url=endpoint.base_url)  # no retry_options: no retries
        self._sdk = genai.Client(api_key=api_key, vertexai=False, http_options=options)

    async def aclose(self) -> None:
        await self._sdk.aio.aclose()

    async def _attempt(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        types = self._types
        config: dict[str, Any] = {
            "max_output_tokens": request.max_tokens,
            "automatic_function_calling": {"disable": True},
        }
        if request.system:
            config["system_instruction"] = request.system
        if request.tools:
            declarations = [gemini_function_declaration(tool) for tool in request.tools]
            config["tools"] = [{"function_declarations": declarations}]
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if "thinking_config" in request.options:
            config["thinking_config"] = request.options["thinking_config"]
        contents = [types.Content.model_validate(c) for c in gemini_contents(request.messages)]
        turn = TurnBuilder()
        parts: list[Any] = []
        usage = Usage()
        stop: StopReason = "other"
        stream = await self._sdk.aio.models.generate_content_stream(
            model=self.endpoint.model,
            contents=contents,
            config=types.GenerateContentConfig.model_validate(config),
        )
        try:
            async for chunk in stream:
                if chunk.usage_metadata is not None:
                    usage = _usage(chunk.usage_metadata)
                for candidate in (chunk.candidates or [])[:1]:
                    for part in candidate.content.parts or [] if candidate.content else []:
                        position = len(parts)
                        parts.append(part)
                        if part.text and not part.thought:
                            if (text := turn.text(part.text)) is not None:
                                yield text
                        elif part.function_call is not None:
                            call = part.function_call
                            call_id = call.id or f"{GEMINI_SYNTHETIC_ID_PREFIX}{position}"
                            if started := turn.start_call(position, call_id, call.name or ""):
                                yield started
                    if candidate.finish_reason is not None:
                        finish = str(candidate.finish_reason.value)
                        if finish in _BAD_CALL and not any(p.function_call for p in parts):
                            raise FailedTurn(_bad_call(finish, candidate.finish_message))
                        stop = _STOP.get(finish, "other")
        finally:
            close = getattr(stream, "aclose", None)  # an async generator holding the response
            if close is not None:
                await close()
        positions = [i for i, part in enumerate(parts) if part.function_call is not None]
        for position, parsed in zip(positions, calls_from_gemini(parts), strict=True):
            arguments = parsed.arguments
            turn.set_arguments(position, arguments if arguments is not None else {})
        replay = None
        if any(part.thought_signature for part in parts):
            replay = {
                "gemini_parts": _merged(
                    [p.model_dump(mode="json", exclude_none=True) for p in parts]
                )
            }
        yield turn.finish(stop, usage, replay)


def _bad_call(finish: str, message: str | None) -> Failure:
    detail = f"the model produced an unusable function call ({finish}"
    detail += f": {message})" if message else ")"
    return Failure("server", None, detail)


def gemini_contents(transcript: tuple[Message, ...]) -> list[dict[str, Any]]:
    """The transcript as Gemini ``contents`` (snake_case keys, as the SDK's types take them)."""
    contents: list[dict[str, Any]] = []
    for message in transcript:
        if isinstance(message, AssistantMessage):
            contents.append({"role": "model", "parts": _model_parts(message)})
        elif isinstance(message, ToolResultsMessage):
            parts = [gemini_function_response(r, images_follow=True) for r in message.results]
            for result in message.results:
                parts.extend(_media(b) for b in result.output.content if isinstance(b, ImageBlock))
            contents.append({"role": "user", "parts": parts})
        else:
            contents.append({"role": "user", "parts": [_part(b) for b in message.content]})
    return contents


def _model_parts(message: AssistantMessage) -> list[dict[str, Any]]:
    replay = (message.provider_data or {}).get("gemini_parts")
    if isinstance(replay, list):
        return list(replay)
    parts: list[dict[str, Any]] = [{"text": message.text}] if message.text else []
    for call in message.tool_calls:
        function_call: dict[str, Any] = {"name": call.name, "args": dict(call.arguments)}
        if not call.id.startswith(GEMINI_SYNTHETIC_ID_PREFIX):
            function_call["id"] = call.id
        parts.append({"function_call": function_call})
    return parts


def _merged(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Adjacent streamed text parts joined (only bare ``{"text": ...}`` parts: a part with a
    signature or a thought flag stays as it came)."""
    merged: list[dict[str, Any]] = []
    for part in parts:
        if merged and set(part) == {"text"} and set(merged[-1]) == {"text"}:
            merged[-1] = {"text": merged[-1]["text"] + part["text"]}
        else:
            merged.append(part)
    return merged


def _part(block: ContentBlock) -> dict[str, Any]:
    return {"text": block.text} if isinstance(block, TextBlock) else _media(block)


def _media(block: ImageBlock) -> dict[str, Any]:
    return {"inline_data": {"mime_type": block.mime_type, "data": base64.b64decode(block.data)}}


def _usage(metadata: Any) -> Usage:
    """Gemini counts cached tokens inside the prompt, and thoughts apart from the answer."""
    prompt = metadata.prompt_token_count or 0
    cached = metadata.cached_content_token_count or 0
    output = (metadata.candidates_token_count or 0) + (metadata.thoughts_token_count or 0)
    return Usage(prompt - cached, output, cached, 0)
