"""think and the todo tools, end to end through the executor."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.tools import builtin_toolset
from toolbelt.tools.think import ThoughtLog

pytestmark = pytest.mark.anyio


async def run(tmp_path: Path, *calls: ToolCall) -> tuple[Session, list[str], list[str | None]]:
    session = Session(tmp_path)
    executor = Executor(builtin_toolset(), session, policy=build_policy(session))
    results = await executor.run(list(calls))
    return session, [r.text for r in results], [r.error_kind for r in results]


async def test_think_records_the_thought(tmp_path: Path) -> None:
    session, texts, _kinds = await run(
        tmp_path, ToolCall("1", "think", {"thought": "a"}), ToolCall("2", "think", {"thought": "b"})
    )
    assert texts == ["Thought recorded.", "Thought recorded."]
    assert list(session.resource(ThoughtLog).thoughts) == ["a", "b"]


async def test_todo_write_then_read(tmp_path: Path) -> None:
    todos = [
        {"id": "1", "content": "Write the parser", "status": "completed"},
        {"id": "2", "content": "Test it", "status": "in_progress", "priority": "high"},
        {"id": "3", "content": "Document it", "status": "pending", "priority": "low"},
    ]
    _, texts, kinds = await run(
        tmp_path,
        ToolCall("1", "todo_read", {}),
        ToolCall("2", "todo_write", {"todos": todos}),
        ToolCall("3", "todo_read", {}),
    )
    assert kinds == [None, None, None]
    assert texts[0] == "The task list is empty."
    listing = "[x] 1. Write the parser\n[~] 2. Test it (high)\n[ ] 3. Document it (low)"
    assert texts[1] == f"Task list updated: 1 completed, 1 in progress, 1 pending.\n{listing}"
    assert texts[2] == listing


async def test_todo_rules_are_explained(tmp_path: Path) -> None:
    two_active = [
        {"id": "1", "content": "a", "status": "in_progress"},
        {"id": "2", "content": "b", "status": "in_progress"},
    ]
    duplicate = [
        {"id": "1", "content": "a", "status": "pending"},
        {"id": "1", "content": "b", "status": "pending"},
    ]
    bad_status = [{"id": "1", "content": "a", "status": "done"}]
    _, texts, kinds = await run(
        tmp_path,
        ToolCall("1", "todo_write", {"todos": two_active}),
        ToolCall("2", "todo_write", {"todos": duplicate}),
        ToolCall("3", "todo_write", {"todos": bad_status}),
    )
    assert kinds == ["invalid_input"] * 3
    assert "at most one todo can be in_progress, but ['1', '2'] are" in texts[0]
    assert "todo ids must be unique, but ['1'] appear more than once" in texts[1]
    assert "`todos.0.status`: Input should be 'pending', 'in_progress' or 'completed'" in texts[2]
    assert texts[2].endswith('"priority": "high"}]}')
