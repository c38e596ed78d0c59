"""``Executor.decide``: what the permission step would say about a call, without running it —
the door for frameworks that decide approval before a tool runs (the OpenAI Agents SDK)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.fakes import ReaderTool, Trace, WriterTool
from tests.core.test_executor import RecordingHooks, make_executor
from toolbelt.config.factory import build_policy
from toolbelt.config.settings import Settings
from toolbelt.core.context import Session
from toolbelt.core.errors import InvalidInputError, UnknownToolError
from toolbelt.core.executor import ToolCall
from toolbelt.core.hooks import PreToolUseResult
from toolbelt.core.permission import Allow, Ask, Deny
from toolbelt.policy.rules import parse_rule
from toolbelt.testing import ScriptedRequester

pytestmark = pytest.mark.anyio


async def test_a_write_the_policy_asks_about_is_decided_without_running_or_asking(
    tmp_path: Path,
) -> None:
    trace, requester = Trace(), ScriptedRequester()
    executor, events = make_executor(tmp_path, WriterTool(trace), requester=requester)
    decision = await executor.decide(ToolCall("w1", "writer", {"label": "out.txt"}))
    assert isinstance(decision, Ask)
    assert "out.txt" in decision.reason
    assert trace.events == []  # the tool did not run
    assert requester.prompts == []  # nobody was asked
    assert events == []  # and no listener saw a call


async def test_a_read_inside_the_workspace_is_allowed(tmp_path: Path) -> None:
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()))
    assert isinstance(await executor.decide(ToolCall("r1", "reader", {"label": "a"})), Allow)


async def test_a_deny_rule_decides_deny_with_its_reason(tmp_path: Path) -> None:
    session = Session(tmp_path)
    policy = build_policy(session, settings=Settings(deny=[parse_rule("writer")]))
    executor, _ = make_executor(tmp_path, WriterTool(Trace()), policy=policy)
    decision = await executor.decide(ToolCall("w1", "writer", {"label": "secret.txt"}))
    assert isinstance(decision, Deny)
    assert "writer" in decision.reason


async def test_a_hook_that_asks_turns_an_allowed_read_into_a_question(tmp_path: Path) -> None:
    hooks = RecordingHooks(PreToolUseResult("ask", "Check this read."))
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()), hooks=hooks)
    decision = await executor.decide(ToolCall("r1", "reader", {"label": "r"}))
    assert isinstance(decision, Ask)
    assert decision.reason == "Check this read."
    assert [call.arguments for call in hooks.seen] == [{"label": "r", "count": 1}]


async def test_a_call_that_cannot_run_raises_the_error_its_run_would_report(
    tmp_path: Path,
) -> None:
    executor, _ = make_executor(tmp_path, ReaderTool(Trace()))
    with pytest.raises(InvalidInputError, match="label"):
        await executor.decide(ToolCall("r1", "reader", {"count": 2}))
    with pytest.raises(UnknownToolError, match="no tool named `nope`"):
        await executor.decide(ToolCall("r2", "nope", {}))
