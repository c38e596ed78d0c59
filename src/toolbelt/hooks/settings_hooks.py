"""Hooks configured in settings files, run through the executor's hook seam.

``{"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "...",
"timeout": 60}]}]}`` — which hooks a call runs is decided by ``hooks.config`` (Claude Code's
matcher rules); PostToolUse and PostToolUseFailure run after the call.

**Code of the workspace cannot approve a call.** A hook whose command reaches a file of the
workspace when it runs — ``npx guard`` finding ``node_modules/.bin/guard``, ``make check``
its ``Makefile``, a trusted workspace's ``.toolbelt/hooks/approve.sh`` — or runs what cannot
be told in advance (``bash -c "$(cat guard.txt)"``, a registry package) runs code a command
may have written, however it was pinned: its ``deny`` and ``ask`` count, its ``allow`` does
not (the call is decided as if the hook had said nothing, and the user sees why). What a
command reaches is ``workspace_code``'s answer (``config.launch_files``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

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
        self,
        config: HooksConfig,
        cwd: Path,
        *,
        runner: Callable[[], Runner] | None = None,
        workspace_code: Callable[[str], Sequence[str]] | None = None,
    ) -> None:
        """``runner`` gives the runner each hook starts with (``config.runners``: the
        session's, asked at each run since the door may choose the sandbox after building
        the hooks); None runs them unconfined. ``workspace_code`` names the workspace files a
        hook's command reaches and what it runs that no one can tell in advance (see the
        module's docstring); None trusts every hook's allow."""
        self._config = validate_hooks(dict(config))  # once here, not by hooks_for per call
        self._cwd = cwd
        self._runner = runner
        self._workspace_code = workspace_code

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
        if event == "PostToolUseFailure" and result is not None:  # Claude Code's field
            payload["error"] = str(result.get("error") or result.get("content") or "")
        runner = self._runner() if self._runner is not None else None
        reached = await self._reached(hook.command, event)  # before it runs, and after
        outcome = await run_command_hook(
            hook.command, payload, timeout=hook.timeout, cwd=self._cwd, runner=runner
        )
        if outcome.decision != "allow" or self._workspace_code is None:
            return outcome
        reached = [*reached, *await self._reached(hook.command, event)]
        if not reached:
            return outcome
        note = (
            f"A hook's allow was not taken: what it runs is not the user's own system "
            f"({reached[0]}), and a command may have changed it; the call is decided as if "
            "the hook had said nothing."
        )
        message = f"{outcome.system_message}\n{note}".strip()
        return replace(outcome, decision=None, reason="", system_message=message)

    async def _reached(self, command: str, event: str) -> list[str]:
        """What of ``command`` is not the user's own system now (only a PreToolUse hook can
        allow)."""
        if self._workspace_code is None or event != "PreToolUse":
            return []
        return list(await anyio.to_thread.run_sync(self._workspace_code, command))
