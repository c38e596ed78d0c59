"""What an agent run hands back: the final text, why it stopped, tokens and cost per turn.

Cost comes from the caller's prices (``ModelPricing``: a negotiated rate, a model toolbelt does
not know) or else from the list prices of ``toolbelt.providers.catalog``; a model with neither
(a local server, an unknown name) has ``cost`` None, never a made-up zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from toolbelt.providers import catalog
from toolbelt.providers.model import Message, StopReason, TurnComplete, Usage

__all__ = ["AgentResult", "ModelPricing", "StopCause", "TurnRecord", "stop_cause"]

StopCause = Literal[
    "end_turn", "max_turns", "cancelled", "malformed_calls", "max_tokens", "refusal"
]
"""Why the loop ended: the model answered without calling a tool (``end_turn``), the turn
limit, a cancellation, too many consecutive turns of calls that could not run, the reply cut
off by ``max_tokens`` without a call to run, or the model refused."""


@dataclass(frozen=True, slots=True)
class ModelPricing:
    """US dollars per million tokens; cache prices default to the input price."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    def cost(self, usage: Usage) -> float:
        """What ``usage`` costs at these prices."""
        cache_read = self.input if self.cache_read is None else self.cache_read
        cache_write = self.input if self.cache_write is None else self.cache_write
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * cache_read
            + usage.cache_write_tokens * cache_write
        ) / 1_000_000


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One model turn: its tokens, their cost when known, why the model stopped, its calls."""

    index: int
    usage: Usage
    cost: float | None
    stop_reason: StopReason
    tool_calls: int
    invalid_calls: int

    @classmethod
    def of(
        cls, index: int, turn: TurnComplete, model: str, pricing: ModelPricing | None
    ) -> TurnRecord:
        """The record of a completed turn of ``model`` (``provider:model``), priced by
        ``pricing``, else by the list price toolbelt knows for the model, if any."""
        return cls(
            index,
            turn.usage,
            catalog.cost(model, turn.usage) if pricing is None else pricing.cost(turn.usage),
            turn.stop_reason,
            len(turn.message.tool_calls),
            len(turn.message.invalid_calls),
        )


def stop_cause(reason: StopReason) -> StopCause:
    """Why the loop ends when the model's turn made no call."""
    if reason == "max_tokens":
        return "max_tokens"
    if reason == "refusal":
        return "refusal"
    return "end_turn"


@dataclass(frozen=True, slots=True)
class AgentResult:
    """The outcome of ``Agent.run``: the last assistant text and how the run went."""

    text: str
    stop: StopCause
    turns: tuple[TurnRecord, ...]
    messages: tuple[Message, ...]
    """The whole conversation so far (earlier runs included), ending with this run's last
    message; every tool call in it is answered."""

    @property
    def usage(self) -> Usage:
        """Tokens of this run's turns, summed."""
        return Usage.summed(turn.usage for turn in self.turns)

    @property
    def cost(self) -> float | None:
        """US dollars this run cost, or None when the prices are unknown."""
        return catalog.total_cost(turn.cost for turn in self.turns)
