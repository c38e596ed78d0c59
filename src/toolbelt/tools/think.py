"""think: a place for the model to reason step by step without side effects.

Writing a thought down as a tool call gives the model a scratchpad between tool results
(useful mid-way through a long chain of calls); the thought is kept in the session so a UI
or log can show it, and nothing else happens.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints

__all__ = ["ThinkInput", "ThinkTool", "ThoughtLog"]

DESCRIPTION = """\
Use this tool to think through a problem step by step: to plan, to weigh options, or to check \
results from earlier tool calls before acting. It does not change anything or fetch new \
information; it only records the thought. Use it when a task needs several steps or when a \
tool result needs careful interpretation."""


class ThinkInput(ToolInput):
    """Arguments of `think`."""

    thought: str = Field(min_length=1, description="The thought to record.")


KEPT_CHARS = 1_000_000
"""Characters of thoughts a session keeps (the newest; a longer one is kept cut): a session
lives long — the HTTP door's stateless one as long as the server — and a thought may be 16 MiB."""


@dataclass
class ThoughtLog:
    """The thoughts recorded in a session, oldest first, the newest ``KEPT_CHARS`` of them."""

    thoughts: deque[str] = field(default_factory=deque)
    count: int = 0
    """Every thought recorded, kept or not."""
    _chars: int = 0

    def record(self, thought: str) -> int:
        """Keep ``thought`` (dropping the oldest past the budget); its number."""
        kept = thought[:KEPT_CHARS]
        self.thoughts.append(kept)
        self._chars += len(kept)
        while self._chars > KEPT_CHARS:
            self._chars -= len(self.thoughts.popleft())
        self.count += 1
        return self.count


class ThinkOutput(BaseModel):
    """Structured result of `think`."""

    thought_number: int = Field(description="How many thoughts this session has recorded.")


class ThinkTool(Tool[ThinkInput]):
    """Record a thought; read-only, so it runs alongside other read-only calls."""

    name = "think"
    title = "Think"
    description = DESCRIPTION
    output_model = ThinkOutput
    example = {"thought": "The test fails because the fixture path is relative; check cwd."}
    hints = ToolHints.READ_ONLY

    async def run(self, args: ThinkInput, ctx: ToolContext) -> ToolOutput:
        number = ctx.session.resource(ThoughtLog).record(args.thought)
        return ToolOutput.text("Thought recorded.", {"thought_number": number})
