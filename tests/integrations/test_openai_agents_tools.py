"""toolbelt's tools in an OpenAI Agents SDK agent, in-process: a real ``agents.Agent`` run by
``Runner.run`` against a fake OpenAI Responses server on 127.0.0.1 (through the official
``openai`` client) that plays back scripted tool calls. The write asks, so the run stops with an
interruption, and the file appears only after the application approves it; what the model
reads is checked in the requests the SDK sent back to the server."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from agents import Agent, RunConfig, Runner, RunResult
from agents.models.openai_responses import OpenAIResponsesModel
from openai import AsyncOpenAI

import toolbelt
from tests.support.fake_provider import FakeProvider
from tests.tools.test_file_tools import tiny_png
from toolbelt.config.settings import Settings
from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.registry import CombinedToolset, ToolRegistry
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.integrations.openai_agents import ToolbeltTools
from toolbelt.policy.rules import parse_rule
from toolbelt.providers.schema import neutral_schema, strict_tool_schema

pytestmark = pytest.mark.anyio

_NO_TRACES = RunConfig(tracing_disabled=True)

READ_AND_WRITE = {
    "calls": [
        # a strict-mode model sends null for what it leaves out
        {"name": "read_file", "arguments": {"path": "notes.txt", "offset": None}, "id": "r1"},
        {"name": "write_file", "arguments": {"path": "out.txt", "content": "hello\n"}, "id": "w1"},
    ]
}


@asynccontextmanager
async def _agent(fake: FakeProvider, tools: ToolbeltTools) -> AsyncIterator[Agent[Any]]:
    """An agent on the fake server, with the runtime's tools (opened, then closed, by
    ``tools``), its HTTP client closed after."""
    async with (
        tools,
        AsyncOpenAI(base_url=fake.openai_url, api_key="test-key", max_retries=0) as client,
    ):
        yield Agent(
            name="coder",
            model=OpenAIResponsesModel("gpt-5", client),
            tools=tools.function_tools(),
        )


async def _run(agent: Agent[Any], start: Any) -> RunResult:
    with anyio.fail_after(30):
        return await Runner.run(agent, start, run_config=_NO_TRACES)


def _outputs(fake: FakeProvider) -> dict[str, Any]:
    """What the model read: each call's output in the last request the SDK sent."""
    items: Sequence[Mapping[str, Any]] = fake.requests[-1].body["input"]
    return {
        item["call_id"]: item["output"]
        for item in items
        if item.get("type") == "function_call_output"
    }


