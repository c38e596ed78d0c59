"""Hooks written in Python: callables with matchers, combined by strictness."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState
from toolbelt.core.hooks import HookCall, PostToolUseResult, PreToolUseResult
from toolbelt.hooks.python_hooks import CombinedHooks, PostHook, PreHook, PythonHooks

pytestmark = pytest.mark.anyio


async def test_sync_and_async_callables_with_matchers(tmp_path: Path) -> None:
    seen: list[str] = []

    def audit(call: HookCall) -> None:
        seen.append(call.tool)

    async def no_env(call: HookCall) -> PreToolUseResult | None:
        if str(call.arguments.get("path", "")).startswith(".env"):
            return PreToolUseResult("deny", "Environment files are off limits.")
        return None

    def note(call: HookCall, result: object) -> PostToolUseResult:
        return PostToolUseResult(additional_context="Audited.")

    h = Harness(tmp_path, mode="accept_edits")
    h.executor.hooks = PythonHooks(
        pre=[PreHook(audit), PreHook(no_env, matcher="write_file|read_file")],
        post=[PostHook(note, matcher="write_file")],
    )
    blocked = await h.call("write_file", path=".env", content="X=1")
    assert (blocked.error_kind, blocked.text) == (
        "permission_denied",
        "Environment files are off limits.",
    )
    written = await h.call("write_file", path="ok.txt", content="fine")
    assert written.state is CallState.SUCCESS
    assert written.text.endswith("Audited.")
    assert seen == ["write_file", "write_file"]


async def test_a_raising_hook_asks_instead_of_allowing(tmp_path: Path) -> None:
    def broken(call: HookCall) -> PreToolUseResult:
        raise RuntimeError("lookup failed")

    h = Harness(tmp_path, approve=False)
    h.executor.hooks = PythonHooks(pre=[PreHook(broken)])
    result = await h.call("think", thought="x")
    assert result.error_kind == "permission_denied"
    assert h.requester.asked == [("think", "A PreToolUse hook failed (lookup failed).")]


async def test_combined_hooks_take_the_strictest_decision(tmp_path: Path) -> None:
    allow = PythonHooks(pre=[PreHook(lambda call: PreToolUseResult("allow"))])
    deny = PythonHooks(pre=[PreHook(lambda call: PreToolUseResult("deny", "second says no"))])
    h = Harness(tmp_path, mode="bypass")
    h.executor.hooks = CombinedHooks(allow, deny)
    result = await h.call("think", thought="x")
    assert result.text == "second says no"
