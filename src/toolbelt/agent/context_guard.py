"""Keep a turn's tool results inside what is left of the model's context window.

Tokens are estimated cheaply, never by a tokenizer: four bytes of UTF-8 per token (close
for English and code in every major tokenizer, pessimistic for dense scripts) and a flat
``IMAGE_TOKENS`` per image. After each turn the provider reports how many tokens the request
really used; the guard trusts that figure when it is the larger one.

When a batch's results would not fit in the remaining room (the window, minus the
transcript, minus the reply's ``max_tokens``), the largest results are cut — head and tail
kept, the room shared so that small results stay whole — and the cut says how much is missing
and how to ask for less, in the words read_file and bash use for their own truncation.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from toolbelt.core.content import ImageBlock, TextBlock, ToolOutput
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import (
    AssistantMessage,
    Message,
    UserMessage,
)
from toolbelt.providers.schema import neutral_schema

__all__ = [
    "BYTES_PER_TOKEN",
    "IMAGE_TOKENS",
    "MIN_RESULT_CHARS",
    "fit_results",
    "message_tokens",
    "text_tokens",
    "tool_tokens",
]

BYTES_PER_TOKEN = 4
IMAGE_TOKENS = 1_600
"""About what one full-size image costs at Anthropic (its cap) and OpenAI (high detail)."""
MIN_RESULT_CHARS = 2_000
"""A cut result keeps at least this much, even when the context is nearly full: the model
needs the start of the answer and the note to ask for less."""


def text_tokens(text: str) -> int:
    """Estimated tokens of ``text``: UTF-8 bytes / 4, rounded up."""
    return -(-len(text.encode("utf-8", "surrogatepass")) // BYTES_PER_TOKEN)


_TOOL_TOKENS: weakref.WeakKeyDictionary[Tool[Any], tuple[str, int]] = weakref.WeakKeyDictionary()


def tool_tokens(tool: Tool[Any]) -> int:
    """Estimated tokens of ``tool``'s definition (name, description, input schema), kept per
    tool and description: the schema is fixed for a tool object, but a description may change
    (``tool_search`` describes its current catalog), and the estimate follows it."""
    known = _TOOL_TOKENS.get(tool)
    if known is None or known[0] != tool.description:
        schema = json.dumps(neutral_schema(tool))  # shared with the request's definitions
        known = (tool.description, text_tokens(tool.name + tool.description + schema))
        _TOOL_TOKENS[tool] = known
    return known[1]


def message_tokens(message: Message) -> int:
    """Estimated tokens ``message`` adds to every later request."""
    if isinstance(message, UserMessage):
        return _blocks_tokens(message.content)
    if isinstance(message, AssistantMessage):
        tokens = text_tokens(message.text)
        for call in message.tool_calls:
            tokens += text_tokens(call.name) + text_tokens(json.dumps(call.arguments))
        for invalid in message.invalid_calls:
            tokens += text_tokens(invalid.name) + text_tokens(invalid.raw)
        return tokens
    return sum(_blocks_tokens(result.output.content) for result in message.results)


def fit_results(results: Sequence[ToolCallResult], room_tokens: int) -> tuple[ToolCallResult, ...]:
    """``results`` unchanged when their text fits in ``room_tokens``, else with the largest
    texts cut to fair shares of the room (images are kept and counted)."""
    images = sum(IMAGE_TOKENS for r in results for b in r.output.content if b.type == "image")
    room_chars = max(0, room_tokens - images) * BYTES_PER_TOKEN
    sizes = [len(_text_of(result.output).encode("utf-8", "surrogatepass")) for result in results]
    if sum(sizes) <= room_chars:
        return tuple(results)
    shares = _fair_shares(sizes, room_chars)
    return tuple(
        _cut(result, max(share, MIN_RESULT_CHARS), room_tokens) if size > share else result
        for result, size, share in zip(results, sizes, shares, strict=True)
    )


def _fair_shares(sizes: Sequence[int], room: int) -> list[int]:
    """Water-filling: results smaller than an equal share keep their size, the others split
    what the small ones left."""
    shares = [0] * len(sizes)
    left, pending = room, sorted(range(len(sizes)), key=lambda i: sizes[i])
    while pending:
        share = left // len(pending)
        index = pending[0]
        if sizes[index] > share:
            for rest in pending:
                shares[rest] = share
            break
        shares[index] = sizes[index]
        left -= sizes[index]
        pending.pop(0)
    return shares


def _cut(result: ToolCallResult, keep_chars: int, room_tokens: int) -> ToolCallResult:
    """``result`` with its text cut to ``keep_chars`` (head and tail) and a note saying how
    much is missing; unchanged when it is no longer than that (a result already small, or
    sized in bytes of dense script, is never "cut" into a copy of itself)."""
    text = _text_of(result.output)
    if len(text) <= keep_chars:
        return result
    half = keep_chars // 2
    head, tail = text[:half], text[len(text) - half :]
    omitted = len(text) - len(head) - len(tail)
    room = (
        f"remaining context (about {room_tokens:,} tokens)"
        if room_tokens > 0
        else "context, which this conversation has already filled"
    )
    note = (
        f"\n[... {omitted:,} characters omitted: the whole result would overflow the model's "
        f"{room}; ask for less — read_file with offset and limit, grep for what you need, or "
        "pipe a command through head, tail or grep ...]\n"
    )
    images = tuple(block for block in result.output.content if isinstance(block, ImageBlock))
    output = ToolOutput(
        (TextBlock(head + note + tail), *images), result.output.structured, result.output.is_error
    )
    return replace(result, output=output)


def _text_of(output: ToolOutput) -> str:
    return "\n".join(block.text for block in output.content if isinstance(block, TextBlock))


def _blocks_tokens(blocks: Iterable[TextBlock | ImageBlock]) -> int:
    return sum(
        text_tokens(block.text) if isinstance(block, TextBlock) else IMAGE_TOKENS
        for block in blocks
    )