async def test_a_call_the_policy_asks_about_runs_once_approved(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the note\n")
    tools = ToolbeltTools(toolbelt.Runtime(tmp_path, mode="default"))
    with FakeProvider([READ_AND_WRITE, {"text": "Copied."}]) as fake:
        async with _agent(fake, tools) as agent:
            first = await _run(agent, "copy the note")
            assert [item.call_id for item in first.interruptions] == ["w1"]
            [asked] = first.interruptions
            assert tools.question(asked) == "create out.txt (+1 -0) changes files."
            assert not (tmp_path / "out.txt").exists()  # nothing written before the approval
            assert len(fake.requests) == 1  # the run stopped for the user

            state = first.to_state()
            state.approve(asked)
            second = await _run(agent, state)
            assert tools.runtime.state is toolbelt.RuntimeState.OPENED
        assert tools.runtime.state is toolbelt.RuntimeState.CLOSED  # it opened it, it closed it
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert second.final_output == "Copied."
    assert _outputs(fake) == {  # the read ran at once; the write once approved
        "r1": "1\tthe note",
        "w1": "Created out.txt (6 bytes, 1 line).",
    }


async def test_a_rejected_call_never_reaches_the_tool(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the note\n")
    tools = ToolbeltTools(toolbelt.Runtime(tmp_path, mode="default"))
    with FakeProvider([READ_AND_WRITE, {"text": "Not copied."}]) as fake:
        async with _agent(fake, tools) as agent:
            first = await _run(agent, "copy the note")
            state = first.to_state()
            state.reject(first.interruptions[0])
            second = await _run(agent, state)
    assert not (tmp_path / "out.txt").exists()
    assert second.final_output == "Not copied."
    assert _outputs(fake)["w1"] == "Tool execution was not approved."  # the SDK's words


async def test_a_call_the_policy_denies_returns_the_reason_without_asking(
    tmp_path: Path,
) -> None:
    settings = Settings(deny=[parse_rule("Edit(out.txt)")])
    tools = ToolbeltTools(toolbelt.Runtime(tmp_path, mode="accept_edits", settings=settings))
    script = [
        {"calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]},
        {"text": "Denied."},
    ]
    with FakeProvider(script) as fake:
        async with _agent(fake, tools) as agent:
            result = await _run(agent, "write it")
    assert result.interruptions == []
    assert result.final_output == "Denied."
    assert not (tmp_path / "out.txt").exists()
    assert list(_outputs(fake).values()) == [
        "the rule `Edit(out.txt)` denies this call. Do not retry it; choose another approach "
        "or ask the user to change the rule."
    ]


async def test_invalid_arguments_get_toolbelts_instructive_error(tmp_path: Path) -> None:
    tools = ToolbeltTools(toolbelt.Runtime(tmp_path, mode="default"))
    script = [
        {"calls": [{"name": "read_file", "arguments": {"file": "notes.txt"}, "id": "r1"}]},
        {"text": "I will fix the call."},
    ]
    with FakeProvider(script) as fake:
        async with _agent(fake, tools) as agent:
            result = await _run(agent, "read the note")
    assert result.interruptions == []
    assert _outputs(fake)["r1"] == (
        "Invalid arguments for `read_file`: `path` is required; `file` is not a parameter of "
        "`read_file` (known: `path`, `offset`, `limit`, `pages`, `outline`). A correct call "
        'looks like: {"path": "src/app.py", "offset": 1, "limit": 200}'
    )


class _Meeting(ToolInput):
    name: str


class Rendezvous(Tool[_Meeting]):
    """Read-only; returns only once two calls of it are running at the same time."""

    name = "rendezvous"
    title = "Rendezvous"
    description = "Waits for a second caller."
    input_model = _Meeting
    example = {"name": "a"}
    readonly = True

    def __init__(self) -> None:
        self.arrived = 0
        self.both = anyio.Event()

    async def run(self, args: _Meeting, ctx: ToolContext) -> ToolOutput:
        self.arrived += 1
        if self.arrived == 2:
            self.both.set()
        with anyio.fail_after(5):
            await self.both.wait()
        return ToolOutput.text(f"{args.name} met the other")


class Stamp(Tool[_Meeting]):
    """Mutating; its first ``access`` is harmless, every later one asks (what an earlier call
    of the same turn can do to a later one: decided unasked, asking when it runs)."""

    name = "stamp"
    title = "Stamp"
    description = "Stamps a file."
    input_model = _Meeting
    example = {"name": "a"}

    def __init__(self) -> None:
        self.accesses = 0
        self.ran = 0

    async def access(self, args: _Meeting, ctx: ToolContext) -> Access:
        self.accesses += 1
        if self.accesses == 1:
            return Access.none()
        return Access(AccessKind.WRITE, paths=(ctx.root / args.name,), summary="stamp")

    async def run(self, args: _Meeting, ctx: ToolContext) -> ToolOutput:
        self.ran += 1
        return ToolOutput.text("stamped")


async def test_read_only_calls_run_side_by_side(tmp_path: Path) -> None:
    extra = ToolRegistry([Rendezvous()])
    runtime = toolbelt.Runtime(tmp_path, toolset=CombinedToolset(toolbelt.builtin_toolset(), extra))
    tools = ToolbeltTools(runtime)
    script = [
        {
            "calls": [
                {"name": "rendezvous", "arguments": {"name": "a"}, "id": "a"},
                {"name": "rendezvous", "arguments": {"name": "b"}, "id": "b"},
            ]
        },
        {"text": "Both met."},
    ]
    with FakeProvider(script) as fake:
        async with _agent(fake, tools) as agent:
            await _run(agent, "meet")
    assert _outputs(fake) == {"a": "a met the other", "b": "b met the other"}


async def test_a_call_that_asks_only_when_it_runs_is_sent_back_unrun(tmp_path: Path) -> None:
    stamp = Stamp()
    runtime = toolbelt.Runtime(tmp_path, toolset=ToolRegistry([stamp]), mode="default")
    tools = ToolbeltTools(runtime)
    script = [
        {"calls": [{"name": "stamp", "arguments": {"name": "s.txt"}, "id": "s1"}]},
        {"text": "I will call it again."},
    ]
    with FakeProvider(script) as fake:
        async with _agent(fake, tools) as agent:
            result = await _run(agent, "stamp it")
    assert result.interruptions == []
    assert stamp.ran == 0
    assert _outputs(fake)["s1"].endswith(
        "The call was not put to the user for approval, so it did not run; "
        "call it again to have it approved."
    )


class Labels(toolbelt.SchemaTool):
    """A map of any keys: strict mode cannot say that, so it is offered unstrict."""

    async def run(self, args: toolbelt.SchemaArguments, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(", ".join(sorted(args.values()["labels"])))


async def test_the_model_is_offered_toolbelts_tools_with_strict_schemas(tmp_path: Path) -> None:
    labels = Labels(
        "labels",
        description="Sets labels.",
        input_schema={
            "type": "object",
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["labels"],
        },
    )
    builtins = toolbelt.builtin_toolset()
    toolset = CombinedToolset(builtins, ToolRegistry([labels]))
    tools = ToolbeltTools(toolbelt.Runtime(tmp_path, toolset=toolset))
    with FakeProvider([{"text": "ok"}]) as fake:
        async with _agent(fake, tools) as agent:
            await _run(agent, "list")
    offered = {tool["name"]: tool for tool in fake.requests[0].body["tools"]}
    assert set(offered) == {*builtins.names(), "labels"}
    read_file = builtins.get("read_file")
    assert read_file is not None
    assert offered["read_file"]["strict"] is True
    assert offered["read_file"]["description"] == read_file.description
    assert offered["read_file"]["parameters"] == strict_tool_schema(
        read_file
    )  # as toolbelt made it
    assert offered["labels"]["strict"] is False
    assert offered["labels"]["parameters"] == neutral_schema(labels)  # the map stays open


async def test_an_image_read_reaches_the_model_as_an_image(tmp_path: Path) -> None:
    png = tiny_png()
    (tmp_path / "p.png").write_bytes(png)
    tools = ToolbeltTools(toolbelt.Runtime(tmp_path))
    script = [
        {"calls": [{"name": "read_file", "arguments": {"path": "p.png"}, "id": "i1"}]},
        {"text": "A red and green picture."},
    ]
    with FakeProvider(script) as fake:
        async with _agent(fake, tools) as agent:
            await _run(agent, "look at p.png")
    text, image = _outputs(fake)["i1"]
    assert text == {"type": "input_text", "text": f"p.png: image/png, 3×2 px, {len(png)} bytes"}
    assert image["type"] == "input_image"
    assert image["image_url"] == "data:image/png;base64," + base64.b64encode(png).decode()


async def test_approving_every_call_of_a_tool_never_covers_what_must_be_asked_each_time(
    tmp_path: Path,
) -> None:
    def write(path: str, call_id: str) -> dict[str, Any]:
        return {"name": "write_file", "arguments": {"path": path, "content": "x\n"}, "id": call_id}

    tools = ToolbeltTools(toolbelt.Runtime(tmp_path, mode="default"))
    script = [
        {"calls": [write("a.txt", "w1")]},
        {"calls": [write("b.txt", "w2"), write(".envrc", "w3")]},  # direnv runs .envrc
        {"text": "Done."},
    ]
    with FakeProvider(script) as fake:
        async with _agent(fake, tools) as agent:
            first = await _run(agent, "write them")
            state = first.to_state()
            state.approve(first.interruptions[0], always_approve=True)
            second = await _run(agent, state)
    assert second.interruptions == []  # the SDK asked nothing more about write_file
    assert (tmp_path / "a.txt").exists() and (tmp_path / "b.txt").exists()
    assert not (tmp_path / ".envrc").exists()
    output = _outputs(fake)["w3"]
    assert output.startswith(
        "create .envrc (+1 -0) touches a protected path (.envrc is run by direnv"
    )
    assert output.endswith(
        "This call needs the user's approval each time, and the application approved every call "
        "of `write_file` without showing them this one, so it did not run; ask the user to run "
        "it themselves, or do something else."
    )
