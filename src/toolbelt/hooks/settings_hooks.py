"""Hooks configured in settings files, run through the executor's hook seam.

``{"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "...",
"timeout": 60}]}]}`` — which hooks a call runs is decided by ``hooks.config`` (Claude Code's
matcher rules); PostToolUse and PostToolUseFailure run after the call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from toolbelt.core.hooks import (
    HookCall,
    HookDecision,
    PostToolUseResult,
    PreToolUseResult,
    ToolHooks,
)
from toolbelt.hooks.command import HookOutcome, run_command_hook
from toolbelt.hooks.config import CommandHookSpec, HookMatcherGroup, hooks_for, validate_hooks
from toolbelt.hooks.python_hooks import merge_pre_results
from toolbelt.runners.runner import Runner

__all__ = ["SettingsHooks"]

HooksConfig = Mapping[str, Sequence[HookMatcherGroup | Mapping[str, Any]]]


def _decision(value: str | None) -> HookDecision | None:
    if value == "allow":
        return "allow"
    if value == "deny":
        return "deny"
    return "ask" if value is not None else None


class SettingsHooks(ToolHooks):
    """Runs the settings' command hooks for each call."""

    def __init__(
        self, config: HooksConfig, cwd: Path, *, runner: Callable[[], Runner] | None = None
    ) -> None:
        """``runner`` gives the runner each hook starts with (``config.runners``: the
        session's, asked at each run since the door may choose the sandbox after building
        the hooks); None runs them unconfined."""
        self._config = validate_hooks(dict(config))  # once here, not by hooks_for per call
        self._cwd = cwd
        self._runner = runner

    async def pre_tool_use(self, call: HookCall) -> PreToolUseResult:
        results = []
        for hook in hooks_for("PreToolUse", call.tool, self._config, call.aliases):
            outcome = await self._run(hook, call, "PreToolUse", None)
            failed = bool(outcome.error) and outcome.decision == "ask"
            note = f"A PreToolUse hook failed ({outcome.error})." if failed else ""
            results.append(
                PreToolUseResult(
                    _decision(outcome.decision),
                    outcome.reason or note,
                    outcome.updated_input,
                    outcome.additional_context,
                )
            )
        return merge_pre_results(results)

    async def post_tool_use(
        self, call: HookCall, result: Mapping[str, Any], *, failed: bool
    ) -> PostToolUseResult:
        event = "PostToolUseFailure" if failed else "PostToolUse"
        context, block = [], []
        for hook in hooks_for(event, call.tool, self._config, call.aliases):
            outcome = await self._run(hook, call, event, result)
            context.append(outcome.additional_context)
            if outcome.decision == "deny":
                block.append(outcome.reason)
        return PostToolUseResult(
            "\n".join(c for c in context if c), "\n".join(b for b in block if b)
        )

    async def _run(
        self, hook: CommandHookSpec, call: HookCall, event: str, result: Mapping[str, Any] | None
    ) -> HookOutcome:
        payload: dict[str, Any] = {
            "session_id": call.session_id,
            "cwd": call.cwd,
            "permission_mode": call.permission_mode,
            "hook_event_name": event,
            "tool_name": call.tool,
            "tool_input": dict(call.arguments),
            "tool_use_id": call.call_id,
        }
        if result is not None:
            payload["tool_response"] = dict(result)
        runner = self._runner() if self._runner is not None else None
        return await run_command_hook(
            hook.command, payload, timeout=hook.timeout, cwd=self._cwd, runner=runner
        )
