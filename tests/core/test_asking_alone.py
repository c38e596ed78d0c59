"""A call that asks the person something never runs beside another call whose permission
prompt could take the answer (issue #27, "the terminal has no owner")."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from toolbelt.config.settings import Settings
from toolbelt.core.executor import ToolCall
from toolbelt.core.permission import Answer, Approval, PermissionRequester
from toolbelt.core.user import Question, UserAnswer, UserChannel
from toolbelt.runtime import Runtime

pytestmark = pytest.mark.anyio


class Desk(PermissionRequester, UserChannel):
    """One person: records whether a question and a permission prompt were ever open at once."""

    def __init__(self) -> None:
        self.open = 0
        self.most = 0

    async def _wait(self) -> None:
        self.open += 1
        self.most = max(self.most, self.open)
        await anyio.sleep(0.2)
        self.open -= 1

    async def ask(self, *args: object) -> Answer | UserAnswer:  # type: ignore[override]
        await self._wait()
        if isinstance(args[0], Question):
            return UserAnswer("accept", "yes")
        return Answer(Approval.ONCE)

    async def show(self, message: str) -> None:
        return None


async def test_a_question_and_a_permission_prompt_are_never_open_together(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    root = tmp_path / "ws"
    root.mkdir()
    desk = Desk()
    question = {
        "questions": [
            {
                "question": "Go on?",
                "header": "Go",
                "options": [
                    {"label": "yes", "description": "go on"},
                    {"label": "no", "description": "stop"},
                ],
            }
        ]
    }
    async with Runtime(root, settings=Settings(), requester=desk, user=desk) as runtime:
        results = await runtime.run(
            [
                ToolCall("r", "read_file", {"path": str(outside)}),
                ToolCall("q", "ask_user", question),
                ToolCall("r2", "read_file", {"path": str(outside)}),
            ]
        )
    assert [r.state.value for r in results] == ["success", "success", "success"]
    assert desk.most == 1


def test_asking_the_person_keeps_a_call_out_of_a_parallel_group() -> None:
    from toolbelt.core.call_preparation import PreparedCall, segments

    read = PreparedCall(0, ToolCall("a", "read_file"), readonly=True)
    ask = PreparedCall(1, ToolCall("b", "ask_user"), readonly=True, asks_user=True)
    again = PreparedCall(2, ToolCall("c", "read_file"), readonly=True)
    assert [[p.index for p in s] for s in segments([read, ask, again])] == [[0], [1], [2]]
    assert [[p.index for p in s] for s in segments([read, again])] == [[0, 2]]
