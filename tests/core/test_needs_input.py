"""A requester that can only get the answer with a retry ends the call ``needs_input``: not
run, not denied, not counted as an error."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.fakes import Trace, WriterTool
from tests.core.test_executor import make_executor
from toolbelt.core.events import CallState, StateEvent
from toolbelt.core.executor import ToolCall
from toolbelt.core.permission import (
    Answer,
    Ask,
    NeedsInput,
    PermissionRequest,
    PermissionRequester,
)

pytestmark = pytest.mark.anyio


class AsksLater(PermissionRequester):
    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        raise NeedsInput("Waiting for the user's answer.")


async def test_a_call_waiting_for_the_users_answer_ends_needs_input(tmp_path: Any) -> None:
    trace = Trace()
    executor, events = make_executor(tmp_path, WriterTool(trace), requester=AsksLater())
    [result] = await executor.run([ToolCall("w", "writer", {"label": "a"})])
    assert (result.state, result.error_kind, result.text) == (
        CallState.NEEDS_INPUT,
        None,
        "Waiting for the user's answer.",
    )
    assert trace.events == []
    states = [e.state for e in events if isinstance(e, StateEvent) and e.call_id == "w"]
    assert states == [CallState.PENDING, CallState.PERMISSION_REQUIRED, CallState.NEEDS_INPUT]
    assert executor.metrics.summary()["writer"]["outcomes"] == {"needs_input": 1}
