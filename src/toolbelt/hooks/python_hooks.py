"""Hooks written in Python, and how several sets of hooks combine.

``PythonHooks`` lets a library user pass plain (sync or async) callables for PreToolUse and
PostToolUse, each with a tool-name regex like a settings matcher. ``CombinedHooks`` runs several
hook sets in order and merges their verdicts the way Claude Code does: deny beats ask beats
allow, the last rewritten input wins, and additional context accumulates. A hook that raises
counts as "ask" — a failing check must never turn into an approval.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolbelt.core.hooks import HookCall, PostToolUseResult, PreToolUseResult, ToolHooks

__all__ = ["CombinedHooks", "PostHook", "PreHook", "PythonHooks", "merge_pre_results"]

PreHookFn = Callable[[HookCall], PreToolUseResult | Awaitable[PreToolUseResult | None] | None]
PostHookFn = Callable[
    [HookCall, Mapping[str, Any]], PostToolUseResult | Awaitable[PostToolUseResult | None] | None
]

_RANK = {None: 0, "allow": 1, "ask": 2, "deny": 3}


@dataclass(frozen=True, slots=True)
class PreHook:
    """A PreToolUse callable for the tools whose names fully match ``matcher``."""

    fn: PreHookFn
    matcher: str = ".*"


@dataclass(frozen=True, slots=True)
class PostHook:
    """A PostToolUse callable; ``on_failure`` selects PostToolUseFailure instead."""

    fn: PostHookFn
    matcher: str = ".*"
    on_failure: bool = False


class PythonHooks(ToolHooks):
    """Hooks from Python callables."""

    def __init__(self, pre: Sequence[PreHook] = (), post: Sequence[PostHook] = ()) -> None:
        self._pre = tuple(pre)
        self._post = tuple(post)

    async def pre_tool_use(self, call: HookCall) -> PreToolUseResult:
        results = []
        for hook in self._pre:
            if not re.fullmatch(hook.matcher, call.tool):
                continue
            try:
                outcome = hook.fn(call)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except Exception as exc:
                outcome = PreToolUseResult("ask", f"A PreToolUse hook failed ({exc}).")
            if outcome is not None:
                results.append(outcome)
        return merge_pre_results(results)

    async def post_tool_use(
        self, call: HookCall, result: Mapping[str, Any], *, failed: bool
    ) -> PostToolUseResult:
        context, block = [], []
        for hook in self._post:
            if hook.on_failure != failed or not re.fullmatch(hook.matcher, call.tool):
                continue
            try:
                outcome = hook.fn(call, result)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except Exception as exc:
                outcome = PostToolUseResult(additional_context=f"A PostToolUse hook failed: {exc}")
            if outcome is not None:
                context.append(outcome.additional_context)
                block.append(outcome.block_reason)
        return PostToolUseResult(_join(context), _join(block))


class CombinedHooks(ToolHooks):
    """Several hook sets, run in order, verdicts merged (deny > ask > allow)."""

    def __init__(self, *hooks: ToolHooks) -> None:
        self._hooks = hooks

    async def pre_tool_use(self, call: HookCall) -> PreToolUseResult:
        results = []
        for hooks in self._hooks:
            result = await hooks.pre_tool_use(call)
            results.append(result)
            if result.updated_input is not None:
                call = replace(call, arguments=result.updated_input)
        return merge_pre_results(results)

    async def post_tool_use(
        self, call: HookCall, result: Mapping[str, Any], *, failed: bool
    ) -> PostToolUseResult:
        outcomes = [await h.post_tool_use(call, result, failed=failed) for h in self._hooks]
        return PostToolUseResult(
            _join([o.additional_context for o in outcomes]),
            _join([o.block_reason for o in outcomes]),
        )


def merge_pre_results(results: Sequence[PreToolUseResult]) -> PreToolUseResult:
    """The strictest decision (with its reason), the last rewritten input, all context."""
    strongest = max(results, key=lambda r: _RANK[r.decision], default=PreToolUseResult())
    updated = next((r.updated_input for r in reversed(results) if r.updated_input), None)
    return PreToolUseResult(
        strongest.decision,
        strongest.reason,
        updated,
        _join([r.additional_context for r in results]),
    )


def _join(parts: Sequence[str]) -> str:
    return "\n".join(p for p in parts if p)
