"""The agent loop: a model in front of a runtime's tools (``Agent``), its events, its result
and its default system prompt."""

from toolbelt.agent.compaction import Compacted
from toolbelt.agent.events import AgentEvent, AgentFinished, ModelTurn, ToolResults
from toolbelt.agent.loop import Agent
from toolbelt.agent.result import AgentResult, ModelPricing, StopCause, TurnRecord
from toolbelt.agent.system_prompt import build_system_prompt

__all__ = [
    "Agent",
    "AgentEvent",
    "AgentFinished",
    "AgentResult",
    "Compacted",
    "ModelPricing",
    "ModelTurn",
    "StopCause",
    "ToolResults",
    "TurnRecord",
    "build_system_prompt",
]
