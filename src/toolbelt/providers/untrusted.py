"""What a server that renders a chat template receives: untrusted text cannot forge a turn.

A self-hosted server (vLLM, llama.cpp, Ollama, LM Studio, a gateway serving open weights)
renders the messages of a native tool-calling request through the model's Jinja chat template,
and many tokenize special-token text in message content (``<|im_start|>``, ``<|eot_id|>``) as
the real tokens. A file the model reads could then end the tool turn and open a system turn of
its own. So the request such a server gets has every framing marker and special token broken
(``framing.neutralise``) in everything the loop did not write itself: the system prompt (it
holds AGENTS.md), the person's text (it may be pasted), tool results, and tool descriptions and
schemas (an MCP server wrote them). The model's own earlier turns are replayed as it wrote
them, and the loop's answers to malformed calls stay verbatim: they quote the shape that works.

A model that copies neutralised text into a call's arguments (a chat template in the
repository it edits) gets it restored before the call runs; the arguments as written are kept
in the message's ``provider_data`` so the next request replays what the model wrote.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from toolbelt.core.content import TextBlock
from toolbelt.providers.framing import (
    ZWSP,
    neutralise,
    neutralise_values,
    neutralised_result,
    restore_values,
)
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    ModelRequest,
    ModelToolCall,
    ToolResultsMessage,
    TurnComplete,
    UserMessage,
)

__all__ = [
    "AS_WRITTEN_KEY",
    "NEUTRALISED_OPTION",
    "arguments_as_written",
    "correction_ids",
    "neutralised_definition",
    "neutralised_request",
    "restored_turn",
]

AS_WRITTEN_KEY = "arguments_as_written"
"""``provider_data`` key: call id -> the JSON arguments the model wrote, before restoring."""


NEUTRALISED_OPTION = "untrusted_text_neutralised"
"""``ModelRequest.options`` key set by a client that already neutralised the request and framed
it with markers of its own (text tool calls): the inner client sends it as it is."""


def correction_ids(messages: tuple[Message, ...]) -> set[str]:
    """The ids of the calls the loop answered with a correction (their results are its words)."""
    return {
        call.id
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.invalid_calls
    }


def neutralised_request(request: ModelRequest) -> ModelRequest:
    """``request`` with its untrusted text neutralised; the assistant's turns untouched."""
    if request.options.get(NEUTRALISED_OPTION):
        return request
    corrections = correction_ids(request.messages)
    messages = tuple(_neutralised(message, corrections) for message in request.messages)
    options = {**request.options, NEUTRALISED_OPTION: True}
    return replace(request, system=neutralise(request.system), messages=messages, options=options)


def _neutralised(message: Message, corrections: set[str]) -> Message:
    if isinstance(message, ToolResultsMessage):
        results = tuple(
            r if r.call_id in corrections else neutralised_result(r) for r in message.results
        )
        return ToolResultsMessage(results)
    if isinstance(message, UserMessage):
        content = tuple(
            TextBlock(neutralise(block.text)) if isinstance(block, TextBlock) else block
            for block in message.content
        )
        return UserMessage(content)
    return message


def neutralised_definition(definition: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions (nested) or Responses (flat) tool definition with its description
    and schema texts neutralised (its name is the loop's, and a schema's keys are structure,
    so both stay)."""
    if "function" in definition:
        return {**definition, "function": neutralised_definition(definition["function"])}
    function = dict(definition)
    if "description" in function:
        function["description"] = neutralise(function["description"])
    if "parameters" in function:
        function["parameters"] = neutralise_values(function["parameters"])
    return function


def arguments_as_written(message: AssistantMessage, call: ModelToolCall) -> str:
    """The JSON arguments of ``call`` as the model wrote them, for the replay."""
    written = (message.provider_data or {}).get(AS_WRITTEN_KEY) or {}
    return written.get(call.id) or json.dumps(call.arguments, ensure_ascii=False)


def restored_turn(complete: TurnComplete) -> TurnComplete:
    """``complete`` with neutralised text the model copied into its calls restored; what it
    wrote is kept under ``AS_WRITTEN_KEY`` for the replay."""
    message = complete.message
    written: dict[str, str] = {}
    calls: list[ModelToolCall] = []
    for call in message.tool_calls:
        as_written = json.dumps(call.arguments, ensure_ascii=False)
        if ZWSP in as_written:
            written[call.id] = as_written
            call = replace(call, arguments=restore_values(call.arguments))
        calls.append(call)
    if not written:
        return complete
    data: Mapping[str, Any] = {**(message.provider_data or {}), AS_WRITTEN_KEY: written}
    return replace(complete, message=replace(message, tool_calls=tuple(calls), provider_data=data))
