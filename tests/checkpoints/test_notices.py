"""The model is told when the person undid or redid one of its calls — from this process or
another — once, at the start of the agent's next run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.scripts import call as model_call
from tests.agent.scripts import reply
from tests.checkpoints.helpers import call, open_runtime, toolbelt
from toolbelt.agent import Agent
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.core.content import TextBlock
from toolbelt.providers.model import UserMessage

pytestmark = pytest.mark.anyio


async def test_undo_and_redo_by_the_person_become_notices_once(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    async with open_runtime(tmp_path) as runtime:
        edit = await call(runtime, "edit_file", path="a.txt", old_string="one", new_string="two")
        assert runtime.checkpoints.notices() == []
        assert toolbelt("undo", "--root", str(tmp_path)).returncode == 0  # another process
        assert runtime.checkpoints.notices() == [
            f"The person reverted your last edit of a.txt (edit_file call {edit.call_id}): "
            "a.txt is back to what it held before that call. Read it again before changing it."
        ]
        assert runtime.checkpoints.notices() == []
        await runtime.checkpoints.redo()
        assert runtime.checkpoints.notices() == [
            f"The person restored your last edit of a.txt (edit_file call {edit.call_id}) after "
            "undoing it: a.txt holds again what that call left. Read it again before changing it."
        ]


async def test_a_command_undone_is_named_with_its_files(tmp_path: Path) -> None:
    async with open_runtime(tmp_path) as runtime:
        made = await call(runtime, "bash", command="echo 1 > x.txt && echo 2 > y.txt")
        await runtime.checkpoints.undo()
        assert runtime.checkpoints.notices() == [
            "The person reverted your command `echo 1 > x.txt && echo 2 > y.txt` (bash call "
            f"{made.call_id}), which changed x.txt and y.txt: they are back to what they held "
            "before that call. Read them again before changing them."
        ]


async def test_undos_of_another_sessions_calls_are_not_told(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    async with open_runtime(tmp_path) as first, open_runtime(tmp_path) as second:
        await call(first, "edit_file", path="a.txt", old_string="one", new_string="two")
        await second.checkpoints.undo()
        assert second.checkpoints.notices() == []
        assert len(first.checkpoints.notices()) == 1


async def test_the_agent_starts_its_next_run_with_the_notice(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    model = ScriptedModel(
        [
            reply(
                "", model_call("e1", "edit_file", path="a.txt", old_string="one", new_string="2")
            ),
            reply("Done."),
            reply("Noted."),
        ]
    )
    async with open_runtime(tmp_path) as runtime:
        agent = Agent(model, runtime)
        await agent.run("Change one to 2 in a.txt.")
        assert (tmp_path / "a.txt").read_text() == "2\n"
        await runtime.checkpoints.undo()
        await agent.run("Go on.")
    prompt = model.requests[-1].messages[-1]
    assert isinstance(prompt, UserMessage)
    assert prompt.content == (
        TextBlock(
            "[The person reverted your last edit of a.txt (edit_file call e1): a.txt is back "
            "to what it held before that call. Read it again before changing it.]"
        ),
        TextBlock("Go on."),
    )
