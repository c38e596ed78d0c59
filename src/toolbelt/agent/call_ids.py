"""One id per call in a model turn, whatever ids the model (or its server) chose.

Everything after the reply is keyed by call id: the executor's events, the activity line
that names a call's target, the result paired with each call when the transcript is replayed
to the provider. Two calls sharing an id would let one call's line show another's target (a
``bash`` that edits a file logged as ``bash ls src``) and send two results under one id. So
the loop renames every repeat before anything runs: the first call keeps its id, each later
one becomes ``<id>_2``, ``<id>_3``… (skipping ids already taken; letters, digits and ``_``
only, which every provider accepts). A provider's verbatim replay (Anthropic content blocks,
Gemini parts) is renamed the same way, occurrence by occurrence, and each renamed block takes
the name and input of the call it now stands for, so the replayed call and its result agree.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from toolbelt.providers.model import AssistantMessage, InvalidToolCall, ModelToolCall

__all__ = ["unique_call_ids"]

Call = ModelToolCall | InvalidToolCall


def unique_call_ids(message: AssistantMessage) -> AssistantMessage:
    """``message`` itself when its calls' ids are distinct, else with every repeat renamed."""
    calls: list[Call] = [*message.tool_calls, *message.invalid_calls]
    counts = Counter(call.id for call in calls)
    if all(count == 1 for count in counts.values()):
        return message
    taken = set(counts)
    seen: set[str] = set()
    renamed: list[Call] = []
    occurrences: dict[str, list[Call]] = {}  # original id -> the calls it now names, in order
    for call in calls:
        new = call
        if call.id in seen:
            new = dataclasses.replace(call, id=_fresh(call.id, taken))
            taken.add(new.id)
        seen.add(call.id)
        renamed.append(new)
        occurrences.setdefault(call.id, []).append(new)
    valid = tuple(c for c in renamed if isinstance(c, ModelToolCall))
    invalid = tuple(c for c in renamed if isinstance(c, InvalidToolCall))
    replay = _renamed_replay(message.provider_data, occurrences)
    return dataclasses.replace(
        message, tool_calls=valid, invalid_calls=invalid, provider_data=replay
    )


def _fresh(original: str, taken: set[str]) -> str:
    number = 2
    while f"{original}_{number}" in taken:
        number += 1
    return f"{original}_{number}"


def _renamed_replay(
    data: Mapping[str, Any] | None, occurrences: Mapping[str, list[Call]]
) -> Mapping[str, Any] | None:
    """``data`` with the calls in its replayed blocks renamed like the message's calls."""
    if not data:
        return data
    queues = {original: iter(calls) for original, calls in occurrences.items()}
    out = dict(data)
    blocks = data.get("anthropic_content")
    if isinstance(blocks, list):
        out["anthropic_content"] = [_anthropic_block(block, queues) for block in blocks]
    parts = data.get("gemini_parts")
    if isinstance(parts, list):
        out["gemini_parts"] = [_gemini_part(part, queues) for part in parts]
    return out


def _next(queues: Mapping[str, Iterator[Call]], original: Any) -> Call | None:
    queue = queues.get(original) if isinstance(original, str) else None
    return next(queue, None) if queue is not None else None


def _arguments(call: Call) -> dict[str, Any]:
    return dict(call.arguments) if isinstance(call, ModelToolCall) else {}


def _anthropic_block(block: Any, queues: Mapping[str, Iterator[Call]]) -> Any:
    if not isinstance(block, dict) or block.get("type") != "tool_use":
        return block
    call = _next(queues, block.get("id"))
    if call is None:
        return block
    return {**block, "id": call.id, "name": call.name, "input": _arguments(call)}


def _gemini_part(part: Any, queues: Mapping[str, Iterator[Call]]) -> Any:
    function_call = part.get("function_call") if isinstance(part, dict) else None
    if not isinstance(function_call, dict) or "id" not in function_call:
        return part
    call = _next(queues, function_call.get("id"))
    if call is None:
        return part
    renamed = {**function_call, "id": call.id, "name": call.name, "args": _arguments(call)}
    return {**part, "function_call": renamed}
