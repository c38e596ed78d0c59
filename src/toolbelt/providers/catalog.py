"""What toolbelt knows about model families: context windows and list prices.

The loop needs a context window to keep a tool result from overflowing the request, and a
price to report what each turn cost. Windows go by family (the longest name prefix); prices
by exact model, a dated snapshot (``claude-sonnet-4-5-20250929``) priced as its model.
Unknown hosted models get ``DEFAULT_CONTEXT_WINDOW``; models on Ollama or another
OpenAI-compatible server (whose window is whatever the server was started with, often far
below the model's maximum) get the smaller ``LOCAL_CONTEXT_WINDOW``, and no price.

Prices are USD per million tokens, list prices for standard (non-batch) requests, short
contexts. ``Usage.input_tokens`` counts only uncached input (the clients normalise every
provider to this), so the cost is a plain weighted sum.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from toolbelt.providers.model import Usage

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "LOCAL_CONTEXT_WINDOW",
    "Price",
    "context_window",
    "cost",
    "price",
    "total_cost",
]


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


_CLAUDE_SONNET = Price(3.0, 15.0, 0.30, 3.75)
_CLAUDE_OPUS = Price(15.0, 75.0, 1.50, 18.75)

DEFAULT_CONTEXT_WINDOW = 128_000
LOCAL_CONTEXT_WINDOW = 32_768
# Context windows by model name prefix (without the provider); the longest prefix wins.
_WINDOWS: dict[str, int] = {
    "claude": 200_000,
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "gemini": 1_048_576,
    "qwen3-coder": 262_144,
    "gpt-oss": 131_072,
}

# Prices by exact model name (a dated snapshot, ``-20250929`` or ``-2025-08-07``, is priced as
# its model): a newer variant of a family may cost something else, and no price beats a wrong one.
_PRICES: dict[str, Price] = {
    "claude-sonnet-4-5": _CLAUDE_SONNET,
    "claude-sonnet-4": _CLAUDE_SONNET,
    "claude-sonnet-4-0": _CLAUDE_SONNET,
    "claude-3-7-sonnet": _CLAUDE_SONNET,
    "claude-opus-4-5": Price(5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-1": _CLAUDE_OPUS,
    "claude-opus-4": _CLAUDE_OPUS,
    "claude-opus-4-0": _CLAUDE_OPUS,
    "claude-haiku-4-5": Price(1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": Price(0.80, 4.0, 0.08, 1.0),
    "gpt-5": Price(1.25, 10.0, 0.125, 0.0),
    "gpt-5-mini": Price(0.25, 2.0, 0.025, 0.0),
    "gpt-5-nano": Price(0.05, 0.40, 0.005, 0.0),
    "gpt-4.1": Price(2.0, 8.0, 0.50, 0.0),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10, 0.0),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025, 0.0),
    "gpt-4o": Price(2.50, 10.0, 1.25, 0.0),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075, 0.0),
    "o3": Price(2.0, 8.0, 0.50, 0.0),
    "o4-mini": Price(1.10, 4.40, 0.275, 0.0),
    "gemini-2.5-pro": Price(1.25, 10.0, 0.125, 0.0),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.03, 0.0),
    "gemini-2.5-flash-lite": Price(0.10, 0.40, 0.01, 0.0),
}
_SNAPSHOT = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")

_LOCAL_PROVIDERS = {"ollama", "openai-compatible"}


def context_window(spec: str) -> int:
    """Tokens one request to ``spec`` (``provider:model``) may hold."""
    provider, _, name = spec.partition(":")
    if provider in _LOCAL_PROVIDERS:
        return LOCAL_CONTEXT_WINDOW  # the server's own setting (num_ctx, max_model_len) rules
    name = _bare(name)
    matches = [prefix for prefix in _WINDOWS if name.startswith(prefix)]
    return _WINDOWS[max(matches, key=len)] if matches else DEFAULT_CONTEXT_WINDOW


def price(spec: str) -> Price | None:
    """The list price of ``spec``; None for local servers and unknown models."""
    provider, _, name = spec.partition(":")
    if provider in _LOCAL_PROVIDERS:
        return None
    return _PRICES.get(_SNAPSHOT.sub("", _bare(name)))


def cost(spec: str, usage: Usage) -> float | None:
    """What ``usage`` cost in USD at ``spec``'s list price; None when the price is unknown."""
    known = price(spec)
    if known is None:
        return None
    return (
        usage.input_tokens * known.input
        + usage.output_tokens * known.output
        + usage.cache_read_tokens * known.cache_read
        + usage.cache_write_tokens * known.cache_write
    ) / 1_000_000


def total_cost(costs: Iterable[float | None]) -> float | None:
    """What several turns cost together; None as soon as one turn's price is unknown (a sum
    of the known ones would understate the bill)."""
    total = 0.0
    for one in costs:
        if one is None:
            return None
        total += one
    return total


def _bare(name: str) -> str:
    """``models/gemini-2.5-pro`` and ``qwen/qwen3-coder`` without their path, lower case."""
    return name.lower().rsplit("/", 1)[-1]
