"""What ``Agent.stream`` yields, in order, for a UI or a log.

Per turn: the model's ``TextDelta`` and ``ToolCallStarted`` as they stream, then one
``ModelTurn`` (the whole assistant message, its usage and cost); then, when it called tools,
the executor's events for those calls (``StateEvent`` pending → … → a terminal state,
``ProgressEvent``, ``DiffEvent`` — the same bus every door publishes on) and one
``ToolResults`` with the answers the model will read. The run ends with one ``AgentFinished``.
A ``Compacted`` comes before a turn when the transcript was compacted to make room.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolbelt.agent.compaction import Compacted
from toolbelt.agent.result import AgentResult
from toolbelt.core.events import DiffEvent, ProgressEvent, StateEvent
from toolbelt.core.executor import ToolCallResult
from toolbelt.providers.model import (
    AssistantMessage,
    StopReason,
    TextDelta,
    ToolCallStarted,
    Usage,
)

__all__ = ["AgentEvent", "AgentFinished", "ModelTurn", "ToolResults"]


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """The model finished a turn: what it said and called, its tokens and their cost."""

    index: int
    message: AssistantMessage
    usage: Usage
    cost: float | None
    stop_reason: StopReason


@dataclass(frozen=True, slots=True)
class ToolResults:
    """The answers to a turn's calls, as the model will read them (after the context guard)."""

    index: int
    results: tuple[ToolCallResult, ...]


@dataclass(frozen=True, slots=True)
class AgentFinished:
    """The run is over; the last event of every stream."""

    result: AgentResult


AgentEvent = (
    TextDelta
    | ToolCallStarted
    | ModelTurn
    | StateEvent
    | ProgressEvent
    | DiffEvent
    | ToolResults
    | Compacted
    | AgentFinished
)
