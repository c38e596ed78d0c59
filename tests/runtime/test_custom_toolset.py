"""A user's own toolset — the built-ins minus bash, plus a tool of theirs — served by every door.

The toolset lives in a module beside the project (``my_tools.py``), as a user would write it,
and is named by path, ``--toolset ./my_tools.py:toolset``: the real ``toolbelt call`` and ``toolbelt
mcp`` (driven by the MCP SDK's stdio client) run in a subprocess, and the library opens the
same ``Runtime``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import stdio_client

import toolbelt
from mcp import ClientSession, StdioServerParameters
from tests.support.toolbelt_cli import TOOLBELT_ARGS
from tests.support.toolbelt_cli import toolbelt as run_toolbelt

pytestmark = pytest.mark.anyio

MY_TOOLS = """
from typing import Any

import toolbelt


class ShoutInput(toolbelt.ToolInput):
    text: str


class ShoutTool(toolbelt.Tool[ShoutInput]):
    name = "shout"
    title = "Shout"
    description = "Return the text in capitals."
    input_model = ShoutInput
    example = {"text": "hello"}
    readonly = True

    async def run(self, args: ShoutInput, ctx: toolbelt.ToolContext) -> toolbelt.ToolOutput:
        return toolbelt.ToolOutput.text(args.text.upper())


class CountWords(toolbelt.SchemaTool):
    # defined by a JSON Schema alone

    def __init__(self) -> None:
        super().__init__(
            "count_words",
            description="Count the words of a text.",
            input_schema={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
            readonly=True,
        )

    async def run(
        self, args: toolbelt.SchemaArguments, ctx: toolbelt.ToolContext
    ) -> toolbelt.ToolOutput:
        return toolbelt.ToolOutput.text(str(len(args.values()["text"].split())))


class PickInput(toolbelt.ToolInput):
    topic: str


class PickTool(toolbelt.Tool[PickInput]):
    name = "pick"
    title = "Pick"
    description = "Ask the user to pick a colour."
    input_model = PickInput
    example = {"topic": "logo"}
    readonly = True

    async def run(self, args: PickInput, ctx: toolbelt.ToolContext) -> toolbelt.ToolOutput:
        question = toolbelt.Question(f"Colour for the {args.topic}?", ("red", "blue"))
        answer = await ctx.user.ask(question)
        return toolbelt.ToolOutput.text(f"{answer.action}: {answer.text}")


def toolset() -> toolbelt.Toolset:
    extra = [ShoutTool(), CountWords(), PickTool()]
    return toolbelt.build_toolset(disabled=["bash"], extra=extra)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "my_tools.py").write_text(MY_TOOLS)
    (tmp_path / "notes.txt").write_text("kept\n")
    return tmp_path


def toolbelt_cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_toolbelt(*args, cwd=project)


def test_toolbelt_call_runs_a_tool_of_the_users_toolset(project: Path) -> None:
    done = toolbelt_cli(
        project, "call", "shout", '{"text": "hi"}', "--toolset", "./my_tools.py:toolset"
    )
    assert (done.returncode, done.stdout.strip()) == (0, "HI")


def test_toolbelt_call_refuses_a_tool_the_toolset_dropped(project: Path) -> None:
    done = toolbelt_cli(
        project, "call", "bash", '{"command": "true"}', "--toolset", "./my_tools.py:toolset"
    )
    assert done.returncode == 2
    assert "There is no tool named `bash`" in done.stdout
    assert "shout" in done.stdout


def test_a_toolset_that_cannot_be_loaded_is_a_usage_error(project: Path) -> None:
    done = toolbelt_cli(project, "call", "think", "{}", "--toolset", "./my_tools.py:missing")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "toolbelt: --toolset: module './my_tools.py' has no attribute 'missing'."
    )


def test_toolbelt_tools_lists_the_users_toolset(project: Path) -> None:
    done = toolbelt_cli(project, "tools", "--json", "--toolset", "./my_tools.py:toolset")
    names = [tool["name"] for tool in json.loads(done.stdout)]
    assert names[-3:] == ["shout", "count_words", "pick"]
    assert "bash" not in names
    assert "read_file" in names


