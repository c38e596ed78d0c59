"""A scripted ``Reply`` as an OpenAI Responses reply and as a Gemini reply (see ``fake_wire``).

Responses: ``thinking`` becomes a ``reasoning`` item (``encrypted_content`` = the signature),
``max_tokens`` an ``incomplete`` response (``reason: max_output_tokens``). Gemini: ``stop:
"malformed"`` is a ``MALFORMED_FUNCTION_CALL`` finish (``finishMessage`` from ``error``);
``thinking``'s signature rides on the first ``functionCall`` part as ``thoughtSignature``, as
Gemini 3 sends it; usage counts cached tokens inside ``promptTokenCount``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.fake_script import Reply
from tests.support.fake_wire import HANG, compact_json, halves

__all__ = ["gemini", "responses"]


def _response(
    reply: Reply, model: str, status: str, output: list[dict[str, Any]]
) -> dict[str, Any]:
    incomplete = status == "incomplete"
    return {
        "id": "resp_FAKE",
        "object": "response",
        "created_at": 1741476542,
        "status": status,
        "model": model,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "temperature": 1.0,
        "top_p": 1.0,
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
        "output": output,
        "usage": {
            "input_tokens": reply.input_tokens + reply.cache_read_tokens,
            "input_tokens_details": {
                "cached_tokens": reply.cache_read_tokens,
                "cache_write_tokens": 0,
            },
            "output_tokens": reply.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": reply.input_tokens + reply.cache_read_tokens + reply.output_tokens,
        },
    }


def _output_items(reply: Reply) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.thinking is not None:
        summary = [{"type": "summary_text", "text": reply.thinking}]
        items.append(
            {
                "type": "reasoning",
                "id": "rs_FAKE1",
                "summary": summary,
                "encrypted_content": reply.signature,
            }
        )
    items.extend(dict(item) for item in reply.provider_items)
    if reply.text:
        part = {"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}
        items.append(
            {
                "type": "message",
                "id": "msg_FAKE1",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for index, call in enumerate(reply.calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_FAKE{index + 1}",
                "call_id": reply.call_id(index, "call_"),
                "name": call.name,
                "arguments": reply.raw_arguments(index),
                "status": "completed",
            }
        )
    return items


def responses(reply: Reply, model: str, stream: bool) -> Any:
    status = "incomplete" if reply.stop_reason == "max_tokens" else "completed"
    items = _output_items(reply)
    final = _response(reply, model, status, items)
    if not stream:
        return final
    events: list[dict[str, Any] | str] = []
    opening = {**_response(reply, model, "in_progress", []), "incomplete_details": None}
    events.append({"type": "response.created", "response": opening})
    events.append({"type": "response.in_progress", "response": opening})
    for index, item in enumerate(items):
        base = {"output_index": index}
        if item["type"] == "message":
            added = {**item, "status": "in_progress", "content": []}
            events.append({"type": "response.output_item.added", **base, "item": added})
            where = {**base, "item_id": item["id"], "content_index": 0}
            empty = {**item["content"][0], "text": ""}
            events.append({"type": "response.content_part.added", **where, "part": empty})
            for number, part in enumerate(halves(reply.text)):
                events.append(
                    {"type": "response.output_text.delta", **where, "delta": part, "logprobs": []}
                )
                if reply.hang and number == 0:
                    events.append(HANG)
            done = {
                "type": "response.output_text.done",
                **where,
                "text": reply.text,
                "logprobs": [],
            }
            events.append(done)
            events.append(
                {"type": "response.content_part.done", **where, "part": item["content"][0]}
            )
        elif item["type"] == "function_call":
            added = {**item, "arguments": "", "status": "in_progress"}
            events.append({"type": "response.output_item.added", **base, "item": added})
            where = {**base, "item_id": item["id"]}
            for part in halves(item["arguments"]):
                events.append(
                    {"type": "response.function_call_arguments.delta", **where, "delta": part}
                )
            events.append(
                {
                    "type": "response.function_call_arguments.done",
                    **where,
                    "arguments": item["arguments"],
                }
            )
        else:
            events.append({"type": "response.output_item.added", **base, "item": item})
        events.append({"type": "response.output_item.done", **base, "item": item})
    events.append({"type": f"response.{status}", "response": final})
    frames: list[str] = []
    sequence = 0
    for event in events:
        if isinstance(event, str):
            frames.append(event)
            continue
        event = {"type": event["type"], "sequence_number": sequence, **event}
        sequence += 1
        frames.append(f"event: {event['type']}\ndata: {compact_json(event)}\n\n")
    return frames


def gemini(reply: Reply, model: str, stream: bool) -> Any:
    finishes = {"max_tokens": "MAX_TOKENS", "malformed": "MALFORMED_FUNCTION_CALL"}
    finish = finishes.get(reply.stop_reason, "STOP")
    calls: list[dict[str, Any]] = []
    for index, call in enumerate(reply.calls):
        arguments = call.arguments
        args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": args}}
        if call.id:
            part["functionCall"]["id"] = call.id
        if index == 0 and reply.thinking is not None:
            part["thoughtSignature"] = reply.signature
        calls.append(part)
    usage = {
        "promptTokenCount": reply.input_tokens + reply.cache_read_tokens,
        "candidatesTokenCount": reply.output_tokens,
        "cachedContentTokenCount": reply.cache_read_tokens,
        "totalTokenCount": reply.input_tokens + reply.cache_read_tokens + reply.output_tokens,
    }
    envelope = {"modelVersion": model, "responseId": "FAKE-gemini"}
    text_parts = [{"text": part} for part in halves(reply.text)]

    def chunk(parts: list[dict[str, Any]], *, last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if last:
            candidate["finishReason"] = finish
            if finish == "MALFORMED_FUNCTION_CALL":
                candidate["finishMessage"] = f"Malformed function call: {reply.error}"
        return {"candidates": [candidate], "usageMetadata": usage, **envelope}

    if not stream:
        return chunk(([{"text": reply.text}] if reply.text else []) + calls, last=True)
    frames: list[str] = []
    for number, part in enumerate(text_parts):
        frames.append(f"data: {compact_json(chunk([part], last=False))}\r\n\r\n")
        if reply.hang and number == 0:
            frames.append(HANG)
    frames.append(f"data: {compact_json(chunk(calls, last=True))}\r\n\r\n")
    return frames
