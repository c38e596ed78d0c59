"""A scripted ``Reply`` in each provider's wire format, streaming and not.

Shapes follow research/wire.md §1 (recorded from the official SDKs): Anthropic frames carry an
``event:`` line, Chat Completions frames are ``data:`` only and end with ``data: [DONE]``,
Responses events carry ``sequence_number`` and start with ``response.created``, Gemini chunks
are ``data: `` lines with whole function calls. Arguments stream in two fragments, so the
clients' accumulation is exercised. A stream is a list of SSE frames; ``HANG`` marks where a
``hang`` reply stops and holds the connection.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.fake_script import Reply

__all__ = ["HANG", "anthropic", "chat", "compact_json", "error_body", "halves"]

HANG = "<hang>"
_ANTHROPIC_STOP = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "pause_turn": "pause_turn",
}
_CHAT_STOP = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
_GEMINI_STOP = {"end_turn": "STOP", "tool_use": "STOP", "max_tokens": "MAX_TOKENS"}


def compact_json(value: Any) -> str:
    """Compact JSON, as the providers send it."""
    return json.dumps(value, separators=(",", ":"))


def halves(text: str) -> list[str]:
    middle = len(text) // 2
    return [part for part in (text[:middle], text[middle:]) if part]


def error_body(protocol: str, reply: Reply) -> dict[str, Any]:
    status = reply.status
    if protocol == "anthropic":
        kinds = {429: "rate_limit_error", 529: "overloaded_error", 404: "not_found_error"}
        kind = kinds.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": reply.error}}
    if protocol == "gemini":
        names = {429: "RESOURCE_EXHAUSTED", 404: "NOT_FOUND", 503: "UNAVAILABLE"}
        return {"error": {"code": status, "message": reply.error, "status": names.get(status)}}
    return {"error": {"message": reply.error, "type": "invalid_request_error", "code": None}}


# --- Anthropic Messages ----------------------------------------------------------------------


def _anthropic_usage(reply: Reply) -> dict[str, int]:
    return {
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "cache_creation_input_tokens": reply.cache_write_tokens,
        "cache_read_input_tokens": reply.cache_read_tokens,
    }


def _anthropic_blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.thinking is not None:
        blocks.append(
            {"type": "thinking", "thinking": reply.thinking, "signature": reply.signature}
        )
    blocks.extend(dict(item) for item in reply.provider_items)
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for index, call in enumerate(reply.calls):
        arguments = call.arguments if not isinstance(call.arguments, str) else {}
        blocks.append(
            {
                "type": "tool_use",
                "id": reply.call_id(index, "toolu_0"),
                "name": call.name,
                "input": arguments,
            }
        )
    return blocks


def anthropic(reply: Reply, model: str, stream: bool) -> Any:
    message = {
        "id": "msg_01FAKE",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _anthropic_blocks(reply),
        "stop_reason": _ANTHROPIC_STOP[reply.stop_reason],
        "stop_sequence": None,
        "usage": _anthropic_usage(reply),
    }
    if not stream:
        return message
    start = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"]}}
    start["usage"]["output_tokens"] = 1
    frames = [("message_start", {"type": "message_start", "message": start})]
    if reply.stream_error is not None:
        error = {"type": reply.stream_error, "message": reply.error}
        frames.append(("error", {"type": "error", "error": error}))
        return [f"event: {name}\ndata: {compact_json(data)}\n\n" for name, data in frames]
    hung = False
    calls = 0
    for index, block in enumerate(message["content"]):
        empty = {"thinking": {"thinking": "", "signature": ""}, "text": {"text": ""}}
        whole = block["type"] not in ("thinking", "text", "tool_use", "server_tool_use")
        opening = block if whole else {**block, **empty.get(block["type"], {"input": {}})}
        frames.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        if block["type"] == "thinking":
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]}]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif block["type"] == "text":
            deltas = [{"type": "text_delta", "text": part} for part in halves(block["text"])]
        elif block["type"] == "server_tool_use":
            raw = compact_json(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in halves(raw)]
        elif block["type"] != "tool_use":
            deltas = []  # a server tool's result arrives whole in its start event
        else:
            raw = reply.raw_arguments(calls)
            calls += 1
            deltas = [{"type": "input_json_delta", "partial_json": ""}]
            deltas += [{"type": "input_json_delta", "partial_json": p} for p in halves(raw)]
        for delta in deltas:
            frames.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
            if reply.hang and not hung and delta["type"] == "text_delta":
                frames.append((HANG, {}))
                hung = True
        frames.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": reply.output_tokens}
    frames.append(("message_delta", {"type": "message_delta", "delta": stop, "usage": usage}))
    frames.append(("message_stop", {"type": "message_stop"}))
    return [
        HANG if name == HANG else f"event: {name}\ndata: {compact_json(data)}\n\n"
        for name, data in frames
    ]


# --- OpenAI Chat Completions -----------------------------------------------------------------


def chat(reply: Reply, model: str, stream: bool) -> Any:
    envelope = {"id": "chatcmpl-FAKE", "created": 1741570283, "model": model}
    prompt = reply.input_tokens + reply.cache_read_tokens
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": reply.output_tokens,
        "total_tokens": prompt + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cache_read_tokens},
    }
    calls = [
        {
            "id": reply.call_id(i, "call_"),
            "type": "function",
            "function": {"name": call.name, "arguments": reply.raw_arguments(i)},
        }
        for i, call in enumerate(reply.calls)
    ]
    finish = _CHAT_STOP[reply.stop_reason]
    if not stream:
        message = {"role": "assistant", "content": reply.text or None, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
        return {**envelope, "object": "chat.completion", "choices": [choice], "usage": usage}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        body = {**envelope, "object": "chat.completion.chunk", "choices": [choice]}
        return f"data: {compact_json(body)}\n\n"

    frames = [chunk({"role": "assistant", "content": None, "refusal": None})]
    for number, part in enumerate(halves(reply.text)):
        frames.append(chunk({"content": part}))
        if reply.hang and number == 0:
            frames.append(HANG)
    for index, call in enumerate(calls):
        name = call["function"]["name"]
        parts = halves(call["function"]["arguments"])
        if reply.chat_quirk == "repeat_id_name":  # every fragment repeats id, type and name
            for part in parts:
                fragment = {**call, "function": {"name": name, "arguments": part}}
                frames.append(chunk({"tool_calls": [{"index": index, **fragment}]}))
            continue
        if reply.chat_quirk == "name_late":  # the id and a first fragment come before the name
            first = {"index": index, "id": call["id"], "function": {"arguments": parts[0]}}
            frames.append(chunk({"tool_calls": [first]}))
            named = {"index": index, "type": "function", "function": {"name": name}}
            frames.append(chunk({"tool_calls": [named]}))
            parts = parts[1:]
        else:
            opening = {**call, "function": {"name": name, "arguments": ""}}
            frames.append(chunk({"tool_calls": [{"index": index, **opening}]}))
        for part in parts:
            frames.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            )
    frames.append(chunk({}, finish))
    body = {**envelope, "object": "chat.completion.chunk", "choices": [], "usage": usage}
    frames.append(f"data: {compact_json(body)}\n\n")
    frames.append("data: [DONE]\n\n")
    return frames