async def test_toolbelt_mcp_serves_the_users_toolset(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--toolset", "./my_tools.py:toolset"],
        cwd=str(project),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        shouted = await client.call_tool("shout", {"text": "over mcp"})
        counted = await client.call_tool("count_words", {"text": "one two three"})
        refused = await client.call_tool("count_words", {"txt": "one"})
        bash = await client.call_tool("bash", {"command": "true"})
        kept = await client.call_tool("read_file", {"path": "notes.txt"})
    assert "shout" in tools and "bash" not in tools
    assert tools["count_words"].input_schema == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    assert (counted.is_error, counted.content[0].text) == (False, "3")  # type: ignore[union-attr]
    assert refused.is_error
    assert refused.content[0].text == (  # type: ignore[union-attr]
        "Invalid arguments for `count_words`: `text` is required; `txt` is not a parameter of "
        '`count_words` (known: `text`). A correct call looks like: {"text": "text"}'
    )
    assert (shouted.is_error, shouted.content[0].text) == (False, "OVER MCP")  # type: ignore[union-attr]
    assert bash.is_error
    assert bash.content[0].text.startswith("There is no tool named `bash`")  # type: ignore[union-attr]
    assert kept.content[0].text == "1\tkept"  # type: ignore[union-attr]


async def test_the_library_opens_the_same_runtime(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(project))
    from my_tools import toolset  # type: ignore[import-not-found]

    async with toolbelt.Runtime(project, toolset=toolset(), mode="accept_edits") as runtime:
        [shout, write] = await runtime.run(
            [
                toolbelt.ToolCall("1", "shout", {"text": "lib"}),
                toolbelt.ToolCall("2", "write_file", {"path": "new.txt", "content": "x\n"}),
            ]
        )
        assert runtime.mode == "accept_edits"
    assert (shout.text, write.is_error) == ("LIB", False)
    assert (project / "new.txt").read_text() == "x\n"
    assert runtime.session.closed


async def test_a_tools_question_reaches_the_mcp_clients_user_by_elicitation(
    project: Path,
) -> None:
    asked: list[tuple[str, Any]] = []

    async def elicit(context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        asked.append((params.message, params.requested_schema))
        return ElicitResult(action="accept", content={"answer": "blue"})

    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--toolset", "./my_tools.py:toolset"],
        cwd=str(project),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, elicitation_callback=elicit) as client,
    ):
        await client.initialize()
        picked = await client.call_tool("pick", {"topic": "logo"})
    assert (picked.is_error, picked.content[0].text) == (False, "accept: blue")  # type: ignore[union-attr]
    assert asked == [
        (
            "Colour for the logo?",
            {
                "type": "object",
                "properties": {
                    "answer": {"type": "string", "title": "Answer", "enum": ["red", "blue"]}
                },
                "required": ["answer"],
            },
        )
    ]


async def test_a_client_without_elicitation_tells_the_model_to_carry_on(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--toolset", "./my_tools.py:toolset"],
        cwd=str(project),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        picked = await client.call_tool("pick", {"topic": "logo"})
    assert picked.is_error
    assert picked.content[0].text == (  # type: ignore[union-attr]
        "This MCP client cannot ask the user a question in the middle of a call (it does not "
        "support elicitation); decide with what you know and say which assumption you made."
    )


async def test_toolbelt_mcp_over_http_serves_the_users_toolset_and_routes_its_questions(
    project: Path,
) -> None:
    from mcp.types import ElicitResult

    from tests.mcp.http_server import start

    async def elicit(context: Any, params: Any) -> Any:
        return ElicitResult(action="accept", content={"answer": "red"})

    server = start(project, "--toolset", f"{project / 'my_tools.py'}:toolset")
    try:
        async with (
            server.transport() as (read, write, *_),
            ClientSession(read, write, elicitation_callback=elicit) as client,
        ):
            await client.initialize()
            names = [tool.name for tool in (await client.list_tools()).tools]
            picked = await client.call_tool("pick", {"topic": "icon"})
    finally:
        server.stop()
    assert "pick" in names and "bash" not in names
    assert (picked.is_error, picked.content[0].text) == (False, "accept: red")  # type: ignore[union-attr]
