"""The tool context's seams: the user channel (a tool asks the person something, beside the
permission requester) and ``visible(path)``, the one filter grep, glob and ls apply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolbelt import (
    Question,
    Runtime,
    Session,
    Tool,
    ToolCall,
    ToolContext,
    ToolInput,
    ToolOutput,
    UserAnswer,
)
from toolbelt.testing import ScriptedUser, run_call, tool_context

pytestmark = pytest.mark.anyio


class PickInput(ToolInput):
    topic: str


class PickTool(Tool[PickInput]):
    """A user's tool that asks the person to choose, then says what was chosen."""

    name = "pick"
    title = "Pick"
    description = "Ask the user to pick a colour for the topic."
    input_model = PickInput
    example = {"topic": "logo"}
    readonly = True

    async def run(self, args: PickInput, ctx: ToolContext) -> ToolOutput:
        answer = await ctx.user.ask(Question(f"Colour for the {args.topic}?", ("red", "blue")))
        if not answer.accepted:
            return ToolOutput.text(f"The user did not choose ({answer.action}).")
        await ctx.user.show(f"Using {answer.text}.")
        return ToolOutput.text(f"The user chose {answer.text}.")


async def test_a_tool_asks_the_person_through_the_user_channel(tmp_path: Path) -> None:
    user = ScriptedUser("blue", UserAnswer("decline"))
    chose = await run_call(PickTool(), {"topic": "logo"}, root=tmp_path, user=user)
    declined = await run_call(PickTool(), {"topic": "icon"}, root=tmp_path, user=user)
    assert chose.text == "The user chose blue."
    assert declined.text == "The user did not choose (decline)."
    assert [q.prompt for q in user.questions] == ["Colour for the logo?", "Colour for the icon?"]
    assert user.questions[0].choices == ("red", "blue")
    assert user.shown == ["Using blue."]


async def test_without_a_person_the_model_is_told_to_carry_on(tmp_path: Path) -> None:
    result = await run_call(PickTool(), {"topic": "logo"}, root=tmp_path)
    assert result.error_kind == "tool_error"
    assert result.text == (
        "No person is attached to this session, so the question cannot be asked; decide with "
        "what you know and say which assumption you made."
    )


async def test_listings_leave_out_what_read_deny_rules_cover(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("needle\n")
    (tmp_path / "notes.txt").write_text("needle\n")
    (tmp_path / ".toolbelt").mkdir()
    settings = {"permissions": {"deny": ["Read(./secrets/**)"]}}
    (tmp_path / ".toolbelt" / "settings.json").write_text(json.dumps(settings))
    async with Runtime(tmp_path, mode="default") as runtime:
        grep, glob, ls = await runtime.run(
            [
                ToolCall("1", "grep", {"pattern": "needle", "output_mode": "files_with_matches"}),
                ToolCall("2", "glob", {"pattern": "**/*.txt"}),
                ToolCall("3", "ls", {"path": ".", "depth": 3}),
            ]
        )
    assert grep.text == "Found 1 file\nnotes.txt"
    assert glob.text == "notes.txt"
    assert ls.text.splitlines()[0] == "./ (1 entry)"
    assert ls.text.splitlines()[1].endswith(" notes.txt")
    assert "secrets" not in ls.text


async def test_without_rules_nothing_is_hidden(tmp_path: Path) -> None:
    async with Session(tmp_path) as session:
        ctx = tool_context(session)
        assert ctx.visible(tmp_path / "secrets" / "key.txt")
        assert not ctx.hides_paths
