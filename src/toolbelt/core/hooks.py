"""The hook seam: code that runs before and after every tool call.

``ToolHooks`` is what the executor calls; the settings-driven command hooks (Claude Code's
protocol) and plain Python callables both plug in behind it. A PreToolUse hook may decide
(allow / ask / deny), rewrite the input or add context for the model; PostToolUse hooks see
the result and may add context. Hooks run before the permission policy, and their "allow"
can only skip an ordinary prompt, never a deny rule or a forced ask.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["HookCall", "HookDecision", "PostToolUseResult", "PreToolUseResult", "ToolHooks"]

HookDecision = Literal["allow", "ask", "deny"]


@dataclass(frozen=True, slots=True)
class HookCall:
    """What a hook is told about a call."""

    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    session_id: str
    cwd: str
    permission_mode: str
    aliases: tuple[str, ...] = ()
    """Other names a settings matcher selects the tool by: Claude Code's (``Tool.claude_name``)."""


@dataclass(frozen=True, slots=True)
class PreToolUseResult:
    """A PreToolUse verdict; all fields optional (no decision = carry on as the policy says)."""

    decision: HookDecision | None = None
    reason: str = ""
    updated_input: Mapping[str, Any] | None = None
    additional_context: str = ""


@dataclass(frozen=True, slots=True)
class PostToolUseResult:
    """A PostToolUse verdict: extra context for the model, or a block reason it must read."""

    additional_context: str = ""
    block_reason: str = ""


class ToolHooks:
    """No-op hooks; subclasses override what they need."""

    async def pre_tool_use(self, call: HookCall) -> PreToolUseResult:
        """Runs after validation and before the permission decision."""
        return PreToolUseResult()

    async def post_tool_use(
        self, call: HookCall, result: Mapping[str, Any], *, failed: bool
    ) -> PostToolUseResult:
        """Runs after the call finished; ``failed`` selects PostToolUseFailure hooks."""
        return PostToolUseResult()
